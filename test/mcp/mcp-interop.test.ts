import type {
  CallToolResult,
  InitializeResult,
  JSONRPCErrorResponse,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, OAuthClient, OAuthError } from '../../client/src/index.ts';
import { TEXT_COPY_LIMIT } from '../../src/mcp/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { MCP_RESOURCE, mintMcpToken, postMcp, type RpcResult, TOOL_SCOPES } from '../helpers/mcp.ts';
import {
  authorizeAndConsent,
  authorizePath,
  exchange,
  pkce,
  registerClient,
  registerRaw,
  storeUser,
} from '../helpers/oauth.ts';

/**
 * What real MCP clients need of the server beyond the SDK's happy path: desktop redirect URIs
 * (loopback with any port, private-use schemes), CORS for browser-based clients, tool arguments
 * refused as tool errors, honest capabilities, limits on every message, and answers sent once.
 */
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let token: string;

const bearer = () => ({ authorization: `Bearer ${token}` });
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const call = (id: number, name: string, args: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

beforeAll(async () => {
  // A small app allowance, so the limit tests reach it; the other tests stay far below.
  app = await startTestApp({
    OPERATOR_TOKEN: 'operator-token-for-mcp-interop-0123456789',
    APP_RATE_LIMIT: '40',
    OAUTH_REGISTER_RATE_LIMIT: '100',
  });
  store = await app.createStore('MCP Interop Store');
  token = (await mintMcpToken(app, store.id, TOOL_SCOPES)).access_token;
  const fx = fixtures(app.em());
  const supplierId = await fx.supplier({ name: 'Interop Supply' });
  const categoryId = await fx.category({ slug: 'lamps', name: 'Lamps' });
  for (let i = 0; i < 30; i++) {
    await fx.product({
      name: `Brass Lamp ${i}`,
      supplierId,
      categoryId,
      wholesale: 2000,
      retail: 4900,
      stock: [3],
    });
  }
});
afterAll(() => app.close());

describe('redirect URIs of native and desktop clients (RFC 8252)', () => {
  it.each([
    ['localhost with a port', 'http://localhost:33418/callback'],
    ['localhost without a port', 'http://localhost/callback'],
    ['127.0.0.1', 'http://127.0.0.1:6274/oauth/callback'],
    ['[::1]', 'http://[::1]:8080/cb'],
    ['a reverse-domain private-use scheme', 'com.example.assistant:/oauth/callback'],
    ['a private-use scheme as Cursor registers it', 'cursor://anysphere.cursor-mcp/oauth/callback'],
  ])('registers %s', async (_, uri) => {
    const res = await registerRaw<OAuthClient>(app, { redirect_uris: [uri], client_name: 'Desktop' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });

  it.each([
    ['a host that only starts with localhost', 'http://localhost.evil.example/cb'],
    ['an address that only starts with 127.0.0.1', 'http://127.0.0.1.nip.io/cb'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['file:', 'file:///etc/passwd'],
    ['http on a public host', 'http://app.example/cb'],
  ])('refuses %s with invalid_redirect_uri', async (_, uri) => {
    const res = await registerRaw<OAuthError>(app, { redirect_uris: [uri] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
  });

  it('matches a loopback redirect URI with any port, and nothing else looser', async () => {
    const client = await registerClient(app, { redirect_uris: ['http://localhost/callback'] });
    const user = await storeUser(app, store.id);
    const { verifier, challenge } = pkce();
    const redirectUri = 'http://localhost:51234/callback';
    const back = await authorizeAndConsent(app, {
      clientId: client.client_id,
      redirectUri,
      codeChallenge: challenge,
      user,
    });
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    const code = back.searchParams.get('code') ?? '';
    // The token request must repeat the redirect URI of the authorization request, port and all.
    const otherPort = await exchange<OAuthError>(app, {
      clientId: client.client_id,
      code,
      verifier,
      redirectUri: 'http://localhost:51235/callback',
    });
    expect(otherPort.body.error).toBe('invalid_grant');
    for (const other of [
      'http://localhost:51234/other',
      'http://127.0.0.1:51234/callback',
      'http://localhost:51234/callback?x=1',
      'https://localhost:51234/callback',
      'http://localhost:99999/callback',
    ]) {
      const res = await fetch(
        `${app.url}${authorizePath({ clientId: client.client_id, redirectUri: other })}`,
        {
          redirect: 'manual',
        },
      );
      expect(res.status, other).toBe(400);
    }
  });

  it('exchanges a code issued to a loopback port for tokens', async () => {
    const client = await registerClient(app, {
      redirect_uris: ['http://127.0.0.1/cb'],
      scope: 'read_products',
    });
    const { verifier, challenge } = pkce();
    const redirectUri = 'http://127.0.0.1:40001/cb';
    const back = await authorizeAndConsent(app, {
      clientId: client.client_id,
      redirectUri,
      codeChallenge: challenge,
      resource: MCP_RESOURCE,
      user: await storeUser(app, store.id),
    });
    const res = await exchange(app, {
      clientId: client.client_id,
      code: back.searchParams.get('code') ?? '',
      verifier,
      redirectUri,
      resource: MCP_RESOURCE,
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe('CORS for browser-based clients', () => {
  const ORIGIN = { origin: 'https://inspector.example' };

  it.each([
    ['/.well-known/oauth-authorization-server', 'GET'],
    ['/.well-known/oauth-protected-resource/mcp', 'GET'],
    ['/oauth/register', 'POST'],
    ['/oauth/token', 'POST'],
    ['/oauth/revoke', 'POST'],
    ['/mcp', 'POST'],
  ])('answers the preflight of %s for any origin, without cookies', async (path, method) => {
    const res = await fetch(`${app.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        ...ORIGIN,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain(method);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-protocol-version');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('opens the answers themselves, errors included, and lets a page read the challenge', async () => {
    const discovery = await fetch(`${app.url}/.well-known/oauth-authorization-server`, { headers: ORIGIN });
    expect(discovery.status).toBe(200);
    expect(discovery.headers.get('access-control-allow-origin')).toBe('*');
    const badToken = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { ...ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code',
    });
    expect(badToken.status).toBe(400);
    expect(badToken.headers.get('access-control-allow-origin')).toBe('*');
    const unauthorized = await postMcp(app.url, INITIALIZE, ORIGIN);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe('*');
    expect(unauthorized.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    const served = await postMcp(app.url, INITIALIZE, { ...bearer(), ...ORIGIN });
    expect(served.status).toBe(200);
  });

  it('keeps the authorize and consent pages closed to other origins', async () => {
    for (const path of ['/oauth/authorize', '/oauth/consent']) {
      const res = await fetch(`${app.url}${path}`, { headers: ORIGIN, redirect: 'manual' });
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});

describe('tool calls over raw JSON-RPC', () => {
  it('answers text PostgreSQL cannot store, or a prototype key, in arguments as a tool error', async () => {
    const cases: [unknown, string][] = [
      [{ search: 'lamp\u0000' }, 'search'],
      [{ search: 'lamp\ud800' }, 'search'],
    ];
    for (const [args, path] of cases) {
      const res = await postMcp<RpcResult<CallToolResult>>(
        app.url,
        call(7, 'search_catalogue', args),
        bearer(),
      );
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(7);
      expect(res.body.result.isError).toBe(true);
      const [first] = res.body.result.content;
      const body = JSON.parse(first?.type === 'text' ? first.text : '{}') as ErrorBody;
      expect(body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
      expect(body.details?.[0]?.path).toBe(path);
    }
    const poisoned = await postMcp<RpcResult<CallToolResult>>(
      app.url,
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search_catalogue","arguments":{"__proto__":{"limit":1}}}}',
      bearer(),
    );
    expect(poisoned.status).toBe(200);
    expect(poisoned.body.id).toBe(8);
    expect(poisoned.body.result.isError).toBe(true);
    const [first] = poisoned.body.result.content;
    expect(JSON.parse(first?.type === 'text' ? first.text : '{}')).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: '__proto__', message: 'is not an accepted key' }],
    });
  });

  it('still refuses a broken message outside the arguments as a JSON-RPC error', async () => {
    const res = await postMcp<JSONRPCErrorResponse>(
      app.url,
      '{"jsonrpc":"2.0","id":9,"method":"ping","__proto__":{"x":1}}',
      bearer(),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('advertises only what it does: no tools/list_changed notifications', async () => {
    const res = await postMcp<RpcResult<InitializeResult>>(app.url, INITIALIZE, bearer());
    expect(res.body.result.capabilities.tools).toEqual({ listChanged: false });
  });

  it('sends a large answer once: structured content and a line of text', async () => {
    const res = await postMcp<RpcResult<CallToolResult>>(
      app.url,
      call(10, 'search_catalogue', { limit: 30, search: 'Lamp' }),
      bearer(),
    );
    const structured = JSON.stringify(res.body.result.structuredContent);
    expect(structured.length).toBeGreaterThan(TEXT_COPY_LIMIT);
    const [first] = res.body.result.content;
    const text = first?.type === 'text' ? first.text : '';
    expect(text).toMatch(/^Search the catalogue: 30 products, page 1 of 1 \(30 in all\)\. /);
    expect(text.length).toBeLessThan(300);
    const small = await postMcp<RpcResult<CallToolResult>>(app.url, call(11, 'get_store', {}), bearer());
    const [smallText] = small.body.result.content;
    expect(smallText?.type === 'text' && JSON.parse(smallText.text)).toEqual(
      small.body.result.structuredContent,
    );
  });
});

describe('every message inside a limit', () => {
  it('refuses a batch of more than 20 messages', async () => {
    const batch = Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
    const res = await postMcp<JSONRPCErrorResponse>(app.url, batch, bearer());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: -32600 } });
    expect(res.body.error.message).toContain('at most 20');
  });

  it('counts tools/list and other requests against the allowance, batches by their size', async () => {
    const own = (await mintMcpToken(app, store.id, TOOL_SCOPES)).access_token;
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
    const batch = Array.from({ length: 20 }, (_, i) => list(i + 1));
    const first = await postMcp(app.url, batch, { authorization: `Bearer ${own}` });
    expect(first.status).toBe(200);
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(20);
    const second = await postMcp(app.url, batch, { authorization: `Bearer ${own}` });
    expect(second.status).toBe(200);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(0);
    const refused = await postMcp<ErrorBody>(app.url, list(99), { authorization: `Bearer ${own}` });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Notifications are answered with nothing and cost nothing.
    const note = await postMcp(
      app.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        authorization: `Bearer ${own}`,
      },
    );
    expect(note.status).toBe(202);
  });
});
