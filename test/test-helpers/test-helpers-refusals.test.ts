import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateWholesaleOrderResponse, ErrorBody, GetOrderResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { mintAppToken } from '../helpers/oauth.ts';

/**
 * What the test helpers refuse, and that a refusal leaves the order as it was: live credentials
 * (keys and OAuth tokens) with TEST_MODE_ONLY, read keys, another mode's or store's order, moves the
 * state machine forbids, invalid input; and Idempotency-Key on them.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
const keys = { test: '', testRead: '', otherTest: '', app: '', appNoOrders: '' };
let productId: number;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Refusing Store');
  other = await app.createStore('Other Store');
  const em = app.em();
  const test = (storeId: number, scope: 'read' | 'read_write') =>
    createApiKey({ em }, { storeId, scope, mode: 'test' }).then((k) => k.key);
  keys.test = await test(store.id, 'read_write');
  keys.testRead = await test(store.id, 'read');
  keys.otherTest = await test(other.id, 'read_write');
  keys.app = (await mintAppToken(app, store.id, ['read_orders', 'write_orders'])).access_token;
  keys.appNoOrders = (await mintAppToken(app, store.id, ['read_products'])).access_token;
  const supplierId = await fixtures(app.em()).supplier({ name: 'Refusal Supply' });
  productId = await fixtures(app.em()).product({ supplierId, stock: [100] });
});
afterAll(() => app?.close());

const CUSTOMER = { email: 'tess@example.com', name: 'Tess Tester', phone: '+61 400 000 001' };
const SHIPPING = { address: '1 Test St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };

async function placeOrder(key: string): Promise<number> {
  const placed = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
    key,
    body: { customer: CUSTOMER, shipping: SHIPPING, items: [{ product_id: productId, quantity: 1 }] },
  });
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  return placed.body.order.id;
}

const path = (id: number | string, op = 'advance') => `/api/v1/test_helpers/orders/${id}/${op}`;
const post = <T = ErrorBody>(p: string, key?: string, body?: unknown, headers?: Record<string, string>) =>
  send<T>(app, 'POST', p, { key, body, headers });

/** What a move would change, read from the database: the order, its history and its events. */
async function footprint(id: number) {
  const [order] = await rows<{
    status: string;
    tracking_number: string | null;
    invoice_number: string | null;
  }>(app.em(), sql`SELECT status, tracking_number, invoice_number FROM orders WHERE id = ${id}`);
  const [counts] = await rows<{ history: number; events: number }>(
    app.em(),
    sql`SELECT (SELECT count(*)::int FROM order_status_history WHERE order_id = ${id}) AS history,
        (SELECT count(*)::int FROM domain_events WHERE entity_id = ${id}) AS events`,
  );
  return { order, counts };
}

describe('the security table', () => {
  it.each([
    ['no credential', undefined, 401, 'INVALID_CREDENTIAL'],
    ['a live read_write key', 'live', 403, 'TEST_MODE_ONLY'],
    ['a live read key', 'liveRead', 403, 'INSUFFICIENT_SCOPE'],
    ['a test read key', 'testRead', 403, 'INSUFFICIENT_SCOPE'],
    ['an app token with write_orders (apps act in live mode)', 'app', 403, 'TEST_MODE_ONLY'],
    ['an app token without order scopes', 'appNoOrders', 403, 'TEST_MODE_ONLY'],
    ['a test read_write key', 'test', 200, undefined],
  ] as const)('%s', async (_, which, status, code) => {
    const key =
      which === undefined
        ? undefined
        : which === 'live'
          ? store.readWrite
          : which === 'liveRead'
            ? store.read
            : keys[which];
    for (const op of ['advance', 'cancel']) {
      const id = await placeOrder(keys.test);
      const before = await footprint(id);
      const res = await post(path(id, op), key, op === 'advance' ? { to: 'delivered' } : undefined);
      expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBe(status);
      if (code) {
        expect(res.body).toMatchObject({ code, request_id: res.headers.get('x-request-id') });
        expect(await footprint(id)).toEqual(before);
      }
      if (code === 'TEST_MODE_ONLY')
        expect(res.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('sl_test_') });
      if (code === 'INSUFFICIENT_SCOPE') expect(res.body).toMatchObject({ required_scope: 'read_write' });
      if (status === 401) expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    }
  });

  it('a live key is refused on its own live order too, which stays as it was', async () => {
    const live = await placeOrder(store.readWrite);
    const before = await footprint(live);
    const res = await post(path(live), store.readWrite, { to: 'delivered' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'TEST_MODE_ONLY' });
    expect(await footprint(live)).toEqual(before);
  });

  it('a test key never finds a live order, another store’s test order, or an id that is none', async () => {
    const live = await placeOrder(store.readWrite);
    const others = await placeOrder(keys.otherTest);
    for (const [id, op] of [
      [live, 'advance'],
      [live, 'cancel'],
      [others, 'advance'],
      [2_000_000_000, 'advance'],
    ] as const) {
      const before = typeof id === 'number' && id < 2_000_000_000 ? await footprint(id) : undefined;
      const res = await post(path(id, op), keys.test, op === 'advance' ? {} : undefined);
      expect(res.status, `${id} ${op}`).toBe(404);
      expect(res.body).toMatchObject({
        error: 'not_found',
        code: 'ORDER_NOT_FOUND',
        message: `No order with id ${id}`,
      });
      if (before) expect(await footprint(id)).toEqual(before);
    }
  });
});

