import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateWholesaleOrderResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { syncStockTotal } from '../../src/inventory/stock-total.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { isStatus, type Sent } from '../helpers/http.ts';
import { mintAppToken } from '../helpers/oauth.ts';
import {
  type ApiProcess,
  asTestApp,
  createTestDatabase,
  type RawAnswer,
  sendFrom,
  startApiProcess,
  type TestDatabase,
  type TestStore,
} from '../helpers/processes.ts';

/**
 * The platform as it scales out: two `server/main.ts serve` processes, each its own Node process
 * and pool, on one PostgreSQL. Limits (GCRA rows in PostgreSQL, src/ratelimit/limiter.ts) must be
 * exact across them, and stock must not oversell whichever process takes the order.
 */

const LIMITS = {
  INVENTORY_RATE_LIMIT: '10',
  APP_RATE_LIMIT: '10',
  OAUTH_TOKEN_RATE_LIMIT: '6',
  OAUTH_REGISTER_RATE_LIMIT: '4',
  DB_POOL_SIZE: '5',
};

let db: TestDatabase & { first: TestStore };
let a: ApiProcess;
let b: ApiProcess;
/** Request i goes to process a when i is even, b when odd. */
const via = (i: number) => (i % 2 === 0 ? a : b);

beforeAll(async () => {
  db = await createTestDatabase();
  [a, b] = await Promise.all([
    startApiProcess(db.databaseUrl, LIMITS),
    startApiProcess(db.databaseUrl, LIMITS),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.close();
});

/** A request to one process; `T` is the body the test expects (its JSON is parsed, not checked). */
async function send<T = unknown>(
  proc: ApiProcess,
  path: string,
  o: { key?: string; method?: string; body?: unknown } = {},
): Promise<Sent<T>> {
  const headers: Record<string, string> = {};
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${proc.url}${path}`, {
    method: o.method ?? 'GET',
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  const body: T = text ? JSON.parse(text) : undefined;
  return { status: res.status, body, headers: res.headers };
}

const FEED = '/api/v1/inventory';

it('runs as two separate server processes on one database', async () => {
  expect(a.child.pid).toBeDefined();
  expect(b.child.pid).toBeDefined();
  expect(a.child.pid).not.toBe(b.child.pid);
  expect(a.port).not.toBe(b.port);
  const [ha, hb] = await Promise.all([send(a, '/health'), send(b, '/health')]);
  expect(ha.status).toBe(200);
  expect(hb.status).toBe(200);
  // Both pools are connected to the one database: its sessions come from three processes (the
  // test's own pool and the two servers') — at least one backend per server process.
  const [n] = await rows<{ clients: number }>(
    db.em(),
    sql`SELECT count(DISTINCT client_port)::integer AS clients FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend'`,
  );
  expect(n?.clients).toBeGreaterThanOrEqual(3);
});

describe('the inventory read limit (per store, INVENTORY_RATE_LIMIT=10)', () => {
  it('is one allowance whichever process answers: requests alternating between them count down one sequence', async () => {
    const store = db.first;
    const order = [a, a, a, a, b, b, b, a, a, b];
    const answers: Sent[] = [];
    for (const proc of order) answers.push(await send(proc, FEED, { key: store.read }));
    expect(answers.map((x) => x.status)).toEqual(Array(10).fill(200));
    expect(answers.map((x) => x.headers.get('x-ratelimit-limit'))).toEqual(Array(10).fill('10'));
    const countdown = ['9', '8', '7', '6', '5', '4', '3', '2', '1', '0'];
    expect(answers.map((x) => x.headers.get('x-ratelimit-remaining'))).toEqual(countdown);

    for (const proc of [b, a]) {
      const refused = await send(proc, FEED, { key: store.read });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
      // 10 a minute is one every 6 s: the next request in 6 s, the whole allowance back in 60 s
      // (less the time these requests took, on a busy machine perhaps more than a second).
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(4);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(6);
      expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(58);
      expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
    }
    // The store's other key shares the store's allowance, on either process.
    expect((await send(a, FEED, { key: store.readWrite })).status).toBe(429);
    expect((await send(b, FEED, { key: store.readWrite })).status).toBe(429);
  });

  it('lets exactly 10 of 30 concurrent requests through, split over both processes', async () => {
    const store = await db.createStore('Burst');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(via(i), FEED, { key: store.read })),
    );
    const ok = answers.filter((x) => x.status === 200);
    const refused = answers.filter((x) => x.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const x of answers) expect(x.headers.get('x-ratelimit-limit')).toBe('10');
    for (const x of ok) {
      const remaining = Number(x.headers.get('x-ratelimit-remaining'));
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThan(10);
    }
    for (const x of refused) {
      expect(x.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
      expect(x.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(x.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(x.headers.get('x-ratelimit-reset')).toMatch(/^[1-9]\d*$/);
    }
    // Both processes refused; after the burst neither has anything left for this store.
    // (Each got 15: at least 5 refused by each.)
    expect(answers.filter((x, i) => x.status === 429 && via(i) === a).length).toBeGreaterThanOrEqual(5);
    expect(answers.filter((x, i) => x.status === 429 && via(i) === b).length).toBeGreaterThanOrEqual(5);
    expect((await send(a, FEED, { key: store.read })).status).toBe(429);
    expect((await send(b, FEED, { key: store.read })).status).toBe(429);

    // Another store's allowance is untouched.
    const neighbour = await db.createStore('Neighbour');
    const theirs = await send(b, FEED, { key: neighbour.read });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('x-ratelimit-remaining')).toBe('9');
  });
});

