import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { SERVER_SPAN, type ServerSpan, startSpan, tracingOn } from '../src/tracing/spans.ts';

/** Methods named as they are; any other is `_OTHER` (semantic conventions: bounded names). */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'CONNECT',
]);

/** Each traced response's trace id, for its log line (weak: gone with the response). */
const traceIds = new WeakMap<ServerResponse, string>();

/** `{ trace_id }` for the request log line of a traced response; nothing when tracing is off. */
export function traceFields(res: ServerResponse): { trace_id?: string } {
  const id = traceIds.get(res);
  return id ? { trace_id: id } : {};
}

/**
 * Runs a request's handling inside its HTTP server span, a child of the caller's `traceparent` when it
 * sent a valid one (a malformed one is ignored: a fresh trace, never an error). The span is named
 * `METHOD` until the procedure names its route (src/tracing/procedure-span.ts), and ends when the
 * response does. Tracing off: `run` alone.
 */
export function traceRequest(
  req: IncomingMessage,
  res: ServerResponse,
  run: () => Promise<void>,
): Promise<void> {
  if (!tracingOn()) return run();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const sent = req.method ?? 'GET';
  const method = KNOWN_METHODS.has(sent) ? sent : '_OTHER';
  const agent = req.headers['user-agent'];
  const span = startSpan(method, {
    kind: SpanKind.SERVER,
    parent,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      // The path only: a query string may carry a partner's search terms or a token.
      [ATTR_URL_PATH]: (req.url ?? '/').split('?')[0] ?? '/',
      [ATTR_URL_SCHEME]: 'http',
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
      // The id the answer and the log line carry (X-Request-Id): from a partner's report to the trace.
      'stockless.request_id': String(res.getHeader('X-Request-Id') ?? ''),
      ...(agent ? { [ATTR_USER_AGENT_ORIGINAL]: agent.slice(0, 256) } : {}),
    },
  });
  traceIds.set(res, span.spanContext().traceId);
  // 'close' comes after 'finish', and alone when the client went away first.
  res.once('close', () => {
    const status = res.statusCode;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    // A 4xx is the client's: a server span is an error only for a 5xx (or an answer never finished).
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!res.writableFinished) span.setAttribute('error.type', 'response_not_finished');
    span.end();
  });
  const server: ServerSpan = { span, method };
  const ctx = trace.setSpan(parent, span).setValue(SERVER_SPAN, server);
  return context.with(ctx, run);
}