describe('moves the state machine forbids: 409 INVALID_TRANSITION, nothing moved', () => {
  it('backwards, to where it is, or past delivered', async () => {
    const id = await placeOrder(keys.test);
    expect((await post(path(id), keys.test, { to: 'shipped' })).status).toBe(200);
    const before = await footprint(id);
    for (const to of ['processing', 'fulfilled', 'shipped']) {
      const res = await post(path(id), keys.test, { to });
      expect(res.status, to).toBe(409);
      expect(res.body).toMatchObject({
        error: 'conflict',
        code: 'INVALID_TRANSITION',
        status: 'shipped',
        message: `Order ${await orderNumber(id)} is shipped; it can move to delivered, not ${to}`,
      });
    }
    expect(await footprint(id)).toEqual(before);

    expect((await post(path(id), keys.test)).status).toBe(200);
    const delivered = await footprint(id);
    const res = await post(path(id), keys.test);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'INVALID_TRANSITION', status: 'delivered' });
    expect(res.body.message).toMatch(/is delivered; it can move to nothing$/);
    expect((await post(path(id), keys.test, { to: 'delivered' })).status).toBe(409);
    expect(await footprint(id)).toEqual(delivered);
  });

  it('two advances to delivered at once: one moves the order, the other is refused; each event once', async () => {
    const id = await placeOrder(keys.test);
    const both = await Promise.all([
      post(path(id), keys.test, { to: 'delivered' }),
      post(path(id), keys.test, { to: 'delivered' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const events = await rows<{ event: string }>(
      app.em(),
      sql`SELECT event FROM domain_events WHERE entity_id = ${id} ORDER BY id`,
    );
    expect(events.map((e) => e.event)).toEqual([
      'order.created',
      'order.updated',
      'order.fulfilled',
      'order.shipped',
      'invoice.issued',
      'order.completed',
    ]);
  });
});

async function orderNumber(id: number): Promise<string> {
  const got = await send<GetOrderResponse>(app, 'GET', `/api/v1/orders/${id}`, { key: keys.testRead });
  return got.body.order.order_number;
}

describe('validation: 400, nothing moved', () => {
  it.each([
    ['an unknown to', { to: 'teleported' }, 'to'],
    ['to: cancelled (its own operation)', { to: 'cancelled' }, 'to'],
    ['to: pending', { to: 'pending' }, 'to'],
    ['an unknown field', { to: 'shipped', carrier: 'AusPost' }, 'carrier'],
    ['an empty tracking number', { to: 'shipped', tracking_number: '  ' }, 'tracking_number'],
    ['a tracking number too long', { to: 'shipped', tracking_number: 'T'.repeat(101) }, 'tracking_number'],
    [
      'a tracking number on a move that does not ship',
      { to: 'fulfilled', tracking_number: 'T-1' },
      'tracking_number',
    ],
    ['a wrong type', { to: 3 }, 'to'],
  ])('%s', async (_, body, field) => {
    const id = await placeOrder(keys.test);
    const before = await footprint(id);
    const res = await post(path(id), keys.test, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    expect(res.body.details?.map((d) => d.path)).toContain(field);
    expect(await footprint(id)).toEqual(before);
  });

  it.each(['abc', '0', '-1', '1.5', '2147483648', '1e3'])('a bad id: %s', async (id) => {
    for (const op of ['advance', 'cancel']) {
      const res = await post(path(id, op), keys.test, op === 'advance' ? {} : undefined);
      expect(res.status, `${op} ${id}`).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(res.body.details?.map((d) => d.path)).toContain('id');
    }
  });

  it('a body that is not JSON', async () => {
    const id = await placeOrder(keys.test);
    const res = await post(path(id), keys.test, '{"to":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_JSON' });
    expect((await footprint(id)).order?.status).toBe('pending');
  });

  it('a live key with a bad body hears about the key first', async () => {
    const res = await post(path('abc'), store.readWrite, { to: 'teleported' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'TEST_MODE_ONLY' });
  });
});

describe('Idempotency-Key', () => {
  it('a retry with the key replays the answer and moves nothing more; another body with it is refused', async () => {
    const id = await placeOrder(keys.test);
    const headers = { 'Idempotency-Key': `advance-${id}` };
    const first = await post<GetOrderResponse>(path(id), keys.test, {}, headers);
    expect(first.status).toBe(200);
    expect(first.body.order.status).toBe('processing');
    const again = await post<GetOrderResponse>(path(id), keys.test, {}, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await footprint(id)).order?.status).toBe('processing');
    const reused = await post(path(id), keys.test, { to: 'delivered' }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await footprint(id)).order?.status).toBe('processing');
  });

  it('a refusal by the state machine is kept under its key; a live key’s refusal is not', async () => {
    const id = await placeOrder(keys.test);
    await post(path(id, 'cancel'), keys.test);
    const headers = { 'Idempotency-Key': `refused-${id}` };
    const refused = await post(path(id), keys.test, {}, headers);
    expect(refused.status).toBe(409);
    const replayed = await post(path(id), keys.test, {}, headers);
    expect(replayed.status).toBe(409);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const liveHeaders = { 'Idempotency-Key': `live-${id}` };
    const live = await post(path(id), store.readWrite, {}, liveHeaders);
    expect(live.status).toBe(403);
    const liveAgain = await post(path(id), store.readWrite, {}, liveHeaders);
    expect(liveAgain.headers.get('idempotent-replayed')).toBeNull();
  });
});
