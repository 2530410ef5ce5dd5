import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CreateWholesaleOrderResponse,
  ErrorBody,
  GetOrderResponse,
  GetStoreResponse,
  ListOrdersResponse,
  PostExternalOrderResponse,
} from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { advanceOrder } from '../../src/orders/advance-order.ts';
import { createCaller } from '../../src/router.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';

/**
 * Test mode is a sandbox: an `sl_test_` key's orders, invoices and marketplace posts are its own,
 * numbered apart, never fulfilled, mailed or taken from stock, and no live key ever sees them (nor
 * the test key live ones).
 */

const OPERATOR_TOKEN = 'op_test_mode_token_0123456789abcdef0123';
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let testKey: string;
let testReadKey: string;
let supplierId: number;

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN });
  store = await app.createStore('Sandboxed');
  const em = app.em();
  testKey = (await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'test' })).key;
  testReadKey = (await createApiKey({ em }, { storeId: store.id, scope: 'read', mode: 'test' })).key;
  supplierId = await fixtures(app.em()).supplier({ name: 'Sandbox Maker' });
});
afterAll(() => app.close());

const CUSTOMER = { email: 'tess@example.com', name: 'Tess Tester', phone: '+61 400 000 001' };
const SHIPPING = { address: '1 Test St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };
const orderBody = (productId: number, quantity = 1) => ({
  customer: CUSTOMER,
  shipping: SHIPPING,
  items: [{ product_id: productId, quantity }],
});

const product = (stock = 10) => fixtures(app.em()).product({ supplierId, stock: [stock] });

async function stockOf(productId: number): Promise<number> {
  const [v] = await rows<{ stock_quantity: number }>(
    app.em(),
    sql`SELECT stock_quantity FROM product_variants WHERE product_id = ${productId}`,
  );
  return v?.stock_quantity ?? -1;
}

const place = (key: string, productId: number, quantity = 1) =>
  send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
    key,
    body: orderBody(productId, quantity),
  });

const ship = (orderId: number) =>
  advanceOrder({ em: app.em() }, { orderId, status: 'processing' })
    .then(() => advanceOrder({ em: app.em() }, { orderId, status: 'fulfilled' }))
    .then(() => advanceOrder({ em: app.em() }, { orderId, status: 'shipped', tracking: 'TRK-TEST-1' }));

