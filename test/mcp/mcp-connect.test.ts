import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GetMyProductResponse, ListWebhooksResponse } from '../../client/src/index.ts';
import { createLogger } from '../../server/logger.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { TOOLS } from '../../src/mcp/tools.ts';
import { setFeature } from '../../src/platform/set-feature.ts';
import { createCaller } from '../../src/router.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { createStore } from '../../src/store/create-store.ts';
import { testSettings } from '../helpers/app.ts';
import { launchChromium, NO_CHROMIUM, type PublicApp, startAppAtPublicUrl } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import {
  approveInBrowser,
  MemoryOAuthProvider,
  TOOL_SCOPES,
  type ToolName,
  type ToolResponses,
  toolAnswer,
} from '../helpers/mcp.ts';
import { PASSWORD, sha256Hex } from '../helpers/oauth.ts';

/**
 * A store owner connects an AI assistant, end to end: the MCP SDK's own client with its OAuth
 * provider discovers the protected resource from the 401, reads the authorization server metadata,
 * registers itself (RFC 7591), sends the owner to sign in and approve in a real headless Chromium,
 * exchanges the code for a token bound to `{base}/mcp`, then lists and calls the tools. The app
 * listens where its PUBLIC_URL says, as the SDK checks the resource against the server URL.
 */
const OPERATOR = 'operator-token-for-mcp-connect-0123456789';
const EMAIL = 'owner@assistant.test';

let app: PublicApp;
let callback: { url: string; close(): Promise<void> };
let browser: Browser | undefined;
let page: Page;
let storeId: number;
let apiKey: string;
let products: { table: number; bench: number };
const requests: string[] = [];

/**
 * The client's redirect URI: a page on `localhost`, as a desktop assistant listens on. It registers
 * `http://localhost/callback` and comes back on the port the system gave it (RFC 8252 §7.3).
 */
const REGISTERED_REDIRECT = 'http://localhost/callback';
async function startCallback() {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>You can close this tab</h1>');
  });
  // Every address, IPv4 and IPv6: the browser may resolve localhost to either.
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const address = server.address();
  return {
    url: `http://localhost:${typeof address === 'object' && address ? address.port : 0}/callback`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the SDK sends, method and path, so the test can tell discovery from registration from token. */
const recording: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  requests.push(`${init?.method ?? 'GET'} ${url.pathname}`);
  return fetch(input, init);
};

/** GET with the store's API key; `T` is the body the test expects. */
async function rest<T = unknown>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, body: (await res.json()) as T };
}

beforeEach(() => {
  if (!browser) throw new Error(NO_CHROMIUM);
});

