import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InventoryItem, ListInventoryResponse, WebhookEvent } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { syncStockTotal } from '../../src/inventory/stock-total.ts';
import { TEST_SECRET_KEY } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { withDatabase } from '../helpers/global-setup.ts';
import type { Sent } from '../helpers/http.ts';
import { type PgBouncer, startPgBouncer } from '../helpers/pgbouncer.ts';
import {
  type ApiProcess,
  createTestDatabase,
  startApiProcess,
  type TestDatabase,
  type TestStore,
} from '../helpers/processes.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

/**
 * The platform behind a real PgBouncer in transaction mode (docs/scaling.md, section 3): two API
 * processes and a worker, all with DATABASE_URL = PgBouncer and DATABASE_DIRECT_URL = the server.
 * PgBouncer has 4 server connections for the test's database, for some 30 clients. The properties the
 * direct suite proves (multi-process-limits, platform-processes) must hold through it unchanged.
 */

const HOST = 'hooks-pooled.test';
const POOL = 4;
const API_ENTRY = 'stockless_api';
const LIMITS = { INVENTORY_RATE_LIMIT: '10', DB_POOL_SIZE: '10' };
let db: TestDatabase & { first: TestStore };
let bouncer: PgBouncer;
let apis: ApiProcess[] = [];
let worker: WorkerProcess | undefined;
let receiver: Receiver;
/** Request i goes to the first API process when i is even, the second when odd. */
const via = (i: number) => apis[i % 2] as ApiProcess;
const named = (url: string, name: string) => `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;

beforeAll(async () => {
  db = await createTestDatabase();
  const database = new URL(db.databaseUrl).pathname.slice(1);
  // The API's own entry, as docs/scaling.md tells an operator to make one: its server connections
  // carry the statement budget (startApiProcess's API_STATEMENT_TIMEOUT is 30s).
  const connectQuery = 'SET statement_timeout = 30000; SET max_parallel_workers_per_gather = 0';
  bouncer = await startPgBouncer(db.databaseUrl, {
    poolSize: POOL,
    entries: { [API_ENTRY]: { database, connectQuery } },
  });
  receiver = await startReceiver({ hostnames: [HOST] });
  const pooled = bouncer.pooled(db.databaseUrl);
  const env = { WEBHOOK_TEST_HOSTS: `${HOST}=127.0.0.1`, WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8', ...LIMITS };
  const api = () =>
    startApiProcess(pooled, { ...env, DATABASE_DIRECT_URL: named(db.databaseUrl, 'direct-api') });
  // One after the other: each waits for the other's migration lock, and on a loaded machine two at
  // once could outlast startApiProcess's 30 s.
  apis = [await api(), await api()];
  worker = await startWorkerProcess(pooled, receiver.caFile, {
    ...env,
    DATABASE_DIRECT_URL: named(db.databaseUrl, 'direct-worker'),
    PGAPPNAME: 'pooled-worker',
  });
}, 150_000);
afterAll(async () => {
  await Promise.all([...apis.map((a) => a.stop()), worker?.stop()]);
  await receiver?.close();
  await bouncer?.stop();
  await db?.close();
});

async function send<T = unknown>(
  proc: ApiProcess,
  path: string,
  o: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Sent<T> & { text: string }> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${proc.url}${path}`, {
    method: o.body === undefined ? 'GET' : 'POST',
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, text };
}

const SHIPPING = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };
const orderBody = (productId: number, i: number) => ({
  customer: { email: `b${i}@example.com`, name: `Buyer ${i}`, phone: '+61 400 000 000' },
  items: [{ product_id: productId, quantity: 1 }],
  shipping: SHIPPING,
});
const product = async (stock: number) =>
  fixtures(db.em()).product({
    supplierId: await fixtures(db.em()).supplier({ name: 'Pooled Maker' }),
    stock: [stock],
  });

