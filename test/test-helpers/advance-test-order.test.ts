import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AdvanceTestOrderResponse,
  CreateWholesaleOrderResponse,
  ErrorBody,
  GetOrderResponse,
} from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { internal } from '../helpers/oauth.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

/**
 * POST /api/v1/test_helpers/orders/{id}/advance and /cancel with a test key, over HTTP: a test order
 * placed through the API moves as fulfilment would move it, each move with its events (in the event
 * log and at a test webhook subscription) carrying the order as that move left it, and the test
 * invoice issued when it ships.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let testKey: string;
let testReadKey: string;
let supplierId: number;
let receiver: Receiver;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Test Helpers Store');
  const em = app.em();
  testKey = (await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'test' })).key;
  testReadKey = (await createApiKey({ em }, { storeId: store.id, scope: 'read', mode: 'test' })).key;
  supplierId = await fixtures(app.em()).supplier({ name: 'Helper Supply' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await app?.close();
});

const CUSTOMER = { email: 'tess@example.com', name: 'Tess Tester', phone: '+61 400 000 001' };
const SHIPPING = { address: '1 Test St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };

/** A wholesale order placed with the test key, as a partner would place one. */
async function testOrder(key = testKey): Promise<number> {
  const productId = await fixtures(app.em()).product({ supplierId, stock: [10] });
  const placed = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
    key,
    body: { customer: CUSTOMER, shipping: SHIPPING, items: [{ product_id: productId, quantity: 1 }] },
  });
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  return placed.body.order.id;
}

const advance = (id: number, body?: unknown, key = testKey, headers?: Record<string, string>) =>
  send<AdvanceTestOrderResponse>(app, 'POST', `/api/v1/test_helpers/orders/${id}/advance`, {
    key,
    body,
    headers,
  });

/** The order as GET /api/v1/orders/{id} answers it to the test key. */
async function orderOf(id: number) {
  const got = await send<GetOrderResponse>(app, 'GET', `/api/v1/orders/${id}`, { key: testReadKey });
  expect(got.status).toBe(200);
  return got.body;
}

interface LoggedEvent {
  id: string;
  event: string;
  event_key: string;
  livemode: boolean;
  data: { order: { id: number; status: string; invoice_number: string | null } };
}

/** The order's events in the event log, oldest first, as the test key reads them. */
async function eventsOf(orderId: number): Promise<LoggedEvent[]> {
  const log = await send<{ events: LoggedEvent[] }>(
    app,
    'GET',
    '/api/v1/events?order=asc&limit=100&type=order.*,invoice.issued',
    { key: testReadKey },
  );
  expect(log.status).toBe(200);
  return log.body.events.filter((e) => e.event_key.endsWith(`:${orderId}`));
}

const EVENTS = [
  'order.created',
  'order.updated',
  'order.fulfilled',
  'order.shipped',
  'order.completed',
  'order.cancelled',
  'invoice.issued',
];

/** Each event of a walk to delivered, with the status its order shows. */
const TO_DELIVERED = [
  ['order.created', 'pending'],
  ['order.updated', 'processing'],
  ['order.fulfilled', 'fulfilled'],
  ['order.shipped', 'shipped'],
  ['invoice.issued', 'shipped'],
  ['order.completed', 'delivered'],
];

