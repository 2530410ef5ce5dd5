import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  CallToolResult,
  InitializeResult,
  JSONRPCErrorResponse,
  ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AuthorizationServerMetadata,
  ErrorBody,
  GetStoreResponse,
  OAuthError,
  ProtectedResourceMetadata,
} from '../../client/src/index.ts';
import { APP_SCOPES, OAUTH_SCOPES } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { TOOLS } from '../../src/mcp/tools.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  connectWithToken,
  MCP_METADATA,
  MCP_RESOURCE,
  mintMcpToken,
  postMcp,
  type RpcResult,
  TOOL_SCOPES,
  toolAnswer,
} from '../helpers/mcp.ts';
import {
  authorizeAndConsent,
  exchange,
  ISSUER,
  mintAppToken,
  pkce,
  postForm,
  RESOURCE,
  registerClient,
  sha256Hex,
  storeUser,
  tokenRequest,
} from '../helpers/oauth.ts';

/**
 * Who may use the vendor MCP endpoint: OAuth tokens bound to `{base_url}/mcp` only. Every refusal
 * carries the Bearer challenge that starts (or restarts) the MCP authorization flow.
 */
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;

const CHALLENGE = `Bearer resource_metadata="${MCP_METADATA}", scope="${TOOL_SCOPES.join(' ')}"`;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const callTool = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The parameters of a Bearer challenge, by name. */
function challengeParams(header: string | null): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...(header ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN: 'operator-token-for-mcp-auth-0123456789' });
  store = await app.createStore('MCP Auth Store');
});
afterAll(() => app.close());

