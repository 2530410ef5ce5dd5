import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ErrorBody,
  GetMyProductResponse,
  GetOrderResponse,
  GetWebhookResponse,
} from '../../client/src/index.ts';
import { buildOpenApiDocument } from '../../server/contract/document.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { procedureInfo } from '../../src/mcp/procedures.ts';
import { TOOLS } from '../../src/mcp/tools.ts';
import { setFeature } from '../../src/platform/set-feature.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import {
  connectWithToken,
  mintMcpToken,
  postMcp,
  type RpcResult,
  TOOL_SCOPES,
  type ToolName,
  type ToolResponses,
  toolAnswer,
} from '../helpers/mcp.ts';
import { internal } from '../helpers/oauth.ts';

/**
 * The tools over the real HTTP endpoint with the SDK's client: each answers what its REST operation
 * answers (it is the same tRPC procedure), fails as it fails (the contract's error body, as a tool
 * error), and counts against the same limits. The client checks every structured answer against the
 * tool's advertised output schema.
 */
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let client: Client;
let token: string;
let listed: number;
let unlisted: number;
let orderId: number;

const CUSTOMER = { email: 'mia@example.com', name: 'Mia Buyer', phone: '+61 400 111 222' };
const SHIPPING = { address: '12 Collins St', city: 'Melbourne', state: 'VIC', zip: '3000', country: 'AU' };
const HOOK = 'https://127.0.0.1:9/hook';

/** Calls a tool and answers its structured content (its REST operation's response), or its error body. */
async function call<N extends ToolName>(name: N, args: Record<string, unknown> = {}, on: Client = client) {
  return toolAnswer<ToolResponses[N]>(await on.callTool({ name, arguments: args }));
}

/** Calls a tool the test expects to fail: the answer is the contract's error body. */
async function refusal(name: ToolName, args: Record<string, unknown> = {}, on: Client = client) {
  return toolAnswer<ErrorBody>(await on.callTool({ name, arguments: args }));
}

