import { context, SpanKind } from '@opentelemetry/api';
import { inSpan, SERVER_SPAN, type ServerSpan, tracingOn } from './spans.ts';

export interface ProcedureCall {
  path: string;
  type: string;
  /** The contract's path template, for a procedure that is a REST operation. */
  openapiPath?: string;
  /** The request's path, when it came over HTTP. */
  requestPath?: string;
}

/**
 * The route a request's server span is named by (`POST /api/v1/orders`): the contract's path template
 * for a REST call, the procedure's path under /trpc/ for the tRPC transport. Known only here, where
 * the procedure is found; a request no procedure answered (or MCP's, whose one route is /mcp) keeps
 * its bare `METHOD` name, as the semantic conventions say when the route is unknown.
 */
function routeOf(call: ProcedureCall): string | undefined {
  if (call.requestPath?.startsWith('/trpc/')) return `/trpc/${call.path}`;
  if (call.openapiPath && call.requestPath?.startsWith('/api/')) return call.openapiPath;
  return undefined;
}

/** Runs a tRPC procedure (either transport) in a span named by its path, under the request's span. */
export function inProcedureSpan<T>(call: ProcedureCall, next: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return next();
  const server = context.active().getValue(SERVER_SPAN) as ServerSpan | undefined;
  const route = routeOf(call);
  if (server && route) {
    server.span.setAttribute('http.route', route);
    server.span.updateName(`${server.method} ${route}`);
  }
  const attributes = { 'rpc.system': 'trpc', 'rpc.method': call.path, 'trpc.type': call.type };
  return inSpan(call.path, { kind: SpanKind.INTERNAL, attributes }, next);
}