describe('OAuth for the MCP resource (RFC 8707)', () => {
  it('authorizes and issues a token for resource={base}/mcp, bound to it', async () => {
    const t = await mintMcpToken(app, store.id, TOOL_SCOPES);
    expect(t.scope).toBe(TOOL_SCOPES.join(' '));
    const [row] = await rows<{ resource: string }>(
      app.em(),
      sql`SELECT resource FROM oauth_tokens WHERE token_hash = ${sha256Hex(t.access_token)}`,
    );
    expect(row?.resource).toBe(MCP_RESOURCE);
    // The refresh token stays bound too: a refresh for the REST API is refused, one for /mcp works.
    const refresh = { grant_type: 'refresh_token', client_id: t.clientId, refresh_token: t.refresh_token };
    expect((await tokenRequest<OAuthError>(app, { ...refresh, resource: RESOURCE })).body.error).toBe(
      'invalid_target',
    );
    const renewed = await tokenRequest(app, { ...refresh, resource: MCP_RESOURCE });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.scope).toBe(TOOL_SCOPES.join(' '));
    expect((await postMcp(app.url, INITIALIZE, bearer(renewed.body.access_token))).status).toBe(200);
  });

  it('refuses to exchange a code authorized for /mcp for a token of the REST API, and the reverse', async () => {
    const user = await storeUser(app, store.id);
    const { client_id: clientId } = await registerClient(app, { scope: 'read_products' });
    for (const [authorized, asked] of [
      [MCP_RESOURCE, RESOURCE],
      [RESOURCE, MCP_RESOURCE],
    ] as const) {
      const { verifier, challenge } = pkce();
      const back = await authorizeAndConsent(app, {
        clientId,
        codeChallenge: challenge,
        resource: authorized,
        user,
      });
      const code = back.searchParams.get('code') ?? '';
      const res = await exchange<OAuthError>(app, { clientId, code, verifier, resource: asked });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_target');
    }
  });

  it('never lets an app token for /api/v1 carry manage_webhooks', async () => {
    const user = await storeUser(app, store.id);
    // Registered without a scope: the client may ask for every scope, manage_webhooks included.
    const client = await registerClient(app, {});
    expect(client.scope.split(' ').sort()).toEqual([...OAUTH_SCOPES].sort());

    // Asked for explicitly with the REST API as the resource: invalid_scope, back at the redirect URI.
    const refused = await authorizeAndConsent(app, {
      clientId: client.client_id,
      scope: 'read_products manage_webhooks',
      resource: RESOURCE,
      user,
    });
    expect(refused.searchParams.get('error')).toBe('invalid_scope');
    expect(refused.searchParams.get('error_description')).toContain('manage_webhooks');

    // An app token of the client, then the same client approved for /mcp with manage_webhooks: the
    // store's one grant for the client now holds it.
    const appToken = await mintAppToken(app, store.id, ['read_products'], { clientId: client.client_id });
    const mcp = await mintMcpToken(app, store.id, ['read_products', 'manage_webhooks'], {
      clientId: client.client_id,
    });
    expect(mcp.scope).toBe('read_products manage_webhooks');
    // Refreshing the app token does not pick it up, asked for or not.
    const base = { grant_type: 'refresh_token', client_id: client.client_id, resource: RESOURCE };
    const asked = await tokenRequest<OAuthError>(app, {
      ...base,
      refresh_token: appToken.refresh_token,
      scope: 'manage_webhooks',
    });
    expect(asked.body.error).toBe('invalid_scope');
    const renewed = await tokenRequest(app, { ...base, refresh_token: appToken.refresh_token });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.scope).toBe('read_products');
    // Nor does an authorization for the REST API without a scope (the client's registered ones).
    const { verifier, challenge } = pkce();
    const back = await authorizeAndConsent(app, {
      clientId: client.client_id,
      codeChallenge: challenge,
      resource: RESOURCE,
      user,
    });
    const whole = await exchange(app, {
      clientId: client.client_id,
      code: back.searchParams.get('code') ?? '',
      verifier,
    });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.scope.split(' ').sort()).toEqual([...APP_SCOPES].sort());
    // And the webhook API refuses it as any app token.
    const hooks = await app.get<ErrorBody>('/api/v1/vendor/webhooks', whole.body.access_token);
    expect(hooks.status).toBe(403);
    expect(hooks.body.code).toBe('APP_TOKEN_NOT_ALLOWED');
  });

  it('publishes the MCP scopes in the MCP resource metadata and the authorization server metadata', async () => {
    const mcp = await app.get('/.well-known/oauth-protected-resource/mcp');
    expect(mcp.body).toMatchObject({
      resource: MCP_RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: [...OAUTH_SCOPES],
      bearer_methods_supported: ['header'],
    });
    const api = await app.get<ProtectedResourceMetadata>('/.well-known/oauth-protected-resource/api/v1');
    expect(api.body.scopes_supported).toEqual([...APP_SCOPES]);
    const server = await app.get<AuthorizationServerMetadata>('/.well-known/oauth-authorization-server');
    expect(server.body.scopes_supported).toEqual([...OAUTH_SCOPES]);
  });
});