describe('orders placed with a test key', () => {
  it('are test orders: TEST-SL numbering, livemode false, no stock taken', async () => {
    const productId = await product(3);
    const placed = await place(testKey, productId, 2);
    expect(placed.status).toBe(201);
    expect(placed.body.order).toMatchObject({ livemode: false });
    expect(placed.body.order.order_number).toMatch(/^TEST-SL-\d+$/);
    expect(await stockOf(productId)).toBe(3);
    const live = await place(store.readWrite, productId, 2);
    expect(live.body.order).toMatchObject({ livemode: true });
    expect(live.body.order.order_number).toMatch(/^SL-\d+$/);
    expect(await stockOf(productId)).toBe(1);
  });

  it('are refused for want of stock as live orders are', async () => {
    const productId = await product(1);
    const refused = await send<ErrorBody>(app, 'POST', '/api/v1/orders', {
      key: testKey,
      body: orderBody(productId, 2),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INSUFFICIENT_STOCK');
  });

  it('are seen by test keys only, and test keys see no live order', async () => {
    const productId = await product();
    const testOrder = (await place(testKey, productId)).body.order;
    const liveOrder = (await place(store.readWrite, productId)).body.order;

    const testList = await send<ListOrdersResponse>(app, 'GET', '/api/v1/orders?limit=500', {
      key: testReadKey,
    });
    const liveList = await send<ListOrdersResponse>(app, 'GET', '/api/v1/orders?limit=500', {
      key: store.read,
    });
    expect(testList.body.orders.map((o) => o.id)).toContain(testOrder.id);
    expect(testList.body.orders.every((o) => o.livemode === false)).toBe(true);
    expect(liveList.body.orders.map((o) => o.id)).toContain(liveOrder.id);
    expect(liveList.body.orders.map((o) => o.id)).not.toContain(testOrder.id);
    expect(testList.body.orders.map((o) => o.id)).not.toContain(liveOrder.id);

    expect((await send(app, 'GET', `/api/v1/orders/${testOrder.id}`, { key: store.read })).status).toBe(404);
    expect((await send(app, 'GET', `/api/v1/orders/${liveOrder.id}`, { key: testReadKey })).status).toBe(404);
    const read = await send<GetOrderResponse>(app, 'GET', `/api/v1/orders/${testOrder.id}`, {
      key: testReadKey,
    });
    expect(read.body.order).toMatchObject({ id: testOrder.id, livemode: false });
  });

  it('count in the test key’s store statistics only', async () => {
    const before = await send<GetStoreResponse>(app, 'GET', '/api/v1/vendor/me', { key: store.read });
    const testBefore = await send<GetStoreResponse>(app, 'GET', '/api/v1/vendor/me', { key: testReadKey });
    await place(testKey, await product());
    const after = await send<GetStoreResponse>(app, 'GET', '/api/v1/vendor/me', { key: store.read });
    const testAfter = await send<GetStoreResponse>(app, 'GET', '/api/v1/vendor/me', { key: testReadKey });
    expect(after.body.store.stats.orders_total).toBe(before.body.store.stats.orders_total);
    expect(testAfter.body.store.stats.orders_total).toBe(testBefore.body.store.stats.orders_total + 1);
  });
});

describe('a test order’s life', () => {
  it('ships with a TEST-INV invoice from its own counter, mails nobody, and live numbering is untouched', async () => {
    const productId = await product();
    const testOrder = (await place(testKey, productId)).body.order;
    const liveOrder = (await place(store.readWrite, productId)).body.order;
    const mailBefore = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM mail_outbox`,
    );
    const shippedTest = await ship(testOrder.id);
    expect(shippedTest.invoice_number).toMatch(/^TEST-INV-\d{6}-\d{6}$/);
    const mailAfter = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM mail_outbox`,
    );
    expect(mailAfter[0]?.n).toBe(mailBefore[0]?.n);

    const [counter] = await rows<{ last_value: number }>(
      app.em(),
      sql`SELECT COALESCE(max(last_value), 0)::integer AS last_value FROM invoice_counters WHERE livemode`,
    );
    const shippedLive = await ship(liveOrder.id);
    expect(shippedLive.invoice_number).toMatch(/^INV-\d{6}-\d{6}$/);
    expect(Number(shippedLive.invoice_number?.slice(-6))).toBe((counter?.last_value ?? 0) + 1);

    const pdf = await app.request(`/api/v1/orders/${testOrder.id}/invoice`, { key: testReadKey });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const { text } = await extractText(new Uint8Array(await pdf.arrayBuffer()), { mergePages: true });
    expect(text).toContain('Test invoice: not a tax invoice');
    expect(text).toContain(shippedTest.invoice_number);
    expect((await app.request(`/api/v1/orders/${testOrder.id}/invoice`, { key: store.read })).status).toBe(
      404,
    );
  });

  it('gives no stock back when cancelled (it took none)', async () => {
    const productId = await product(5);
    const testOrder = (await place(testKey, productId, 2)).body.order;
    await advanceOrder({ em: app.em() }, { orderId: testOrder.id, status: 'cancelled' });
    expect(await stockOf(productId)).toBe(5);
  });

  it('writes its events as test events', async () => {
    const productId = await product();
    const testOrder = (await place(testKey, productId)).body.order;
    await ship(testOrder.id);
    const events = await rows<{ event: string; livemode: boolean }>(
      app.em(),
      sql`SELECT event, livemode FROM domain_events
        WHERE entity_id = ${testOrder.id} AND (event LIKE 'order.%' OR event = 'invoice.issued') ORDER BY id`,
    );
    expect(events.map((e) => e.event)).toEqual([
      'order.created',
      'order.updated',
      'order.fulfilled',
      'order.shipped',
      'invoice.issued',
    ]);
    expect(events.every((e) => e.livemode === false)).toBe(true);
  });
});

describe('marketplace orders posted with a test key', () => {
  it('are test orders with no purchase order, and the live post of the same external id is its own order', async () => {
    const internal = createCaller(
      testContext(app, { authorization: `Bearer ${OPERATOR_TOKEN}`, operatorToken: OPERATOR_TOKEN }),
    ).internal;
    const sku = `OWN-${Date.now()}`;
    await internal.listings.createOwnGoods({
      storeId: store.id,
      sku,
      name: 'Handmade sandbox bowl',
      priceCents: 4500,
      costCents: 1200,
      stock: 10,
    });
    const body = {
      marketplace: 'etsy',
      external_order_id: `EXT-${Date.now()}`,
      placed_at: '2026-11-20T09:30:00+11:00',
      currency: 'AUD',
      customer: CUSTOMER,
      shipping: { ...SHIPPING, address2: '' },
      items: [{ sku, quantity: 1, price_cents: 4500 }],
      total_cents: 4500,
    };
    const path = '/api/v1/orders/external';
    const testPost = await send<PostExternalOrderResponse>(app, 'POST', path, { key: testKey, body });
    expect(testPost.status).toBe(201);
    expect(testPost.body.order).toMatchObject({ livemode: false });
    const livePost = await send<PostExternalOrderResponse>(app, 'POST', path, { key: store.readWrite, body });
    expect(livePost.status).toBe(201);
    expect(livePost.body.result).toBe('created');
    expect(livePost.body.order?.id).not.toBe(testPost.body.order?.id);
    const purchaseOrders = await rows<{ order_id: number }>(
      app.em(),
      sql`SELECT order_id FROM purchase_orders WHERE order_id IN (${testPost.body.order?.id ?? 0}, ${livePost.body.order?.id ?? 0})`,
    );
    expect(purchaseOrders.map((p) => p.order_id)).toEqual([livePost.body.order?.id]);
    const again = await send<PostExternalOrderResponse>(app, 'POST', path, { key: testKey, body });
    expect(again.body).toMatchObject({ result: 'existing', order: { id: testPost.body.order?.id } });
  });
});

describe('idempotency keys', () => {
  it('are kept per mode: the same key in test and live mode are two requests', async () => {
    const productId = await product();
    const headers = { 'Idempotency-Key': `both-modes-${Date.now()}` };
    const body = orderBody(productId);
    const testOrder = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
      key: testKey,
      body,
      headers,
    });
    const liveOrder = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
      key: store.readWrite,
      body,
      headers,
    });
    expect(liveOrder.headers.get('idempotent-replayed')).toBeNull();
    expect(liveOrder.body.order.livemode).toBe(true);
    expect(testOrder.body.order.livemode).toBe(false);
  });
});