beforeAll(async () => {
  // Webhook URLs on loopback are allowed here (https is still required), as in every webhook test.
  app = await startAppAtPublicUrl({ OPERATOR_TOKEN: OPERATOR, WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  callback = await startCallback();
  browser = await launchChromium();
  if (browser) {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
  }
  const em = app.orm.em.fork();
  const store = await createStore({ em }, { name: 'Harbour & Home', slug: `s-${randomUUID().slice(0, 8)}` });
  storeId = store.id;
  apiKey = (await createApiKey({ em }, { storeId, scope: 'read_write', mode: 'live' })).key;
  await createCaller({
    em: app.orm.em.fork(),
    requestId: 'req_mcp_connect',
    headers: { authorization: `Bearer ${OPERATOR}` },
    settings: testSettings(OPERATOR),
    log: createLogger('silent'),
  }).internal.oauth.createUser({ storeId, email: EMAIL, password: PASSWORD });
  const fx = fixtures(app.orm.em.fork());
  const supplierId = await fx.supplier({ name: 'Harbour Supply' });
  const categoryId = await fx.category({ slug: 'tables', name: 'Tables' });
  const product = (name: string) =>
    fx.product({ name, supplierId, categoryId, wholesale: 30000, retail: 59900, stock: [5], images: 1 });
  products = { table: await product('Oak Table'), bench: await product('Oak Bench') };
  await setFeature(
    { em: app.orm.em.fork(), settings: testSettings(OPERATOR), log: createLogger('silent') },
    { feature: 'inventory_read', enabled: true },
  );
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await app?.close();
});

describe('connecting an assistant with the MCP SDK', () => {
  let provider: MemoryOAuthProvider;
  let client: Client;
  let consent: Awaited<ReturnType<typeof approveInBrowser>> | undefined;

  const newTransport = () =>
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      authProvider: provider,
      fetch: recording,
    });
  const call = async <N extends ToolName>(name: N, args: Record<string, unknown> = {}) => {
    const answer = toolAnswer<ToolResponses[N]>(await client.callTool({ name, arguments: args }));
    expect(answer.isError, `${name}: ${JSON.stringify(answer.body)}`).toBe(false);
    return answer.body;
  };

  it('discovers, registers, signs in and approves in Chromium, and gets a token for {base}/mcp', async () => {
    provider = new MemoryOAuthProvider(
      callback.url,
      async (url) => {
        consent = await approveInBrowser(page, url, { email: EMAIL, password: PASSWORD }, callback.url);
        return consent.code;
      },
      [REGISTERED_REDIRECT],
    );
    const first = newTransport();
    await expect(new Client({ name: 'assistant', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    // The 401 named the metadata; the SDK read both documents, then registered itself.
    expect(requests).toEqual([
      'POST /mcp',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-authorization-server',
      'POST /oauth/register',
    ]);
    expect(provider.clientInformation()).toMatchObject({
      client_id: expect.stringMatching(/^slc_/),
      redirect_uris: [REGISTERED_REDIRECT],
      scope: TOOL_SCOPES.join(' '),
    });

    const [authorization] = provider.authorizationUrls;
    expect(`${authorization?.origin}${authorization?.pathname}`).toBe(`${app.url}/oauth/authorize`);
    expect(Object.fromEntries(authorization?.searchParams ?? [])).toMatchObject({
      response_type: 'code',
      resource: `${app.url}/mcp`,
      scope: TOOL_SCOPES.join(' '),
      code_challenge_method: 'S256',
      redirect_uri: callback.url,
    });
    // The owner saw what the assistant asks for, manage_webhooks included, and that it is an assistant.
    expect(consent?.scopes).toEqual(TOOL_SCOPES);
    expect(consent?.notes).toContain(
      'It connects an AI assistant to your store through the Stockless MCP endpoint.',
    );

    await first.finishAuth(provider.code ?? '');
    expect(requests.at(-1)).toBe('POST /oauth/token');
    const tokens = provider.tokens();
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: TOOL_SCOPES.join(' ') });
    const [stored] = await rows<{ resource: string }>(
      app.orm.em.fork(),
      sql`SELECT resource FROM oauth_tokens WHERE token_hash = ${sha256Hex(tokens?.access_token ?? '')}`,
    );
    expect(stored?.resource).toBe(`${app.url}/mcp`);

    client = new Client({ name: 'assistant', version: '1.0.0' });
    await client.connect(newTransport());
    expect(client.getServerVersion()?.name).toBe('stockless');
    expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe('2025-11-25');
  });

  it('lists the tools and runs a vendor’s session: search, list, reprice, subscribe, clean up', async () => {
    expect(client, 'the connection test must pass first').toBeDefined();
    const { tools } = await client.listTools();
    // Every tool of the registry, each once: what an assistant is offered is what the server defines.
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());

    expect((await call('get_store')).store.id).toBe(storeId);
    const facets = await call('catalogue_facets', { category: 'tables' });
    expect(facets.total_count).toBe(2);
    const found = await call('search_catalogue', { search: 'Oak', category: 'tables', sort_by: 'name' });
    expect(found.products.map((p) => p.id)).toEqual([products.bench, products.table]);
    const table = await call('get_catalogue_product', { id: products.table });
    const minimum = table.product.minimum_price_cents as number;

    const added = await call('add_listing', { product_id: products.table });
    expect(added.vendor_product).toMatchObject({
      product_id: products.table,
      custom_retail_price_cents: null,
    });
    await call('set_listing_price', { productId: products.table, custom_retail_price_cents: minimum + 1000 });
    expect(
      (await call('get_listing', { productId: products.table })).product.effective_retail_price_cents,
    ).toBe(minimum + 1000);
    expect((await call('list_listings')).products.map((p) => p.product_id)).toEqual([products.table]);
    // The store changed for real: the REST API, with the store's API key, shows the same listing.
    expect(
      (await rest<GetMyProductResponse>(`/api/v1/my-products/${products.table}`)).body.product
        .custom_retail_price_cents,
    ).toBe(minimum + 1000);
    expect((await call('read_inventory')).items.map((i) => i.product_id)).toEqual([products.table]);
    expect((await call('list_orders')).orders).toEqual([]);
    const missingOrder = toolAnswer(await client.callTool({ name: 'get_order', arguments: { id: 1 } }));
    expect(missingOrder).toMatchObject({ isError: true, body: { error: 'not_found' } });

    const hook = await call('create_webhook', { url: 'https://127.0.0.1:9/hook', events: ['order.created'] });
    expect(hook.webhook.secret).toMatch(/^whsec_/);
    expect((await call('list_webhooks')).webhooks.map((w) => w.id)).toEqual([hook.webhook.id]);
    expect(
      (await rest<ListWebhooksResponse>('/api/v1/vendor/webhooks')).body.webhooks.map((w) => w.id),
    ).toEqual([hook.webhook.id]);
    await call('update_webhook', { id: hook.webhook.id, active: false });
    await call('delete_webhook', { id: hook.webhook.id });
    await call('remove_listing', { productId: products.table });
    expect((await rest(`/api/v1/my-products/${products.table}`)).status).toBe(404);
  });

  it('refreshes an expired access token by itself, and the token never works on /api/v1', async () => {
    const before = provider.tokens()?.access_token ?? '';
    expect((await rest('/api/v1/vendor/me')).status).toBe(200);
    const onApi = await fetch(`${app.url}/api/v1/vendor/me`, {
      headers: { authorization: `Bearer ${before}` },
    });
    expect(onApi.status).toBe(401);
    await rows(
      app.orm.em.fork(),
      sql`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sha256Hex(before)}`,
    );
    expect((await call('get_store')).store.id).toBe(storeId);
    const after = provider.tokens()?.access_token;
    expect(after).not.toBe(before);
    expect(requests.slice(-3)).toEqual(['POST /mcp', 'POST /oauth/token', 'POST /mcp']);
  });

  it('after revocation, sends the owner back through consent rather than failing for good', async () => {
    const revoked = await fetch(`${app.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: String(provider.clientInformation()?.client_id),
        token: provider.tokens()?.refresh_token ?? '',
      }),
    });
    expect(revoked.status).toBe(200);
    const approvals = provider.authorizationUrls.length;
    await expect(client.callTool({ name: 'get_store', arguments: {} })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    // The refresh was refused, so the SDK started a new authorization; the owner (still signed in) approved.
    expect(provider.authorizationUrls.length).toBe(approvals + 1);
    await (client.transport as StreamableHTTPClientTransport).finishAuth(provider.code ?? '');
    expect((await call('get_store')).store.id).toBe(storeId);
    await client.close();
  });
});