describe('/mcp refuses every credential but a live MCP token', () => {
  it('answers no credential with 401 and the challenge (no error code), whatever the method', async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await fetch(`${app.url}/mcp`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: method === 'POST' ? JSON.stringify(INITIALIZE) : undefined,
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
      expect(await res.json()).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIAL' });
    }
    // Another scheme is no bearer credential either.
    const basic = await postMcp(app.url, INITIALIZE, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('refuses API keys: the MCP authorization profile is OAuth', async () => {
    for (const key of [store.readWrite, store.read]) {
      const res = await postMcp(app.url, INITIALIZE, bearer(key));
      expect(res.status).toBe(401);
      const params = challengeParams(res.headers.get('www-authenticate'));
      expect(params).toMatchObject({ resource_metadata: MCP_METADATA, error: 'invalid_token' });
      expect(params.error_description).toContain('API keys are not accepted');
      expect(res.body).toMatchObject({ error: 'unauthorized', request_id: expect.any(String) });
    }
  });

  it('refuses an app token for /api/v1 (wrong audience)', async () => {
    const t = await mintAppToken(app, store.id, [...APP_SCOPES]);
    const res = await postMcp(app.url, INITIALIZE, bearer(t.access_token));
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers.get('www-authenticate'))).toMatchObject({
      resource_metadata: MCP_METADATA,
      scope: TOOL_SCOPES.join(' '),
      error: 'invalid_token',
      error_description: 'This access token is for another resource',
    });
    // The SDK's client, holding the same token, gets no further.
    await expect(connectWithToken(app.url, t.access_token)).rejects.toBeInstanceOf(StreamableHTTPError);
  });

  it('refuses an MCP token on /api/v1 (wrong audience, the other way)', async () => {
    const t = await mintMcpToken(app, store.id, TOOL_SCOPES);
    for (const path of ['/api/v1/vendor/me', '/api/v1/products?limit=1', '/api/v1/vendor/webhooks']) {
      const res = await app.get(path, t.access_token);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/v1"`,
      );
    }
  });

  it('refuses an expired token, a revoked token, a refresh token and an unknown one with invalid_token', async () => {
    const expired = await mintMcpToken(app, store.id, TOOL_SCOPES);
    await rows(
      app.em(),
      sql`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sha256Hex(expired.access_token)}`,
    );
    const revoked = await mintMcpToken(app, store.id, TOOL_SCOPES);
    expect((await postMcp(app.url, INITIALIZE, bearer(revoked.access_token))).status).toBe(200);
    const revocation = await postForm(app, '/oauth/revoke', {
      client_id: revoked.clientId,
      token: revoked.access_token,
    });
    expect(revocation.status).toBe(200);
    for (const token of [
      expired.access_token,
      revoked.access_token,
      revoked.refresh_token,
      `sl_at_${'a'.repeat(40)}`,
      'not-a-token',
    ]) {
      const res = await postMcp(app.url, INITIALIZE, bearer(token));
      expect(res.status, token).toBe(401);
      expect(challengeParams(res.headers.get('www-authenticate'))).toMatchObject({
        resource_metadata: MCP_METADATA,
        error: 'invalid_token',
        error_description: 'Invalid or expired access token',
      });
    }
  });

  it('answers a tool the token lacks the scope for with 403 insufficient_scope (scope step-up)', async () => {
    const t = await mintMcpToken(app, store.id, ['read_products']);
    // Listing tools needs no scope: every tool is shown, so a client knows what it could ask for.
    const listed = await postMcp<RpcResult<ListToolsResult>>(app.url, listTools, bearer(t.access_token));
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    expect(
      toolAnswer(
        (await postMcp<RpcResult<CallToolResult>>(app.url, callTool('get_store'), bearer(t.access_token)))
          .body.result,
      ).isError,
    ).toBe(false);

    for (const [tool, scope] of [
      ['create_webhook', 'manage_webhooks'],
      ['list_orders', 'read_orders'],
      ['add_listing', 'write_products'],
    ] as const) {
      const res = await postMcp(app.url, callTool(tool, { product_id: 1 }), bearer(t.access_token));
      expect(res.status, tool).toBe(403);
      expect(challengeParams(res.headers.get('www-authenticate'))).toEqual({
        resource_metadata: MCP_METADATA,
        // What it holds and what it lacks: re-authorizing with this loses nothing.
        scope: `read_products ${scope}`,
        error: 'insufficient_scope',
        error_description: `The tool ${tool} needs the scope ${scope}`,
        error_uri: 'http://stockless.test/docs/errors/insufficient_scope',
      });
      expect(res.body).toMatchObject({
        error: 'forbidden',
        code: 'INSUFFICIENT_SCOPE',
        required_scope: scope,
      });
    }
    // A write scope implies its read: write_products is enough for the catalogue and listing reads.
    const writer = await mintMcpToken(app, store.id, ['write_products']);
    const search = await postMcp<RpcResult<CallToolResult>>(
      app.url,
      callTool('search_catalogue', { limit: 1 }),
      bearer(writer.access_token),
    );
    expect(search.status).toBe(200);
    expect(search.body.result.isError).toBeUndefined();

    // The SDK's client: the same 403, reported as such once its (token-less) step-up has nothing to try.
    const client = await connectWithToken(app.url, t.access_token);
    await expect(client.callTool({ name: 'list_webhooks', arguments: {} })).rejects.toMatchObject({
      code: 403,
    });
    await client.close();
  });

  it('reads the grant on every call: a reinstall with fewer scopes narrows the MCP token at once', async () => {
    const t = await mintMcpToken(app, store.id, ['read_products', 'manage_webhooks']);
    const hooks = await postMcp(app.url, callTool('list_webhooks'), bearer(t.access_token));
    expect(hooks.status).toBe(200);
    await mintMcpToken(app, store.id, ['read_products'], { clientId: t.clientId });
    const narrowed = await postMcp(app.url, callTool('list_webhooks'), bearer(t.access_token));
    expect(narrowed.status).toBe(403);
  });
});