describe('the app request limit (per store and app, APP_RATE_LIMIT=10)', () => {
  it('lets exactly 10 of 24 concurrent calls of one app token through, split over both processes', async () => {
    const store = await db.createStore('App Store');
    // A genuine token from the real OAuth flow, run against process a; used on both.
    const token = await mintAppToken(asTestApp(db, a), store.id, ['read_products']);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => send(via(i), '/api/v1/vendor/me', { key: token.access_token })),
    );
    const ok = answers.filter((x) => x.status === 200);
    const refused = answers.filter((x) => x.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(14);
    for (const x of ok) {
      expect(x.body).toMatchObject({ store: { id: store.id } });
      expect(x.headers.get('x-ratelimit-limit')).toBe('10');
    }
    for (const x of refused) {
      expect(x.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
      expect(x.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(x.headers.get('x-ratelimit-limit')).toBe('10');
      expect(x.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(x.headers.get('x-ratelimit-reset')).toMatch(/^[1-9]\d*$/);
    }
    // The same store's API key is not an app: it has no app limit.
    expect((await send(a, '/api/v1/vendor/me', { key: store.read })).status).toBe(200);
  });
});

describe('the OAuth limits (per client address)', () => {
  const statusesWithHeaders = (answers: RawAnswer[], limit: string) => {
    for (const x of answers.filter((y) => y.status === 429)) {
      expect(JSON.parse(x.text)).toMatchObject({ error: 'temporarily_unavailable' });
      expect(x.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(x.headers['x-ratelimit-limit']).toBe(limit);
      expect(x.headers['x-ratelimit-remaining']).toBe('0');
    }
    return answers.map((x) => x.status);
  };

  it('token endpoint (OAUTH_TOKEN_RATE_LIMIT=6): exactly 6 of 16 concurrent calls from one address are heard', async () => {
    // From 127.0.0.2, an address of this test alone (the OAuth flow above used 127.0.0.1).
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        sendFrom('127.0.0.2', `${via(i).url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=password&username=x&password=y',
        }),
      ),
    );
    const statuses = statusesWithHeaders(answers, '6');
    expect(statuses.filter((s) => s === 400)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (const x of answers.filter((y) => y.status === 400))
      expect(JSON.parse(x.text)).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('client registration (OAUTH_REGISTER_RATE_LIMIT=4 an hour): exactly 4 of 12 concurrent calls are heard', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        // Not JSON: an allowed call is answered 415 and registers nothing.
        sendFrom('127.0.0.3', `${via(i).url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'client_name=x',
        }),
      ),
    );
    const statuses = statusesWithHeaders(answers, '4');
    expect(statuses.filter((s) => s === 415)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8);
    // 4 an hour is one every 15 minutes.
    for (const x of answers.filter((y) => y.status === 429))
      expect(Number(x.headers['retry-after'])).toBeGreaterThan(800);
  });
});

describe('wholesale orders across both processes', () => {
  it('20 buyers ordering the last 5 units, split over both processes, buy exactly 5', async () => {
    const fx = fixtures(db.em());
    const supplierId = await fx.supplier({ name: 'Contended Maker' });
    const productId = await fx.product({ supplierId, stock: [5] });
    const [variant] = await rows<{ id: number }>(
      db.em(),
      sql`SELECT id FROM product_variants WHERE product_id = ${productId}`,
    );
    const buyers = await Promise.all(Array.from({ length: 20 }, (_, i) => db.createStore(`Buyer ${i}`)));
    const order = (store: TestStore, i: number) =>
      send(via(i), '/api/v1/orders', {
        method: 'POST',
        key: store.readWrite,
        body: {
          customer: { email: `buyer${i}@example.com`, name: `Buyer ${i}`, phone: '+61 400 000 000' },
          items: [{ product_id: productId, quantity: 1 }],
          shipping: {
            address: '1 George St',
            address2: '',
            city: 'Sydney',
            state: 'NSW',
            zip: '2000',
            country: 'au',
          },
        },
      });
    const results = await Promise.all(buyers.map((store, i) => order(store, i)));

    const sold = results.filter((r) => isStatus<CreateWholesaleOrderResponse>(r, 201));
    const refused = results.filter((r) => r.status !== 201);
    expect(sold).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    }
    // The product's total as the stock fan-out job leaves it (a worker runs it after the orders).
    await syncStockTotal(db.em(), productId);
    const [stock] = await rows<{ product: number; variant: number }>(
      db.em(),
      sql`SELECT p.stock_quantity AS product, v.stock_quantity AS variant
        FROM products p JOIN product_variants v ON v.product_id = p.id WHERE p.id = ${productId}`,
    );
    expect(stock).toEqual({ product: 0, variant: 0 });
    const [lines] = await rows<{ orders: number; units: number; stores: number }>(
      db.em(),
      sql`SELECT count(DISTINCT l.order_id)::integer AS orders, COALESCE(sum(l.quantity), 0)::integer AS units,
          count(DISTINCT o.store_id)::integer AS stores
        FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE l.variant_id = ${variant?.id}`,
    );
    expect(lines).toEqual({ orders: 5, units: 5, stores: 5 });
    // Order numbers come from one sequence whichever process took the order.
    expect(new Set(sold.map((r) => r.body.order.order_number)).size).toBe(5);
  });
});