describe('advancing a test order', () => {
  it('one move at a time: each answer is the order as GET shows it, each move with its own events', async () => {
    const id = await testOrder();
    const seen: string[] = [];
    for (const [n, status] of ['processing', 'fulfilled', 'shipped', 'delivered'].entries()) {
      // No body and an empty body are both "one move".
      const moved = await advance(id, n % 2 === 0 ? undefined : {});
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.order.status).toBe(status);
      expect(moved.body).toEqual(await orderOf(id));
      seen.push(moved.body.order.status);
    }
    expect(seen).toEqual(['processing', 'fulfilled', 'shipped', 'delivered']);
    const done = await orderOf(id);
    expect(done.order.tracking_number).toMatch(/^TEST-TRK-[A-Z2-7]{8}$/);
    expect(done.order.invoice_number).toMatch(/^TEST-INV-\d{6}-\d{6}$/);
    expect(done.order.livemode).toBe(false);
    const events = await eventsOf(id);
    expect(events.map((e) => [e.event, e.data.order.status])).toEqual(TO_DELIVERED);
    expect(events.every((e) => e.livemode === false)).toBe(true);
  });

  it('straight to delivered: every move in between, in order, with the test invoice and its PDF', async () => {
    const id = await testOrder();
    const moved = await advance(id, { to: 'delivered', tracking_number: 'MY-TRACK-42' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.order).toMatchObject({ status: 'delivered', tracking_number: 'MY-TRACK-42' });
    expect(moved.body).toEqual(await orderOf(id));
    const invoice = moved.body.order.invoice_number ?? '';
    expect(invoice).toMatch(/^TEST-INV-\d{6}-\d{6}$/);
    const events = await eventsOf(id);
    expect(events.map((e) => [e.event, e.data.order.status])).toEqual(TO_DELIVERED);
    expect(events.find((e) => e.event === 'invoice.issued')?.data.order.invoice_number).toBe(invoice);
    const history = await rows<{ from_status: string; to_status: string }>(
      app.em(),
      sql`SELECT from_status, to_status FROM order_status_history WHERE order_id = ${id} ORDER BY id`,
    );
    expect(history.map((h) => `${h.from_status}>${h.to_status}`)).toEqual([
      'null>pending',
      'pending>processing',
      'processing>fulfilled',
      'fulfilled>shipped',
      'shipped>delivered',
    ]);

    const pdf = await app.request(`/api/v1/orders/${id}/invoice`, { key: testReadKey });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const { text } = await extractText(new Uint8Array(await pdf.arrayBuffer()), { mergePages: true });
    expect(text).toContain('Test invoice: not a tax invoice');
    expect(text).toContain(invoice);
  });

  it('part of the way: to shipped from processing, then one more move to delivered', async () => {
    const id = await testOrder();
    expect((await advance(id)).body.order.status).toBe('processing');
    const shipped = await advance(id, { to: 'shipped' });
    expect(shipped.body.order).toMatchObject({ status: 'shipped' });
    expect(shipped.body.order.tracking_number).toMatch(/^TEST-TRK-/);
    const delivered = await advance(id);
    expect(delivered.body.order).toMatchObject({
      status: 'delivered',
      tracking_number: shipped.body.order.tracking_number,
      invoice_number: shipped.body.order.invoice_number,
    });
    expect((await eventsOf(id)).map((e) => [e.event, e.data.order.status])).toEqual(TO_DELIVERED);
  });

  it('a storefront test order (a buyer’s test checkout) advances the same way, invoiced when it ships', async () => {
    const productId = await fixtures(app.em()).product({ supplierId, stock: [5] });
    await fixtures(app.em()).listing(store.id, productId);
    const [variant] = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM product_variants WHERE product_id = ${productId}`,
    );
    const checkout = await internal(app).orders.checkoutStorefront({
      storeId: store.id,
      livemode: false,
      customer: { ...CUSTOMER, email: 'buyer@example.com' },
      shipping: { ...SHIPPING, address2: '', country: 'AU' },
      items: [{ product_id: productId, variant_id: variant?.id, quantity: 1 }],
    });
    const moved = await advance(checkout.id, { to: 'delivered' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.order).toMatchObject({
      order_type: 'storefront',
      status: 'delivered',
      livemode: false,
    });
    expect(moved.body.order.invoice_number).toMatch(/^TEST-INV-/);
    expect((await eventsOf(checkout.id)).map((e) => [e.event, e.data.order.status])).toEqual(TO_DELIVERED);
    expect((await app.request(`/api/v1/orders/${checkout.id}/invoice`, { key: testReadKey })).status).toBe(
      200,
    );
  });

  it('takes no stock, mails nobody', async () => {
    const productId = await fixtures(app.em()).product({ supplierId, stock: [3] });
    const placed = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
      key: testKey,
      body: { customer: CUSTOMER, shipping: SHIPPING, items: [{ product_id: productId, quantity: 2 }] },
    });
    const [mailBefore] = await rows<{ n: number }>(app.em(), sql`SELECT count(*)::int AS n FROM mail_outbox`);
    expect((await advance(placed.body.order.id, { to: 'delivered' })).status).toBe(200);
    const [mailAfter] = await rows<{ n: number }>(app.em(), sql`SELECT count(*)::int AS n FROM mail_outbox`);
    expect(mailAfter?.n).toBe(mailBefore?.n);
    const [variant] = await rows<{ stock_quantity: number }>(
      app.em(),
      sql`SELECT stock_quantity FROM product_variants WHERE product_id = ${productId}`,
    );
    expect(variant?.stock_quantity).toBe(3);
  });
});

describe('cancelling a test order', () => {
  it('cancels a pending or fulfilled one (order.cancelled, reason merchant), and refuses a shipped one', async () => {
    const pending = await testOrder();
    const cancelled = await send<GetOrderResponse>(
      app,
      'POST',
      `/api/v1/test_helpers/orders/${pending}/cancel`,
      { key: testKey },
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.order).toMatchObject({ status: 'cancelled', cancel_reason: 'merchant' });
    expect(cancelled.body).toEqual(await orderOf(pending));
    expect((await eventsOf(pending)).map((e) => [e.event, e.data.order.status])).toEqual([
      ['order.created', 'pending'],
      ['order.cancelled', 'cancelled'],
    ]);
    const again = await send<ErrorBody>(app, 'POST', `/api/v1/test_helpers/orders/${pending}/cancel`, {
      key: testKey,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'INVALID_TRANSITION', status: 'cancelled' });
    expect((await advance(pending)).body).toMatchObject({ code: 'INVALID_TRANSITION', status: 'cancelled' });

    const fulfilled = await testOrder();
    await advance(fulfilled, { to: 'fulfilled' });
    const ok = await send(app, 'POST', `/api/v1/test_helpers/orders/${fulfilled}/cancel`, { key: testKey });
    expect(ok.status).toBe(200);

    const shipped = await testOrder();
    await advance(shipped, { to: 'shipped' });
    const refused = await send<ErrorBody>(app, 'POST', `/api/v1/test_helpers/orders/${shipped}/cancel`, {
      key: testKey,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: 'conflict',
      code: 'INVALID_TRANSITION',
      status: 'shipped',
      message: expect.stringContaining('it can move to delivered, not cancelled'),
    });
    expect((await orderOf(shipped)).order.status).toBe('shipped');
  });
});

describe('webhooks', () => {
  it('a test subscription receives every event of the advance over HTTPS, in order; a live one none', async () => {
    worker ??= await startWorkerProcess(app.databaseUrl, receiver.caFile);
    const subscribe = async (key: string, path: string) => {
      const made = await send<{ webhook: { id: number; livemode: boolean } }>(
        app,
        'POST',
        '/api/v1/vendor/webhooks',
        { key, body: { url: `${receiver.url}${path}`, events: EVENTS } },
      );
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.webhook;
    };
    expect((await subscribe(testKey, '/test')).livemode).toBe(false);
    expect((await subscribe(store.readWrite, '/live')).livemode).toBe(true);
    const id = await testOrder();
    const before = receiver.received.length;
    expect((await advance(id, { to: 'delivered' })).status).toBe(200);
    const got = (await receiver.waitFor(before + TO_DELIVERED.length, 30_000)).slice(before);
    // Deliveries may arrive out of order: the event id (`evt_<n>`, the log's order) puts them back.
    const bodies = got
      .map((r) => ({ path: r.headers[':path'], body: JSON.parse(r.body) as LoggedEvent }))
      .sort((a, b) => Number(a.body.id.slice(4)) - Number(b.body.id.slice(4)));
    expect(bodies.map((b) => [b.body.event, b.body.data.order.status])).toEqual(TO_DELIVERED);
    expect(bodies.every((b) => b.body.livemode === false && b.body.data.order.id === id)).toBe(true);
    // The same events as the log holds. The log is in commit order: the order's order.created may be
    // written there by the background dispatcher before or after the advance's own transaction.
    const byNumber = (a: string, b: string) => Number(a.slice(4)) - Number(b.slice(4));
    expect(bodies.map((b) => b.body.id)).toEqual((await eventsOf(id)).map((e) => e.id).sort(byNumber));
    // Nothing more arrives (the live subscription gets no test event).
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received.length).toBe(before + TO_DELIVERED.length);
  });
});
