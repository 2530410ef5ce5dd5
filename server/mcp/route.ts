import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Actor, OAuthScope } from '../../src/auth/actor.ts';
import { type ErrorOrigin, wireErrorBody } from '../../src/errors.ts';
import { missingToolScope } from '../../src/mcp/scopes.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import type { Context } from '../../src/trpc/context.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { chargeLimits } from '../../src/trpc/procedures.ts';
import type { RequestState } from '../../src/trpc/request-state.ts';
import { answerCors } from '../cors.ts';
import { InputRefused, readBytes, utf8Text } from '../http-input.ts';
import type { Logger } from '../logger.ts';
import { sendCode, sendError, sendJson } from '../respond.ts';
import { authenticate, insufficientScope, type Refusal } from './auth.ts';
import { type ScreenedBody, screenBody } from './messages.ts';

export const MCP_PATH = '/mcp';

/** What a browser-based MCP client sends besides the simple headers (Streamable HTTP transport). */
const MCP_REQUEST_HEADERS =
  'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';

/** A JSON-RPC batch of tool calls stays far below this; the REST API allows as much. */
const MAX_BODY_BYTES = 1_000_000;

export interface McpDeps {
  createContext(req: IncomingMessage, state: RequestState): Context;
  publicUrl: string;
  log: Logger;
  version: string;
}

function refuse(res: ServerResponse, refusal: Refusal, origin: ErrorOrigin) {
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  sendError(res, refusal.status, refusal.body, origin);
}

/** A transport-level failure as the MCP SDK answers one (a JSON-RPC error without an id). */
function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, requestId: string) {
  sendJson(res, status, {
    jsonrpc: '2.0',
    error: { code, message, data: { request_id: requestId } },
    id: null,
  });
}

/**
 * The vendor MCP endpoint: Streamable HTTP, stateless (a server and a transport per request, JSON
 * answers, no sessions), for OAuth tokens bound to `{base_url}/mcp` only.
 */
export async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  deps: McpDeps,
): Promise<void> {
  const admitted = await admit(req, res, state, deps);
  if (!admitted) return;
  const { actor, screened } = admitted;
  const server = createMcpServer({
    context: () => ({ ...deps.createContext(req, state), actor }),
    refusedArguments: screened.refusedArguments,
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
  await transport.handleRequest(req, res, screened.body);
}

/**
 * The JSON-RPC body, read here rather than by the SDK: the shared reader's limits and JSON rules (no
 * prototype keys, no text PostgreSQL cannot store), and the calls can be checked against the token's
 * scopes. Undefined when refused, in JSON-RPC's form as the SDK would.
 */
async function readCalls(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
): Promise<ScreenedBody | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    const message = 'Unsupported Media Type: Content-Type must be application/json';
    return void jsonRpcError(res, 415, -32000, message, requestId);
  }
  try {
    return screenBody(utf8Text(await readBytes(req, MAX_BODY_BYTES)));
  } catch (err) {
    if (!(err instanceof InputRefused)) throw err;
    if (err.status === 413) res.setHeader('Connection', 'close');
    const code = err.status === 413 ? -32000 : err.code === 'INVALID_JSON' ? -32700 : -32600;
    return void jsonRpcError(res, err.status, code, err.message, requestId);
  }
}

/**
 * Everything answered before the MCP server sees the request, in order: CORS preflight, the token,
 * the method, the media type, the body, the tools' scopes, the limits. Undefined when answered here.
 */
async function admit(
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  deps: McpDeps,
): Promise<{ actor: Actor; screened: ScreenedBody } | undefined> {
  const ctx = deps.createContext(req, state);
  const requestId = state.id;
  // Open to browser-based clients of any origin. DNS rebinding (the transport spec's concern) gains
  // a page nothing here: every call needs a bearer token, and no cookie or other ambient credential
  // is ever read, so a page can act only with a token its user granted it through consent.
  if (answerCors(req, res, 'POST', MCP_REQUEST_HEADERS)) return;
  // Authentication comes first whatever the method, so any first contact gets the OAuth challenge.
  const auth = await authenticate(ctx.em, req.headers.authorization, deps.publicUrl);
  if ('refusal' in auth) return void refuse(res, auth.refusal, state);
  const { actor } = auth;
  state.actor = actor;
  // Stateless: no stream of server-initiated messages to GET, no session to DELETE.
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return void sendCode(res, 'METHOD_NOT_ALLOWED', 'Use POST: this endpoint keeps no sessions', state);
  }
  const screened = await readCalls(req, res, requestId);
  if (!screened) return;
  const missing = screened.tools.flatMap((tool) => {
    const scope: OAuthScope | undefined = missingToolScope(actor, tool);
    return scope ? [{ tool, scope }] : [];
  });
  if (missing.length > 0) return void refuse(res, insufficientScope(deps.publicUrl, actor, missing), state);
  // Requests other than tool calls (`initialize`, `tools/list`, `ping`, …) count against the client's
  // allowance as tool calls do in their procedures: a batch of listings is no way around the limit.
  const others = screened.requests - screened.tools.length;
  const limited =
    others > 0 ? await chargeLimits(ctx.em, actor, undefined, ctx.settings, others) : { headers: {} };
  if (limited.refusal) {
    const shaped = shapeError(limited.refusal);
    return void sendJson(res, shaped.status, wireErrorBody(shaped.body, state), shaped.headers);
  }
  for (const [name, value] of Object.entries(limited.headers)) res.setHeader(name, value);
  return { actor, screened };
}
