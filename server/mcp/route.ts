import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthScope } from '../../src/auth/actor.ts';
import { missingToolScope } from '../../src/mcp/scopes.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import type { Context } from '../../src/trpc/context.ts';
import { InputRefused, parseJsonBody, readBytes, utf8Text } from '../http-input.ts';
import type { Logger } from '../logger.ts';
import { sendError, sendJson } from '../respond.ts';
import { authenticate, insufficientScope, type Refusal } from './auth.ts';

export const MCP_PATH = '/mcp';

/** A JSON-RPC batch of tool calls stays far below this; the REST API allows as much. */
const MAX_BODY_BYTES = 1_000_000;

export interface McpDeps {
  createContext(req: IncomingMessage): Context;
  publicUrl: string;
  log: Logger;
  version: string;
}

function refuse(res: ServerResponse, refusal: Refusal, requestId: string) {
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  sendError(res, refusal.status, refusal.body, requestId);
}

/** A transport-level failure as the MCP SDK answers one (a JSON-RPC error without an id). */
function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, requestId: string) {
  sendJson(res, status, {
    jsonrpc: '2.0',
    error: { code, message, data: { request_id: requestId } },
    id: null,
  });
}

/** The tools a JSON-RPC message (or batch) calls, by name. */
function calledTools(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const call = m as { method?: unknown; params?: { name?: unknown } } | null;
    return call?.method === 'tools/call' && typeof call.params?.name === 'string' ? [call.params.name] : [];
  });
}

/**
 * The vendor MCP endpoint: Streamable HTTP, stateless (a server and a transport per request, JSON
 * answers, no sessions), for OAuth tokens bound to `{base_url}/mcp` only.
 */
export async function serveMcp(req: IncomingMessage, res: ServerResponse, deps: McpDeps): Promise<void> {
  const ctx = deps.createContext(req);
  const { requestId } = ctx;
  // DNS rebinding (MCP transport spec): a browser page of another origin is refused outright. Clients
  // that are not browsers send no Origin.
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(deps.publicUrl).origin) {
    return sendError(
      res,
      403,
      { error: 'forbidden', code: 'ORIGIN_NOT_ALLOWED', message: `Requests from ${origin} are not accepted` },
      requestId,
    );
  }
  // Authentication comes first whatever the method, so any first contact gets the OAuth challenge.
  const auth = await authenticate(ctx.em, req.headers.authorization, deps.publicUrl);
  if ('refusal' in auth) return refuse(res, auth.refusal, requestId);
  const { actor } = auth;
  ctx.onAuthenticated?.(actor);
  // Stateless: no stream of server-initiated messages to GET, no session to DELETE.
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return sendError(
      res,
      405,
      {
        error: 'bad_request',
        code: 'METHOD_NOT_ALLOWED',
        message: 'Use POST: this endpoint keeps no sessions',
      },
      requestId,
    );
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    return jsonRpcError(
      res,
      415,
      -32000,
      'Unsupported Media Type: Content-Type must be application/json',
      requestId,
    );
  }
  // Read here rather than by the SDK: the shared reader's limits and JSON rules (no prototype keys,
  // no text PostgreSQL cannot store), and the calls can be checked against the token's scopes.
  let body: unknown;
  try {
    body = parseJsonBody(utf8Text(await readBytes(req, MAX_BODY_BYTES)));
  } catch (err) {
    if (!(err instanceof InputRefused)) throw err;
    if (err.status === 413) res.setHeader('Connection', 'close');
    return jsonRpcError(res, err.status, err.status === 413 ? -32000 : -32700, err.message, requestId);
  }
  const missing = calledTools(body).flatMap((tool) => {
    const scope: OAuthScope | undefined = missingToolScope(actor, tool);
    return scope ? [{ tool, scope }] : [];
  });
  if (missing.length > 0) return refuse(res, insufficientScope(deps.publicUrl, actor, missing), requestId);

  const server = createMcpServer({
    context: () => ({ ...deps.createContext(req), actor }),
    log: deps.log,
    version: deps.version,
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
