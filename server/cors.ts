import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for the endpoints a browser-based client (a web MCP client, a single-page partner app) calls
 * from its own origin: discovery, registration, token and revocation. None reads a cookie or any
 * ambient credential, so any origin may call them (`*`, never with credentials). The authorize and
 * consent pages are browser navigations and get no CORS.
 */
const CROSS_ORIGIN_POST = new Set(['/oauth/register', '/oauth/token', '/oauth/revoke']);

/** Headers a browser lets a page read on a cross-origin answer (the rest are hidden from it). */
export const EXPOSED_HEADERS =
  'WWW-Authenticate, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Mcp-Session-Id';

/** The methods a path takes cross-origin, or undefined when it is not open to other origins. */
function crossOriginMethods(path: string): string | undefined {
  if (path.startsWith('/.well-known/')) return 'GET, HEAD';
  return CROSS_ORIGIN_POST.has(path) ? 'POST' : undefined;
}

/**
 * Opens a response to any origin, and answers a preflight outright (before limits, which a preflight
 * must not use up). Answers true when the request was a preflight and has been answered.
 */
export function answerCors(
  req: IncomingMessage,
  res: ServerResponse,
  methods: string | undefined,
  allowHeaders = 'Content-Type, Authorization, MCP-Protocol-Version',
): boolean {
  if (!methods) return false;
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS') return false;
  res
    .writeHead(204, {
      'Access-Control-Allow-Methods': methods,
      'Access-Control-Allow-Headers': allowHeaders,
      'Access-Control-Max-Age': '86400',
      Allow: `${methods}, OPTIONS`,
    })
    .end();
  return true;
}

/** CORS for an OAuth or discovery path; true when a preflight was answered. */
export function oauthCors(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  return answerCors(req, res, crossOriginMethods(path));
}