describe('the Streamable HTTP transport', () => {
  let token: string;
  beforeAll(async () => {
    token = (await mintMcpToken(app, store.id, TOOL_SCOPES)).access_token;
  });

  it.each(['2025-11-25', '2025-06-18'])('serves protocol version %s', async (version) => {
    const init = await postMcp<RpcResult<InitializeResult>>(
      app.url,
      { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } },
      bearer(token),
    );
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/^application\/json/);
    // Stateless: no session to carry.
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(init.body.result).toMatchObject({
      protocolVersion: version,
      serverInfo: { name: 'stockless' },
      capabilities: { tools: {} },
    });
    const listed = await postMcp<RpcResult<ListToolsResult>>(app.url, listTools, {
      ...bearer(token),
      'mcp-protocol-version': version,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((t) => t.name)).toContain('search_catalogue');
    const called = await postMcp<RpcResult<CallToolResult>>(app.url, callTool('get_store'), {
      ...bearer(token),
      'mcp-protocol-version': version,
    });
    expect(toolAnswer<GetStoreResponse>(called.body.result).body.store.id).toBe(store.id);
  });

  it('negotiates 2025-11-25 with the SDK client', async () => {
    const client = await connectWithToken(app.url, token);
    const transport = client.transport as { protocolVersion?: string } | undefined;
    expect(transport?.protocolVersion).toBe('2025-11-25');
    expect(client.getServerVersion()).toMatchObject({ name: 'stockless', title: 'Stockless' });
    expect(client.getInstructions()).toContain('Money is in integer cents');
    await client.close();
  });

  it('refuses a protocol version it does not speak', async () => {
    const res = await postMcp<JSONRPCErrorResponse>(app.url, listTools, {
      ...bearer(token),
      'mcp-protocol-version': '2023-01-01',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('Unsupported protocol version');
  });

  it('keeps no sessions: GET and DELETE answer 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const res = await fetch(`${app.url}/mcp`, {
        method,
        headers: { ...bearer(token), accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
    }
  });

  it('serves a browser page of any origin, as every call needs a bearer token (no ambient credential)', async () => {
    const foreign = await postMcp(app.url, INITIALIZE, { ...bearer(token), origin: 'http://evil.example' });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBe('*');
    const noToken = await postMcp<ErrorBody>(app.url, INITIALIZE, { origin: 'http://evil.example' });
    expect(noToken.status).toBe(401);
  });

  it('answers unreadable bodies as JSON-RPC errors, never a stack trace', async () => {
    const notJson = await postMcp(app.url, '{"jsonrpc": "2.0", ', bearer(token));
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const poisoned = await postMcp(
      app.url,
      '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}',
      bearer(token),
    );
    expect(poisoned.status).toBe(400);
    const text = await postMcp(app.url, JSON.stringify(listTools), {
      ...bearer(token),
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    const large = await postMcp(
      app.url,
      { ...listTools, params: { pad: 'x'.repeat(1_100_000) } },
      bearer(token),
    );
    expect(large.status).toBe(413);
    const notRpc = await postMcp(app.url, { hello: 'world' }, bearer(token));
    expect(notRpc.status).toBe(400);
    for (const res of [notJson, poisoned, text, large, notRpc])
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
  });
});
