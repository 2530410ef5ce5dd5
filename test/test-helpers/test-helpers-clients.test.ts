import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CreateWholesaleOrderResponse,
  type ErrorBody,
  Stockless,
  StocklessError,
} from '../../client/src/index.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { connectWithToken, mintMcpToken, TOOL_SCOPES, toolAnswer } from '../helpers/mcp.ts';

/**
 * The test helpers from the SDK (`testHelpers.orders`) and the vendor MCP endpoint. MCP tokens act in
 * live mode, so the tools exist and answer the REST refusal, TEST_MODE_ONLY, as a tool error.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let testKey: string;
let productId: number;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Helper Clients Store');
  testKey = (await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read_write', mode: 'test' }))
    .key;
  const supplierId = await fixtures(app.em()).supplier({ name: 'Client Supply' });
  productId = await fixtures(app.em()).product({ supplierId, stock: [50] });
});
afterAll(() => app?.close());

async function placeOrder(key: string): Promise<number> {
  const placed = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
    key,
    body: {
      customer: { email: 'tess@example.com', name: 'Tess Tester', phone: '+61 400 000 001' },
      shipping: { address: '1 Test St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
      items: [{ product_id: productId, quantity: 1 }],
    },
  });
  expect(placed.status).toBe(201);
  return placed.body.order.id;
}

describe('the SDK', () => {
  it('advances a test order one move and then to delivered, and cancels another', async () => {
    const stockless = new Stockless({ baseUrl: app.url, apiKey: testKey });
    const id = await placeOrder(testKey);
    const one = await stockless.testHelpers.orders.advance(id);
    expect(one.order.status).toBe('processing');
    const { order } = await stockless.testHelpers.orders.advance(id, {
      to: 'delivered',
      tracking_number: 'SDK-TRACK-1',
    });
    expect(order).toMatchObject({ id, status: 'delivered', tracking_number: 'SDK-TRACK-1', livemode: false });
    expect(await stockless.orders.get(id)).toEqual({ order });
    const pdf = await stockless.orders.invoice(id);
    expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe('%PDF-');

    const other = await placeOrder(testKey);
    const cancelled = await stockless.testHelpers.orders.cancel(other);
    expect(cancelled.order).toMatchObject({ status: 'cancelled', cancel_reason: 'merchant' });
  });

  it('throws StocklessError TEST_MODE_ONLY with a live key, INVALID_TRANSITION past delivered', async () => {
    const id = await placeOrder(testKey);
    const live = new Stockless({ baseUrl: app.url, apiKey: store.readWrite, retry: false });
    const refused = await live.testHelpers.orders.advance(id, { to: 'shipped' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StocklessError);
    expect(refused).toMatchObject({ status: 403, category: 'forbidden', code: 'TEST_MODE_ONLY' });

    const test = new Stockless({ baseUrl: app.url, apiKey: testKey, retry: false });
    await test.testHelpers.orders.advance(id, { to: 'delivered' });
    const past = await test.testHelpers.orders.advance(id).catch((e: unknown) => e);
    expect(past).toMatchObject({ status: 409, code: 'INVALID_TRANSITION' });
  });
});

describe('the MCP tools', () => {
  let client: Client | undefined;
  afterAll(() => client?.close());

  it('are listed with honest hints, and refuse an MCP connection (live mode) with TEST_MODE_ONLY', async () => {
    const token = (await mintMcpToken(app, store.id, TOOL_SCOPES)).access_token;
    client = await connectWithToken(app.url, token);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['advance_test_order', 'cancel_test_order']) {
      const tool = byName.get(name);
      expect(tool?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(tool?.description, name).toContain('TEST_MODE_ONLY');
    }
    expect(byName.get('advance_test_order')?.inputSchema.properties).toHaveProperty('to');

    const id = await placeOrder(testKey);
    for (const [name, args] of [
      ['advance_test_order', { id, to: 'delivered' }],
      ['cancel_test_order', { id }],
    ] as const) {
      const answer = toolAnswer<ErrorBody>(await client.callTool({ name, arguments: args }));
      expect(answer.isError, name).toBe(true);
      expect(answer.body).toMatchObject({ error: 'forbidden', code: 'TEST_MODE_ONLY' });
    }
    const still = await send<{ order: { status: string } }>(app, 'GET', `/api/v1/orders/${id}`, {
      key: testKey,
    });
    expect(still.body.order.status).toBe('pending');
  });
});
