import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreateWholesaleOrderResponse, type ErrorBody, Stockless } from '../../client/src/index.ts';
import { parseIdempotencyKey } from '../../server/idempotency.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { pruneKeys } from '../../src/idempotency/keys.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { type Sent, send } from '../helpers/http.ts';

/**
 * Idempotency-Key on the REST API's writes: a retry answers what the first request answered, once
 * per store and key, under any concurrency; a refused request keeps nothing.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Idempotent Buyer');
  other = await app.createStore('Other Buyer');
  supplierId = await fixtures(app.em()).supplier({ name: 'Maker' });
});
afterAll(() => app.close());

const ORDERS = '/api/v1/orders';
const CUSTOMER = { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' };
const SHIPPING = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };

const orderBody = (productId: number, quantity = 1) => ({
  customer: CUSTOMER,
  shipping: SHIPPING,
  items: [{ product_id: productId, quantity }],
});

let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;

function post<T = CreateWholesaleOrderResponse>(
  body: unknown,
  idempotencyKey: string | undefined,
  o: { key?: string; path?: string; method?: string } = {},
): Promise<Sent<T>> {
  const headers: Record<string, string> =
    idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey };
  return send<T>(app, o.method ?? 'POST', o.path ?? ORDERS, { key: o.key ?? store.readWrite, body, headers });
}

async function ordersOf(storeId: number): Promise<number> {
  const [row] = await rows<{ n: number }>(
    app.em(),
    sql`SELECT count(*)::integer AS n FROM orders WHERE store_id = ${storeId}`,
  );
  return row?.n ?? 0;
}

async function keyRow(storeId: number, key: string) {
  const [row] = await rows<{ status: number | null; request_id: string }>(
    app.em(),
    sql`SELECT status, request_id FROM idempotency_keys WHERE store_id = ${storeId} AND key = ${key}`,
  );
  return row;
}

const product = (stock = 50) => fixtures(app.em()).product({ supplierId, stock: [stock] });

describe('a retry with the same key', () => {
  it('answers the first response again, marked replayed, and places one order', async () => {
    const productId = await product();
    const key = newKey();
    const before = await ordersOf(store.id);
    const first = await post(orderBody(productId), key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(orderBody(productId), key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request')).toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await ordersOf(store.id)).toBe(before + 1);
  });

  it('matches however the body is serialised (key order, spacing)', async () => {
    const productId = await product();
    const key = newKey();
    const first = await post(orderBody(productId), key);
    expect(first.status).toBe(201);
    const reordered = `{ "items": [{"quantity": 1, "product_id": ${productId}}], "shipping": ${JSON.stringify(SHIPPING)}, "customer": ${JSON.stringify(CUSTOMER)} }`;
    const again = await post(reordered, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('accepts the IETF draft form, a quoted Structured Field string, as the same key', async () => {
    const productId = await product();
    const key = newKey();
    expect((await post(orderBody(productId), key)).status).toBe(201);
    const quoted = await post(orderBody(productId), `"${key}"`);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays an outcome of the operation that was an error (not enough stock)', async () => {
    const productId = await product(1);
    const key = newKey();
    const first = await post<ErrorBody>(orderBody(productId, 5), key);
    expect(first.status).toBe(400);
    expect(first.body.code).toBe('INSUFFICIENT_STOCK');
    await rows(
      app.em(),
      sql`UPDATE product_variants SET stock_quantity = 100 WHERE product_id = ${productId}`,
    );
    const again = await post<ErrorBody>(orderBody(productId, 5), key);
    expect(again.status).toBe(400);
    // The same answer; its request_id is this request's (see the test of replayed errors below).
    expect({ ...again.body, request_id: first.body.request_id }).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays a DELETE (a second delete would otherwise be a 404)', async () => {
    const productId = await product();
    const path = '/api/v1/my-products';
    expect((await post({ product_id: productId }, undefined, { path })).status).toBe(201);
    const key = newKey();
    const first = await post(undefined, key, { method: 'DELETE', path: `${path}/${productId}` });
    expect(first.status).toBe(200);
    const again = await post(undefined, key, { method: 'DELETE', path: `${path}/${productId}` });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const plain = await post(undefined, undefined, { method: 'DELETE', path: `${path}/${productId}` });
    expect(plain.status).toBe(404);
  });
});

describe('the SDK', () => {
  it('retries a write whose answer was lost with the same key: one order, the first answer', async () => {
    const productId = await product();
    let lost = 0;
    const losesFirstAnswer: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST' && lost++ === 0) {
        await res.body?.cancel();
        throw new TypeError('fetch failed: the connection was reset');
      }
      return res;
    };
    const sdk = new Stockless({ baseUrl: app.url, apiKey: store.readWrite, fetch: losesFirstAnswer });
    const before = await ordersOf(store.id);
    const placed = await sdk.orders.create(orderBody(productId));
    expect(lost).toBe(2);
    expect(await ordersOf(store.id)).toBe(before + 1);
    const [row] = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM orders WHERE store_id = ${store.id} ORDER BY id DESC LIMIT 1`,
    );
    expect(placed.order.id).toBe(row?.id);
  });
});

describe('the same key on another request', () => {
  it('is 422 IDEMPOTENCY_KEY_REUSED for a different body, and runs nothing', async () => {
    const productId = await product();
    const key = newKey();
    expect((await post(orderBody(productId), key)).status).toBe(201);
    const before = await ordersOf(store.id);
    const reused = await post<ErrorBody>(orderBody(productId, 2), key);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: 'unprocessable_content', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(reused.body.request_id).toBe(reused.headers.get('x-request-id'));
    expect(await ordersOf(store.id)).toBe(before);
  });

  it('is 422 for a different path or method', async () => {
    const productId = await product();
    const key = newKey();
    expect((await post(orderBody(productId), key)).status).toBe(201);
    const path = '/api/v1/my-products';
    const elsewhere = await post<ErrorBody>({ product_id: productId }, key, { path });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('replays to its own credential only: another key of the store never reads the kept answer', async () => {
    const path = '/api/v1/vendor/webhooks';
    const key = newKey();
    const body = { url: 'https://127.0.0.1:9/hook', events: ['order.created'] };
    const made = await post<{ secret?: string; webhook: { id: number } }>(body, key, { path });
    expect(made.status).toBe(201);
    const rotate = `${path}/${made.body.webhook.id}/rotate-secret`;
    const rotateKey = newKey();
    const rotated = await post<{ secret: string }>(undefined, rotateKey, { path: rotate });
    expect(rotated.status).toBe(200);
    // The read key sends the same request under the same key: refused as any write of it is, no replay.
    const probe = await post<ErrorBody>(undefined, rotateKey, { path: rotate, key: store.read });
    expect(probe.status).toBe(403);
    expect(probe.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(probe.text).not.toContain(rotated.body.secret);
    // Another read_write key of the store: the key is another request's, 422, no replay.
    const second = await createApiKey(
      { em: app.em() },
      { storeId: store.id, scope: 'read_write', mode: 'live' },
    );
    const sibling = await post<ErrorBody>(undefined, rotateKey, { path: rotate, key: second.key });
    expect(sibling.status).toBe(422);
    expect(sibling.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(sibling.text).not.toContain(rotated.body.secret);
  });

  it('keeps no answer of a platform switch that refused the operation before it ran', async () => {
    const body = {
      marketplace: 'etsy',
      external_order_id: `EXT-${Date.now()}`,
      placed_at: '2026-11-20T09:30:00+11:00',
      currency: 'AUD',
      customer: CUSTOMER,
      shipping: { ...SHIPPING, address2: '' },
      items: [{ sku: 'UNMAPPED', quantity: 1, price_cents: 100 }],
      total_cents: 100,
    };
    const path = '/api/v1/orders/external';
    const key = newKey();
    await rows(app.em(), sql`UPDATE platform_features SET enabled = false WHERE name = 'external_orders'`);
    try {
      const off = await post<ErrorBody>(body, key, { path });
      expect(off.status).toBe(404);
      expect(off.body.code).toBe('FEATURE_DISABLED');
    } finally {
      await rows(app.em(), sql`UPDATE platform_features SET enabled = true WHERE name = 'external_orders'`);
    }
    const on = await post<{ result: string }>(body, key, { path });
    expect(on.status).toBe(202);
    expect(on.headers.get('idempotent-replayed')).toBeNull();
  });

  it('belongs to one store: another store may use the same key', async () => {
    const productId = await product();
    const key = newKey();
    expect((await post(orderBody(productId), key)).status).toBe(201);
    const theirs = await post(orderBody(productId, 2), key, { key: other.readWrite });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('under concurrency', () => {
  it('20 identical concurrent POST /orders with one key place exactly one order', async () => {
    const productId = await product(100);
    const key = newKey();
    const before = await ordersOf(store.id);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(orderBody(productId), key)));
    expect(await ordersOf(store.id)).toBe(before + 1);
    const created = answers.filter((a) => a.status === 201);
    const inUse = answers.filter((a) => a.status === 409);
    expect(created.length + inUse.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of inUse) {
      expect(a.body).toMatchObject({ error: 'conflict', code: 'IDEMPOTENCY_KEY_IN_USE' });
      expect(a.headers.get('retry-after')).toBe('1');
    }
    // Once the first has answered, every retry is its replay.
    const later = await post(orderBody(productId), key);
    expect(later.text).toBe(created[0]?.text);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request is still running, then runs once it is gone', async () => {
    const productId = await product();
    const key = newKey();
    const before = await ordersOf(store.id);
    // A request that is running holds the key's advisory lock in its transaction: hold it here.
    await app.em().transactional(async (tx) => {
      await rows(
        tx,
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${`idempotency:${store.id}:live:${key}`}, 0))`,
      );
      const busy = await post<ErrorBody>(orderBody(productId), key);
      expect(busy.status).toBe(409);
      expect(busy.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(await ordersOf(store.id)).toBe(before);
    });
    // That transaction ended without an answer (as a crashed request's does): nothing holds the key.
    const retried = await post(orderBody(productId), key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await ordersOf(store.id)).toBe(before + 1);
  });
});

describe('what is kept', () => {
  it('the answer sealed: no webhook signing secret in clear in the database, and the replay still has it', async () => {
    const path = '/api/v1/vendor/webhooks';
    const key = newKey();
    const body = { url: 'https://127.0.0.1:9/sealed', events: ['order.created'] };
    const made = await post<{ webhook: { id: number; secret: string } }>(body, key, { path });
    expect(made.status).toBe(201);
    expect(made.body.webhook.secret).toMatch(/^whsec_/);
    const rotateKey = newKey();
    const rotate = `${path}/${made.body.webhook.id}/rotate-secret`;
    const rotated = await post<{ secret: string }>(undefined, rotateKey, { path: rotate });
    expect(rotated.status).toBe(200);
    const kept = await rows<{ row: string }>(
      app.em(),
      sql`SELECT k::text AS row FROM idempotency_keys k WHERE store_id = ${store.id} AND key IN (${key}, ${rotateKey})`,
    );
    expect(kept).toHaveLength(2);
    for (const { row } of kept) {
      expect(row).not.toContain('whsec_');
      expect(row).not.toContain(made.body.webhook.secret.slice(6));
      expect(row).not.toContain(rotated.body.secret.slice(6));
    }
    const again = await post<{ secret: string }>(undefined, rotateKey, { path: rotate });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(rotated.text);
  });

  it('a replayed error carries this request’s id in its body and X-Request-Id, the first in Original-Request', async () => {
    const productId = await product(1);
    const key = newKey();
    const first = await post<ErrorBody>(orderBody(productId, 5), key);
    expect(first.status).toBe(400);
    const again = await post<ErrorBody>(orderBody(productId, 5), key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const id = again.headers.get('x-request-id');
    expect(id).not.toBe(first.headers.get('x-request-id'));
    expect(again.body.request_id).toBe(id);
    expect(again.headers.get('original-request')).toBe(first.headers.get('x-request-id'));
    expect({ ...again.body, request_id: undefined }).toEqual({ ...first.body, request_id: undefined });
  });

  it('a refusal of an operation that ran keeps none of its writes', async () => {
    // Two lines: the first has stock, the second not; the order is refused whole, and the first
    // line's stock is untouched.
    const plenty = await product(10);
    const scarce = await product(1);
    const key = newKey();
    const before = await ordersOf(store.id);
    const body = {
      ...orderBody(plenty),
      items: [
        { product_id: plenty, quantity: 2 },
        { product_id: scarce, quantity: 5 },
      ],
    };
    const refused = await post<ErrorBody>(body, key);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INSUFFICIENT_STOCK');
    expect(await ordersOf(store.id)).toBe(before);
    const [stock] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT sum(stock_quantity)::integer AS n FROM product_variants WHERE product_id = ${plenty}`,
    );
    expect(stock?.n).toBe(10);
    expect((await keyRow(store.id, key))?.status).toBe(400);
  });
});

describe('what is not kept', () => {
  it('a validation failure: the corrected request with the same key runs', async () => {
    const productId = await product();
    const key = newKey();
    const bad = await post<ErrorBody>(
      { ...orderBody(productId), items: [{ product_id: 'x', quantity: 1 }] },
      key,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(await keyRow(store.id, key)).toBeUndefined();
    const good = await post(orderBody(productId), key);
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a refused credential: no key, a read key, a malformed body', async () => {
    const productId = await product();
    const key = newKey();
    const none = await send<ErrorBody>(app, 'POST', ORDERS, {
      body: orderBody(productId),
      headers: { 'Idempotency-Key': key },
    });
    expect(none.status).toBe(401);
    const read = await post<ErrorBody>(orderBody(productId), key, { key: store.read });
    expect(read.status).toBe(403);
    const malformed = await post<ErrorBody>('{"items": [', key);
    expect(malformed.status).toBe(400);
    expect(await keyRow(store.id, key)).toBeUndefined();
    expect((await post(orderBody(productId), key)).status).toBe(201);
  });

  it('a key past its 24 hours: the key is free again', async () => {
    const productId = await product();
    const key = newKey();
    expect((await post(orderBody(productId), key)).status).toBe(201);
    await rows(
      app.em(),
      sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE store_id = ${store.id} AND key = ${key}`,
    );
    const fresh = await post(orderBody(productId, 2), key);
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('GET ignores the header', async () => {
    const res = await send(app, 'GET', ORDERS, { key: store.read, headers: { 'Idempotency-Key': newKey() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('prunes keys past their lifetime', async () => {
    const productId = await product();
    const key = newKey();
    expect((await post(orderBody(productId), key)).status).toBe(201);
    await rows(
      app.em(),
      sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE store_id = ${store.id} AND key = ${key}`,
    );
    expect(await pruneKeys(app.em(), 1)).toBeGreaterThanOrEqual(1);
    expect(await keyRow(store.id, key)).toBeUndefined();
  });
});

describe('the key itself', () => {
  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
    ['a control character', 'a\tb'],
    ['a broken quoted string', '"a"b"'],
  ])('is refused when %s: 400 IDEMPOTENCY_KEY_INVALID naming the header', async (_, value) => {
    const productId = await product();
    const before = await ordersOf(store.id);
    const res = await post<ErrorBody>(orderBody(productId), value);
    // fetch refuses to send some header values at all; those never reach us.
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
    expect(res.body.details?.[0]?.path).toBe('Idempotency-Key');
    expect(await ordersOf(store.id)).toBe(before);
  });

  it('parses bare tokens and Structured Field strings', () => {
    expect(parseIdempotencyKey('abc123')).toBe('abc123');
    expect(parseIdempotencyKey(' abc123 ')).toBe('abc123');
    expect(parseIdempotencyKey('"abc123"')).toBe('abc123');
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toBe('a"b\\c');
    expect(parseIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
    expect(parseIdempotencyKey('"a\\nb"')).toBeNull();
    expect(parseIdempotencyKey('')).toBeNull();
  });
});