/** The REST answer to the same question, with the store's read_write key; `T` is the body expected. */
async function rest<T = unknown>(path: string): Promise<T> {
  const res = await app.get<T>(path, store.readWrite);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

async function firstVariant(productId: number): Promise<number> {
  const [v] = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY position LIMIT 1`,
  );
  return v?.id ?? 0;
}

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('MCP Tools Store');
  const fx = fixtures(app.em());
  const supplierId = await fx.supplier({ name: 'Harbour Supply' });
  const brandId = await fx.brand('Oakline');
  const categoryId = await fx.category({ slug: 'tables', name: 'Tables' });
  const product = (name: string, stock: number[]) =>
    fx.product({ name, supplierId, brandId, categoryId, wholesale: 30000, retail: 59900, stock, images: 2 });
  listed = await product('Oak Table', [4, 6]);
  unlisted = await product('Oak Bench', [9]);
  // Not listed, not ordered: the catalogue has more than the store sells.
  await product('Oak Stool', [3]);
  await fx.listing(store.id, listed);
  const order = await internal(app).orders.checkoutStorefront({
    storeId: store.id,
    customer: CUSTOMER,
    shipping: SHIPPING,
    items: [{ product_id: listed, variant_id: await firstVariant(listed), quantity: 1 }],
  });
  orderId = order.id;
  await setFeature(testContext(app), { feature: 'inventory_read', enabled: true });
  token = (await mintMcpToken(app, store.id, TOOL_SCOPES)).access_token;
  client = await connectWithToken(app.url, token);
});
afterAll(async () => {
  await client?.close();
  await app.close();
});

describe('tools/list', () => {
  it('lists one tool per partner operation, with the procedures’ schemas and honest hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'get_store',
      'search_catalogue',
      'catalogue_facets',
      'get_catalogue_product',
      'list_listings',
      'get_listing',
      'add_listing',
      'remove_listing',
      'set_listing_price',
      'list_orders',
      'get_order',
      'advance_test_order',
      'cancel_test_order',
      'read_inventory',
      'list_requests',
      'list_webhooks',
      'create_webhook',
      'update_webhook',
      'delete_webhook',
      'create_export',
      'get_export',
    ]);
    // Each is a partner operation of the contract, never an internal procedure.
    for (const tool of TOOLS) {
      expect(procedureInfo(tool.procedure).meta.openapi?.path, tool.name).toMatch(/^\/api\/v1\//);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
    }
    const hints = (name: string) => byName.get(name)?.annotations;
    expect(hints('search_catalogue')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(hints('add_listing')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(hints('remove_listing')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('delete_webhook')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints('create_webhook')).toMatchObject({ openWorldHint: true });

    // Not restated: a tool's arguments are its REST operation's parameters, as the contract documents them.
    const doc = buildOpenApiDocument('http://stockless.test');
    // The document writes its parameters inline (no $ref).
    const parameters = (path: string) =>
      doc.paths?.[path]?.get?.parameters as { name: string; schema?: Record<string, unknown> }[];
    const params = (path: string): Record<string, Record<string, unknown>> =>
      Object.fromEntries(parameters(path).map((p) => [p.name, p.schema as Record<string, unknown>]));
    for (const [tool, path] of [
      ['search_catalogue', '/api/v1/products'],
      ['catalogue_facets', '/api/v1/products/facets'],
      ['list_orders', '/api/v1/orders'],
    ] as const) {
      const properties = byName.get(tool)?.inputSchema.properties as Record<string, unknown>;
      const documented = params(path);
      expect(Object.keys(properties).sort(), tool).toEqual(Object.keys(documented).sort());
      for (const [name, schema] of Object.entries(documented)) {
        expect(properties[name], `${tool}.${name}`).toMatchObject(
          Object.fromEntries(
            Object.entries(schema).filter(([k]) =>
              ['type', 'minimum', 'maximum', 'maxLength', 'enum'].includes(k),
            ),
          ),
        );
      }
    }
    const price = byName.get('set_listing_price')?.inputSchema;
    expect(price?.required).toEqual(expect.arrayContaining(['productId', 'custom_retail_price_cents']));
    const create = byName.get('create_webhook')?.inputSchema;
    expect(create?.required).toEqual(['url', 'events']);
    expect(create?.additionalProperties).toBe(false);
  });
});

describe('reads answer what the REST API answers', () => {
  it.each([
    ['get_store', {}, '/api/v1/vendor/me'],
    [
      'search_catalogue',
      { limit: 2, sort_by: 'name', brand: 'Oakline' },
      '/api/v1/products?limit=2&sort_by=name&brand=Oakline',
    ],
    ['catalogue_facets', { category: 'tables' }, '/api/v1/products/facets?category=tables'],
    ['get_catalogue_product', { id: 0 }, '/api/v1/products/{listed}'],
    ['list_listings', { include: 'variants' }, '/api/v1/my-products?include=variants'],
    ['get_listing', { productId: 0 }, '/api/v1/my-products/{listed}'],
    ['list_webhooks', {}, '/api/v1/vendor/webhooks'],
  ] as const)('%s', async (tool, args, path) => {
    const withIds = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v === 0 ? listed : v]));
    const answer = await call(tool, withIds);
    expect(answer.isError, JSON.stringify(answer.body)).toBe(false);
    const expected = await rest(path.replace('{listed}', String(listed)));
    // Timestamps the store profile computes per request aside, the very same answer.
    expect(answer.body).toEqual(expected);
  });

  it('search_catalogue takes the REST query forms too (strings for numbers and booleans)', async () => {
    const answer = await call('search_catalogue', { limit: '1', in_stock: 'true' });
    expect(answer.body.products).toHaveLength(1);
    expect(answer.body.pagination).toMatchObject({ limit: 1 });
  });

  it('list_orders and get_order leave buyer details out without read_customers, as for apps', async () => {
    const list = await call('list_orders', { limit: 5 });
    expect(list.body.orders.map((o) => o.id)).toEqual([orderId]);
    expect(list.body.orders[0]).not.toHaveProperty('customer');
    const one = await call('get_order', { id: orderId });
    expect(one.body.order.id).toBe(orderId);
    expect(one.body.order).not.toHaveProperty('customer');
    expect(one.body.order).not.toHaveProperty('shipping');
    const {
      customer: _c,
      shipping: _s,
      ...restOrder
    } = (await rest<GetOrderResponse>(`/api/v1/orders/${orderId}`)).order;
    expect(one.body.order).toEqual(restOrder);

    const withCustomers = await connectWithToken(
      app.url,
      (await mintMcpToken(app, store.id, [...TOOL_SCOPES, 'read_customers'])).access_token,
    );
    const full = await call('get_order', { id: orderId }, withCustomers);
    expect(full.body.order.customer).toMatchObject({ name: CUSTOMER.name, email: CUSTOMER.email });
    expect(full.body.order.shipping).toMatchObject({ city: SHIPPING.city });
    await withCustomers.close();
    // The grant now holds read_customers for this client only; the first token is unchanged.
    expect((await call('get_order', { id: orderId })).body.order).not.toHaveProperty('customer');
  });

  it('read_inventory pages the stock feed, and is switched off with the platform feature', async () => {
    const page = await call('read_inventory', { limit: 10 });
    expect(page.isError, JSON.stringify(page.body)).toBe(false);
    expect(page.body.items.map((i) => i.product_id)).toContain(listed);
    expect(page.body).toMatchObject({ next_cursor: expect.any(String), has_more: false });
    await setFeature(testContext(app), { feature: 'inventory_read', enabled: false });
    try {
      const off = await call('read_inventory', {});
      expect(off).toMatchObject({ isError: true, body: { error: 'not_found', code: 'FEATURE_DISABLED' } });
    } finally {
      await setFeature(testContext(app), { feature: 'inventory_read', enabled: true });
    }
  });
});

describe('writes', () => {
  it('adds a listing, reprices it, clears the price and removes it, as the REST API shows', async () => {
    const added = await call('add_listing', { product_id: unlisted, custom_retail_price_cents: 64900 });
    expect(added.isError, JSON.stringify(added.body)).toBe(false);
    expect(added.body.vendor_product).toMatchObject({
      product_id: unlisted,
      custom_retail_price_cents: 64900,
    });

    const repriced = await call('set_listing_price', {
      productId: unlisted,
      custom_retail_price_cents: 69900,
    });
    expect(repriced.body.vendor_product).toMatchObject({ custom_retail_price_cents: 69900 });
    expect((await rest<GetMyProductResponse>(`/api/v1/my-products/${unlisted}`)).product).toMatchObject({
      custom_retail_price_cents: 69900,
      effective_retail_price_cents: 69900,
    });

    const cleared = await call('set_listing_price', { productId: unlisted, custom_retail_price_cents: null });
    expect(cleared.body.vendor_product).toMatchObject({ custom_retail_price_cents: null });
    expect(
      (await rest<GetMyProductResponse>(`/api/v1/my-products/${unlisted}`)).product
        .effective_retail_price_cents,
    ).toBe(59900);

    const removed = await call('remove_listing', { productId: unlisted });
    expect(removed.isError).toBe(false);
    expect(removed.body.message).toEqual(expect.any(String));
    expect((await app.get(`/api/v1/my-products/${unlisted}`, store.readWrite)).status).toBe(404);
  });

  it('creates, updates and deletes a webhook subscription (MCP only: apps never may)', async () => {
    const created = await call('create_webhook', { url: HOOK, events: ['order.created', 'product.updated'] });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    expect(created.body.webhook).toMatchObject({
      url: HOOK,
      events: ['order.created', 'product.updated'],
      active: true,
    });
    expect(created.body.webhook.secret).toMatch(/^whsec_/);
    const id = created.body.webhook.id;

    const updated = await call('update_webhook', { id, events: ['*'], active: false });
    expect(updated.body.webhook).toMatchObject({ id, events: ['*'], active: false });
    expect(updated.body.webhook).not.toHaveProperty('secret');
    expect((await rest<GetWebhookResponse>(`/api/v1/vendor/webhooks/${id}`)).webhook).toMatchObject({
      events: ['*'],
      active: false,
    });

    const listedHooks = await call('list_webhooks');
    expect(listedHooks.body.webhooks.map((w) => w.id)).toContain(id);
    expect(listedHooks.body.valid_events).toContain('order.created');

    const deleted = await call('delete_webhook', { id });
    expect(deleted.isError).toBe(false);
    expect((await app.get(`/api/v1/vendor/webhooks/${id}`, store.readWrite)).status).toBe(404);
  });
});

describe('exports', () => {
  it('create_export queues an export as POST /api/v1/exports does, and get_export answers GET /api/v1/exports/{id}', async () => {
    const created = await call('create_export', { type: 'orders', filters: { status: 'pending' } });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    expect(created.body.export).toMatchObject({
      object: 'export',
      type: 'orders',
      status: 'queued',
      url: null,
    });
    const again = await refusal('create_export', { type: 'listings' });
    expect(again.body).toMatchObject({ code: 'EXPORT_ALREADY_RUNNING', export_id: created.body.export.id });
    const got = await call('get_export', { id: created.body.export.id });
    expect(got.isError).toBe(false);
    expect(got.body).toEqual(await rest(`/api/v1/exports/${created.body.export.id}`));
    const bad = await refusal('create_export', { type: 'catalogue', filters: { page: 2 } });
    expect(bad).toMatchObject({ isError: true, body: { code: 'VALIDATION_FAILED' } });
  });
});

describe('failures are tool errors carrying the contract’s error body', () => {
  it('a validation failure names each field, as the REST 400 does', async () => {
    const answer = await refusal('search_catalogue', { limit: 0, sort_by: 'nonsense' });
    expect(answer.isError).toBe(true);
    expect(answer.body).toMatchObject({
      error: 'bad_request',
      code: 'VALIDATION_FAILED',
      request_id: expect.any(String),
    });
    expect(answer.body.details?.map((d) => d.path).sort()).toEqual(['limit', 'sort_by']);
    const restAnswer = await app.get<ErrorBody>('/api/v1/products?limit=0&sort_by=nonsense', store.readWrite);
    expect(restAnswer.status).toBe(400);
    expect(answer.body.details).toEqual(restAnswer.body.details);

    const strict = await call('create_webhook', { url: HOOK, events: ['order.created'], secret: 'mine' });
    expect(strict.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    const insecure = await call('create_webhook', {
      url: 'http://127.0.0.1:9/hook',
      events: ['order.created'],
    });
    expect(insecure.body).toMatchObject({ error: 'bad_request' });
  });

  it('domain refusals keep their codes: not found, already listed, below the minimum price', async () => {
    expect(await call('get_catalogue_product', { id: 2_000_000_000 })).toMatchObject({
      isError: true,
      body: { error: 'not_found' },
    });
    expect(await call('add_listing', { product_id: listed })).toMatchObject({
      isError: true,
      body: { error: 'conflict', code: 'ALREADY_LISTED' },
    });
    expect(
      await call('set_listing_price', { productId: listed, custom_retail_price_cents: 1 }),
    ).toMatchObject({
      isError: true,
      body: { error: 'bad_request', code: 'PRICE_BELOW_MINIMUM' },
    });
    expect(await call('get_order', { id: 2_000_000_000 })).toMatchObject({
      isError: true,
      body: { error: 'not_found' },
    });
  });

  it('an unknown tool is a tool error from the SDK', async () => {
    const result = await client.callTool({ name: 'drop_database', arguments: {} });
    expect(result.isError).toBe(true);
  });
});

describe('limits', () => {
  it('counts tool calls against a per-store limit of each MCP client, as for apps', async () => {
    const limited = await startTestApp({ APP_RATE_LIMIT: '5' });
    try {
      const s = await limited.createStore('Limited');
      const t = await mintMcpToken(limited, s.id, TOOL_SCOPES);
      // The handshake (initialize) and the listing of tools count as requests too: 2 of the 5.
      const c = await connectWithToken(limited.url, t.access_token);
      for (let i = 0; i < 3; i++) expect((await call('get_store', {}, c)).isError).toBe(false);
      const over = await call('search_catalogue', {}, c);
      expect(over).toMatchObject({
        isError: true,
        body: { error: 'rate_limited', code: 'RATE_LIMITED', retry_after: expect.any(Number) },
      });
      await c.close();
      // The same store's other MCP client has an allowance of its own.
      const other = await mintMcpToken(limited, s.id, TOOL_SCOPES);
      const raw = await postMcp<RpcResult<CallToolResult>>(
        limited.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_store', arguments: {} } },
        { authorization: `Bearer ${other.access_token}` },
      );
      expect(toolAnswer(raw.body.result).isError).toBe(false);
    } finally {
      await limited.close();
    }
  });
});