/** PgBouncer's counters for the test's database (SHOW STATS: one row per database). */
async function statsOfDb(): Promise<{ xacts: number; queries: number }> {
  const name = new URL(db.databaseUrl).pathname.slice(1);
  const row = (await bouncer.show('STATS')).find((r) => r.database === name);
  return { xacts: Number(row?.total_xact_count ?? 0), queries: Number(row?.total_query_count ?? 0) };
}

describe('the platform behind PgBouncer (transaction mode, 4 server connections)', () => {
  it('sends the processes’ statements through PgBouncer, on at most 4 server connections for more clients', async () => {
    const name = new URL(db.databaseUrl).pathname.slice(1);
    const before = await statsOfDb();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(via(i), '/api/v1/products?limit=5', { key: db.first.read })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const after = await statsOfDb();
    expect(after.xacts - before.xacts).toBeGreaterThanOrEqual(40);

    const clients = (await bouncer.show('CLIENTS')).filter((c) => c.database === name);
    const servers = (await bouncer.show('SERVERS')).filter((s) => s.database === name);
    expect(clients.length).toBeGreaterThan(POOL);
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.length).toBeLessThanOrEqual(POOL);
    // Every backend of the database is one of PgBouncer's, Graphile Worker's direct sessions, or the
    // test's own pool: no process connected to the server over DATABASE_URL, and the migrations'
    // direct connection was closed once they were done.
    const pids = new Set(servers.map((s) => Number(s.remote_pid)));
    const backends = await rows<{ pid: number; application_name: string }>(
      db.em(),
      sql`SELECT pid, application_name FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    const direct = backends.filter((b) => !pids.has(b.pid)).map((b) => b.application_name);
    expect(direct.filter((n) => n !== 'direct-worker' && n !== '')).toEqual([]);
    expect(direct).toContain('direct-worker');
    expect(backends.filter((b) => pids.has(b.pid))).toHaveLength(servers.length);
  });

  it('keeps Graphile Worker’s LISTEN on its direct connection', async () => {
    const listeners = await rows<{ application_name: string }>(
      db.em(),
      sql`SELECT application_name FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    );
    expect(listeners.map((l) => l.application_name)).toEqual(['direct-worker']);
  });
});

describe('limits through PgBouncer', () => {
  it('lets exactly 10 of 30 concurrent inventory reads through, split over both processes', async () => {
    const store = await db.createStore('Pooled Burst');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(via(i), '/api/v1/inventory', { key: store.read })),
    );
    expect(answers.filter((x) => x.status === 200)).toHaveLength(10);
    const refused = answers.filter((x) => x.status === 429);
    expect(refused).toHaveLength(20);
    for (const x of refused) expect(x.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
    expect((await send(via(0), '/api/v1/inventory', { key: store.read })).status).toBe(429);
    expect((await send(via(1), '/api/v1/inventory', { key: store.read })).status).toBe(429);
  });

  it('20 buyers ordering the last 5 units, split over both processes, buy exactly 5', async () => {
    const productId = await product(5);
    const buyers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => db.createStore(`Pooled Buyer ${i}`)),
    );
    const results = await Promise.all(
      buyers.map((s, i) =>
        send(via(i), '/api/v1/orders', { key: s.readWrite, body: orderBody(productId, i) }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(r.body).toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    await syncStockTotal(db.em(), productId);
    const [stock] = await rows<{ product: number; units: number }>(
      db.em(),
      sql`SELECT p.stock_quantity AS product,
          (SELECT COALESCE(sum(l.quantity), 0)::integer FROM order_lines l
            JOIN product_variants v ON v.id = l.variant_id WHERE v.product_id = p.id) AS units
        FROM products p WHERE p.id = ${productId}`,
    );
    expect(stock).toEqual({ product: 0, units: 5 });
  });
});