describe('webhook subscriptions', () => {
  it('belong to the mode of the key that made them, and receive that mode’s events only', async () => {
    const body = { url: 'https://127.0.0.1:9/hook', events: ['order.created'] };
    const made = await send<{ webhook: { id: number; livemode: boolean } }>(
      app,
      'POST',
      '/api/v1/vendor/webhooks',
      {
        key: testKey,
        body,
      },
    );
    expect(made.status).toBe(201);
    expect(made.body.webhook.livemode).toBe(false);
    const hookId = made.body.webhook.id;
    const liveList = await send<{ webhooks: { id: number }[] }>(app, 'GET', '/api/v1/vendor/webhooks', {
      key: store.read,
    });
    expect(liveList.body.webhooks.map((w) => w.id)).not.toContain(hookId);
    expect((await send(app, 'GET', `/api/v1/vendor/webhooks/${hookId}`, { key: store.read })).status).toBe(
      404,
    );
    expect(
      (await send(app, 'DELETE', `/api/v1/vendor/webhooks/${hookId}`, { key: store.readWrite })).status,
    ).toBe(404);

    const productId = await product();
    const testOrder = (await place(testKey, productId)).body.order;
    const liveOrder = (await place(store.readWrite, productId)).body.order;
    await dispatchPendingEvents(app.em(), webhookFanOut(60_000));
    const delivered = await rows<{ event_key: string; livemode: boolean }>(
      app.em(),
      sql`SELECT e.event_key, e.livemode FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.subscription_id = ${hookId} ORDER BY d.id`,
    );
    expect(delivered.map((d) => d.event_key)).toContain(`order.created:${testOrder.id}`);
    expect(delivered.map((d) => d.event_key)).not.toContain(`order.created:${liveOrder.id}`);
    expect(delivered.every((d) => d.livemode === false)).toBe(true);

    // The event log answers each key its own mode's events.
    const testEvents = await send<{ events: { event_key: string; livemode: boolean }[] }>(
      app,
      'GET',
      '/api/v1/events?type=order.created&limit=100',
      { key: testReadKey },
    );
    expect(testEvents.body.events.map((e) => e.event_key)).toContain(`order.created:${testOrder.id}`);
    expect(testEvents.body.events.every((e) => e.livemode === false)).toBe(true);
    const liveEvents = await send<{ events: { event_key: string }[] }>(
      app,
      'GET',
      '/api/v1/events?type=order.created&limit=100',
      { key: store.read },
    );
    expect(liveEvents.body.events.map((e) => e.event_key)).not.toContain(`order.created:${testOrder.id}`);
    expect(liveEvents.body.events.map((e) => e.event_key)).toContain(`order.created:${liveOrder.id}`);
  });
});