describe('idempotency through PgBouncer', () => {
  it('one key sent 20 times at once over both processes places one order; a later retry is its replay', async () => {
    const store = await db.createStore('Pooled Idempotent');
    const productId = await product(100);
    const key = `pooled-${Date.now()}`;
    const post = (i: number) =>
      send(via(i), '/api/v1/orders', {
        key: store.readWrite,
        body: orderBody(productId, 0),
        headers: { 'Idempotency-Key': key },
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i)));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length + answers.filter((a) => a.status === 409).length).toBe(20);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    const [placed] = await rows<{ n: number }>(
      db.em(),
      sql`SELECT count(*)::integer AS n FROM orders WHERE store_id = ${store.id}`,
    );
    expect(placed?.n).toBe(1);
    for (const i of [0, 1]) {
      const later = await post(i);
      expect(later.headers.get('idempotent-replayed')).toBe('true');
      expect(later.text).toBe(created[0]?.text);
    }
  });
});

describe('the worker through PgBouncer', () => {
  it('delivers each order taken by either API process to the store’s webhook exactly once', async () => {
    const store = await db.createStore('Pooled Hooks');
    const port = new URL(receiver.url).port;
    const hook = await send(via(0), '/api/v1/vendor/webhooks', {
      key: store.readWrite,
      body: { url: `https://${HOST}:${port}/orders`, events: ['order.created'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const productId = await product(100);
    const before = receiver.received.length;
    const orders = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send<{ order: { id: number } }>(via(i), '/api/v1/orders', {
          key: store.readWrite,
          body: orderBody(productId, i),
        }),
      ),
    );
    expect(orders.map((o) => o.status)).toEqual(Array(30).fill(201));
    await receiver.waitFor(before + 30, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(30);
    const keys = got.map((r) => (JSON.parse(r.body) as WebhookEvent).event_key);
    expect(new Set(keys)).toEqual(new Set(orders.map((o) => `order.created:${o.body.order.id}`)));
    expect(new Set(got.map((r) => String(r.headers['x-stockless-delivery-id']))).size).toBe(30);
  }, 60_000);

  it('the inventory feed, read across both processes, gives each listing once, then the stock change the worker fans out', async () => {
    const store = await db.createStore('Pooled Feed');
    const ids = await Promise.all(Array.from({ length: 6 }, () => product(10)));
    for (const [i, id] of ids.entries()) {
      const added = await send(via(i), '/api/v1/my-products', {
        key: store.readWrite,
        body: { product_id: id },
      });
      expect(added.status, added.text).toBe(201);
    }
    const first = await walkFeed(store.read, undefined, (items) =>
      ids.every((id) => items.some((x) => x.product_id === id)),
    );
    expect(first.items.map((x) => x.product_id)).toEqual(ids);

    // An order by another store takes 3 units of the fourth: the worker's stock fan-out (its ORM goes
    // through PgBouncer) moves that product to the head of the feed.
    const buyer = await db.createStore('Pooled Feed Buyer');
    const bought = ids[3] as number;
    const order = await send(via(1), '/api/v1/orders', {
      key: buyer.readWrite,
      body: { ...orderBody(bought, 0), items: [{ product_id: bought, quantity: 3 }] },
    });
    expect(order.status, order.text).toBe(201);
    const next = await walkFeed(store.read, first.cursor, (items) =>
      items.some((x) => x.product_id === bought),
    );
    expect(next.items).toHaveLength(1);
    expect(next.items[0]).toMatchObject({ product_id: bought, stock_quantity: 7 });
  }, 30_000);
});

/**
 * Follows next_cursor from `from`, page i on process i % 2, two items a page, until `enough` holds for
 * what was read (positions become readable once older transactions end), or 20 s.
 */
async function walkFeed(
  key: string,
  from: string | undefined,
  enough: (items: InventoryItem[]) => boolean,
): Promise<{ items: InventoryItem[]; cursor: string }> {
  const items: InventoryItem[] = [];
  let cursor = from;
  const deadline = Date.now() + 20_000;
  for (let i = 0; ; i++) {
    const q = new URLSearchParams({ limit: '2', ...(cursor ? { updated_since: cursor } : {}) });
    const page = await send<ListInventoryResponse>(via(i), `/api/v1/inventory?${q}`, { key });
    expect(page.status, page.text).toBe(200);
    items.push(...page.body.items);
    cursor = page.body.next_cursor;
    if (page.body.has_more) continue;
    if (enough(items) || Date.now() > deadline) return { items, cursor };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `server/main.ts <mode>` with `env`: how it ended and what it printed. */
async function startAndEnd(mode: 'serve' | 'worker', env: Record<string, string>) {
  try {
    const out = await promisify(execFile)(process.execPath, ['server/main.ts', mode], {
      env: {
        ...process.env,
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: '0',
        ...env,
      },
      timeout: 20_000,
    });
    return { code: 0, output: `${out.stdout}${out.stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('a pooler where the server itself is needed', () => {
  it('DATABASE_URL on PgBouncer without DATABASE_DIRECT_URL: an API process and a worker stop at start, naming the setting', async () => {
    const pooled = bouncer.pooled(db.databaseUrl);
    for (const mode of ['serve', 'worker'] as const) {
      const r = await startAndEnd(mode, { DATABASE_URL: pooled });
      expect(r.code, r.output).toBe(2);
      const lines = r.output.trim().split('\n');
      expect(lines, r.output).toHaveLength(1);
      expect(lines[0]).toContain('DATABASE_URL');
      expect(lines[0]).toContain('set DATABASE_DIRECT_URL to the server itself');
      expect(r.output).not.toMatch(/\n\s+at /);
    }
    // Nothing took the migrations' session lock through the pool (it would stay held by a server
    // connection that other clients reuse).
    const [held] = await rows<{ n: number }>(
      db.em(),
      sql`SELECT count(*)::integer AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4207001`,
    );
    expect(held?.n).toBe(0);
  }, 60_000);

  it('DATABASE_DIRECT_URL on PgBouncer too: the start stops, naming DATABASE_DIRECT_URL', async () => {
    const pooled = bouncer.pooled(db.databaseUrl);
    const r = await startAndEnd('worker', {
      DATABASE_URL: pooled,
      DATABASE_DIRECT_URL: named(pooled, 'direct'),
    });
    expect(r.code, r.output).toBe(2);
    expect(r.output.trim().split('\n')).toHaveLength(1);
    expect(r.output).toMatch(
      /^DATABASE_DIRECT_URL \(127\.0\.0\.1:\d+\/t_\w+\) refused the startup parameter options/,
    );
    expect(r.output).toContain('set DATABASE_DIRECT_URL to the PostgreSQL server itself, not the pooler');
  });
});

/** Two settings as a new client of `url` finds them. */
async function settingsVia(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const {
      rows: [row],
    } = await client.query<Record<string, string>>(
      `SELECT current_setting('statement_timeout') AS statement_timeout,
        current_setting('max_parallel_workers_per_gather') AS parallel`,
    );
    return row;
  } finally {
    await client.end();
  }
}

describe('the statement budget behind PgBouncer', () => {
  it('through the shared entry it is not in force, and each API process said so at start', () => {
    for (const api of apis) expect(api.output()).toContain('the API statement budget is not in force');
  });

  it('through an entry of the API’s own whose connect_query sets it, it is; the shared entry (the worker’s jobs) keeps none', async () => {
    const budgeted = withDatabase(bouncer.pooled(db.databaseUrl), API_ENTRY);
    const api = await startApiProcess(budgeted, { DATABASE_DIRECT_URL: db.databaseUrl });
    try {
      const res = await send(api, '/api/v1/products?limit=1', { key: db.first.read });
      expect(res.status, res.text).toBe(200);
      expect(api.output()).not.toContain('not in force');
    } finally {
      await api.stop();
    }
    expect(await settingsVia(budgeted)).toEqual({ statement_timeout: '30s', parallel: '0' });
    // The entry's name is PgBouncer's alone: no process made a database of that name on the server.
    const [stray] = await rows<{ n: number }>(
      db.em(),
      sql`SELECT count(*)::integer AS n FROM pg_database WHERE datname = ${API_ENTRY}`,
    );
    expect(stray?.n).toBe(0);
    expect((await settingsVia(bouncer.pooled(db.databaseUrl)))?.statement_timeout).toBe('0');
  }, 60_000);
});
