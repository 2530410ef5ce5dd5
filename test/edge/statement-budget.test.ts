import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { buildOpenApiDocument } from '../../server/contract/document.ts';
import { operationFacts } from '../../server/contract/operation-facts.ts';
import { createLogger } from '../../server/logger.ts';
import type { Orm } from '../../server/orm.ts';
import { startRuntime } from '../../server/runtime.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { STATEMENT_BUDGET } from '../../src/errors.ts';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, TEST_SECRET_KEY, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * The API's statement budget (API_STATEMENT_TIMEOUT, docs/decisions.md "Statement budget"): no
 * statement a request runs may hold a database core longer. Slowness is made deterministic with
 * locks held from another connection (a lock wait counts against statement_timeout), never with a
 * hook in the code under test.
 */

const BUDGET_MS = 500;

/** A stream for the app's logger that keeps its records. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return Object.assign(stream, { records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) });
}

const logs = capture();
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;

beforeAll(async () => {
  app = await startTestApp(
    { API_STATEMENT_TIMEOUT: `${BUDGET_MS}ms` },
    { log: createLogger('info', 'json', logs) },
  );
  store = await app.createStore('Budget Store');
  supplierId = await fixtures(app.em()).supplier({ name: 'Budget Supplier' });
});
afterAll(() => app?.close());

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  ms: number;
}

/** One request over HTTP, given up after 10 s (without the budget a held lock would hold it forever). */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${store.readWrite}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const answer: Answer = {
    status: res.status,
    headers: res.headers,
    body: text ? JSON.parse(text) : {},
    ms: performance.now() - started,
  };
  return answer;
}

/** A connection of its own, outside the app's pools, that holds locks in an open transaction. */
async function holder(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: app.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  return client;
}

async function release(client: pg.Client) {
  await client.query('ROLLBACK').catch(() => {});
  await client.end();
}

/** The contract's answer of the budget, with exactly the body fields it documents (no stack, no SQL). */
function expectBudgetAnswer(res: Answer, kind: 'expensive' | 'contended') {
  const { message, retryAfter } = STATEMENT_BUDGET[kind];
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body).toEqual({
    error: 'server_error',
    code: 'QUERY_TOO_EXPENSIVE',
    message,
    retry_after: retryAfter,
    doc_url: 'http://stockless.test/docs/errors/QUERY_TOO_EXPENSIVE',
    request_id: res.headers.get('x-request-id'),
  });
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  // Stopped at the budget, not when the lock went away.
  expect(res.ms).toBeGreaterThanOrEqual(BUDGET_MS - 20);
  expect(res.ms).toBeLessThan(BUDGET_MS + 4000);
}

const budgetLines = () => logs.records().filter((r) => String(r.msg).startsWith('statement budget exceeded'));

const CUSTOMER = { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' };
const SHIPPING = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };
const orderOf = (productId: number, quantity = 1) => ({
  customer: CUSTOMER,
  shipping: SHIPPING,
  items: [{ product_id: productId, quantity }],
});

interface World {
  orders: number;
  lines: number;
  history: number;
  events: number;
  keys: number;
  product_stock: number;
  stock: number[];
}

/** Everything a stopped order must leave as it was. */
async function world(productId: number): Promise<World | undefined> {
  const [counts] = await rows<World>(
    app.em(),
    sql`SELECT (SELECT count(*)::integer FROM orders) AS orders,
        (SELECT count(*)::integer FROM order_lines) AS lines,
        (SELECT count(*)::integer FROM order_status_history) AS history,
        (SELECT count(*)::integer FROM domain_events) AS events,
        (SELECT count(*)::integer FROM idempotency_keys) AS keys,
        (SELECT stock_quantity FROM products WHERE id = ${productId}) AS product_stock,
        (SELECT array_agg(stock_quantity ORDER BY id) FROM product_variants WHERE product_id = ${productId}) AS stock`,
  );
  return counts;
}

async function variantOf(productId: number): Promise<number> {
  const [v] = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY id LIMIT 1`,
  );
  if (!v) throw new Error('no variant');
  return v.id;
}

describe('API_STATEMENT_TIMEOUT', () => {
  it('is 2 s unless set, a duration between 10 ms and 60 s', () => {
    expect(loadConfig({}).API_STATEMENT_TIMEOUT).toBe(2000);
    expect(loadConfig({ API_STATEMENT_TIMEOUT: '750ms' }).API_STATEMENT_TIMEOUT).toBe(750);
    expect(loadConfig({ API_STATEMENT_TIMEOUT: '5s' }).API_STATEMENT_TIMEOUT).toBe(5000);
    for (const refused of ['0', '5ms', '2m', 'soon', '-1s']) {
      expect(() => loadConfig({ API_STATEMENT_TIMEOUT: refused }), refused).toThrow(ConfigError);
      expect(() => loadConfig({ API_STATEMENT_TIMEOUT: refused }), refused).toThrow(/API_STATEMENT_TIMEOUT/);
    }
  });
});

describe('a read past the budget', () => {
  it('is stopped and answers 503 QUERY_TOO_EXPENSIVE with Retry-After, logged with its path and query', async () => {
    await fixtures(app.em()).product({ supplierId, name: 'Budget Lamp' });
    const query = 'category=kitchen&price_min_cents=1234&limit=20&search=lamp';
    const locks = await holder();
    let res: Answer;
    try {
      // Every statement that reads products now waits on this lock, as on a slow plan.
      await locks.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      res = await call('GET', `/api/v1/products?${query}`);
    } finally {
      await release(locks);
    }
    expectBudgetAnswer(res, 'expensive');

    const [line, ...more] = budgetLines();
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 40,
      request_id: res.headers.get('x-request-id'),
      method: 'GET',
      path: '/api/v1/products',
      query: { category: 'kitchen', price_min_cents: '1234', limit: '20', search: 'lamp' },
      budget_ms: BUDGET_MS,
      pg_message: 'canceling statement due to statement timeout',
    });
    expect(line?.statement).toMatch(/products/i);
    expect(line?.ms).toBeGreaterThanOrEqual(BUDGET_MS - 20);

    // The budget stops what runs past it, nothing else: the same read answers once the lock is gone.
    const again = await call('GET', `/api/v1/products?${query}`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it('answers HEAD with the 503 and its Retry-After, and no body', async () => {
    const locks = await holder();
    let res: Answer;
    try {
      await locks.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      res = await call('HEAD', '/api/v1/products?limit=5');
    } finally {
      await release(locks);
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(STATEMENT_BUDGET.expensive.retryAfter));
    expect(res.body).toEqual({});
  });
});

describe('a write past the budget', () => {
  it('waiting on a variant another order holds: 503, nothing reserved or written, and the retry with its key runs afresh', async () => {
    const productId = await fixtures(app.em()).product({ supplierId, stock: [5] });
    const variantId = await variantOf(productId);
    const before = await world(productId);
    const key = `budget-${productId}`;
    const locks = await holder();
    let res: Answer;
    try {
      await locks.query('SELECT id FROM product_variants WHERE id = $1 FOR UPDATE', [variantId]);
      res = await call('POST', '/api/v1/orders', orderOf(productId, 2), { 'idempotency-key': key });
    } finally {
      await release(locks);
    }
    expectBudgetAnswer(res, 'contended');
    expect(await world(productId)).toEqual(before);
    expect(budgetLines().at(-1)).toMatchObject({
      request_id: res.headers.get('x-request-id'),
      method: 'POST',
      path: '/api/v1/orders',
      pg_where: expect.stringMatching(/while locking tuple .* "product_variants"/),
    });

    // A 5xx is not kept under the key: the same key runs the order now, once.
    const retried = await call('POST', '/api/v1/orders', orderOf(productId, 2), { 'idempotency-key': key });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const after = await world(productId);
    expect(after).toMatchObject({ orders: (before?.orders ?? 0) + 1, stock: [3] });
  });

  it('stopped after it took the stock, at its order insert: the whole transaction is rolled back', async () => {
    const productId = await fixtures(app.em()).product({ supplierId, stock: [4] });
    // An order to copy: the held row below takes the order number the request will draw next.
    const placed = await call('POST', '/api/v1/orders', orderOf(productId, 1));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const before = await world(productId);
    expect(before?.stock).toEqual([3]);
    const locks = await holder();
    let res: Answer;
    try {
      const { rows: seq } = await locks.query<{ n: string }>("SELECT nextval('order_number_seq')::text AS n");
      const next = `SL-${BigInt(seq[0]?.n ?? '0') + 1n}`;
      // A copy of the placed order, uncommitted, under the number the request will draw next.
      await locks.query(
        `INSERT INTO orders SELECT r.* FROM orders o, LATERAL jsonb_populate_record(NULL::orders, to_jsonb(o) ||
           jsonb_build_object('id', nextval(pg_get_serial_sequence('orders', 'id')), 'order_number', $2::text)) r
         WHERE o.id = $1`,
        [(placed.body.order as { id: number }).id, next],
      );
      // The request locks the variant and takes 2 of its 3, then waits on the held order number.
      res = await call('POST', '/api/v1/orders', orderOf(productId, 2));
    } finally {
      await release(locks);
    }
    expectBudgetAnswer(res, 'contended');
    expect(budgetLines().at(-1)?.pg_where).toMatch(/tuple/);
    expect(await world(productId)).toEqual(before);
  });
});

describe('what the budget leaves alone', () => {
  it('the events long poll waits longer than the budget: it holds no statement while it waits', async () => {
    const seen = budgetLines().length;
    const poller = await app.createStore('Long poll');
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    const head = await call('GET', '/api/v1/events?order=asc', undefined, as(poller.read));
    expect(head.status).toBe(200);
    const cursor = encodeURIComponent(String(head.body.next_cursor));
    const polled = call(
      'GET',
      `/api/v1/events?order=asc&wait=8&cursor=${cursor}`,
      undefined,
      as(poller.read),
    );
    await new Promise((r) => setTimeout(r, 4 * BUDGET_MS));
    const productId = await fixtures(app.em()).product({ supplierId, stock: [5] });
    const placed = await call('POST', '/api/v1/orders', orderOf(productId, 1), as(poller.readWrite));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    // The worker's dispatcher, run here: the order's event reaches the store's log.
    await dispatchPendingEvents(app.em(), webhookFanOut(60_000));
    const res = await polled;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body.events as { event: string }[]).map((e) => e.event)).toContain('order.created');
    expect(res.ms).toBeGreaterThan(4 * BUDGET_MS);
    expect(budgetLines().length).toBe(seen);
  });

  it("startRuntime: the API's pool has the budget, the worker's (migrations, seed, jobs) has none", async () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: app.databaseUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      API_STATEMENT_TIMEOUT: `${BUDGET_MS}ms`,
      WORKER_CONCURRENCY: '1',
    });
    const out = capture();
    const runtime = await startRuntime(config, createLogger('info', 'json', out), {
      serve: true,
      work: true,
    });
    try {
      const apiOrm = runtime.apiOrm as Orm;
      expect(await timeoutOf(apiOrm)).toBe(`${BUDGET_MS}ms`);
      expect(await timeoutOf(runtime.orm)).toBe('0');
      // A partner request is never a parallel query; the worker's maintenance may be.
      expect(await parallelOf(apiOrm)).toBe('0');
      expect(await parallelOf(runtime.orm)).not.toBe('0');
      // Longer than the budget: the worker's ORM runs it, the API's stops it.
      await expect(sleepOn(runtime.orm, BUDGET_MS + 200)).resolves.toBeUndefined();
      await expect(sleepOn(apiOrm, BUDGET_MS + 200)).rejects.toMatchObject({ code: '57014' });
      expect(out.records().some((r) => String(r.msg).includes('not in force'))).toBe(false);
    } finally {
      await runtime.stop();
    }
  });

  it('behind a pooler (DATABASE_DIRECT_URL set) sends no startup setting and warns when the role has none', async () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: app.databaseUrl,
      DATABASE_DIRECT_URL: `${app.databaseUrl}${app.databaseUrl.includes('?') ? '&' : '?'}application_name=direct`,
      SECRET_KEY: TEST_SECRET_KEY,
      API_STATEMENT_TIMEOUT: `${BUDGET_MS}ms`,
    });
    const out = capture();
    const runtime = await startRuntime(config, createLogger('info', 'json', out), {
      serve: true,
      work: false,
    });
    try {
      expect(await timeoutOf(runtime.apiOrm as Orm)).toBe('0');
      expect(out.records()).toContainEqual(
        expect.objectContaining({ level: 40, budget_ms: BUDGET_MS, statement_timeout_ms: 0 }),
      );
    } finally {
      await runtime.stop();
    }
  });
});

describe('the contract', () => {
  it('lists 503 QUERY_TOO_EXPENSIVE, with Retry-After, on every operation of the routers', () => {
    const doc = buildOpenApiDocument();
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item ?? {})) {
        // The routers' operations (the raw invoice route is described by hand, OAuth and /health apart).
        if (!path.startsWith('/api/v1/') || path.endsWith('/invoice') || path.endsWith('/openapi.json'))
          continue;
        if (!op || typeof op !== 'object' || !('responses' in op)) continue;
        operations++;
        const answer = (op as { responses: Record<string, Record<string, unknown>> }).responses['503'];
        expect(answer, `${method} ${path}`).toBeDefined();
        expect(answer?.headers, `${method} ${path}`).toHaveProperty('Retry-After');
        expect(JSON.stringify(answer), `${method} ${path}`).toContain('QUERY_TOO_EXPENSIVE');
      }
    }
    expect(operations).toBe(operationFacts().size);
  });
});

async function timeoutOf(orm: Orm): Promise<string> {
  const [row] = await rows<{ statement_timeout: string }>(orm.em.fork(), sql`SHOW statement_timeout`);
  return row?.statement_timeout ?? '';
}

async function parallelOf(orm: Orm): Promise<string> {
  const [row] = await rows<{ setting: string }>(
    orm.em.fork(),
    sql`SELECT current_setting('max_parallel_workers_per_gather') AS setting`,
  );
  return row?.setting ?? '';
}

async function sleepOn(orm: Orm, ms: number): Promise<void> {
  await rows(orm.em.fork(), sql`SELECT pg_sleep(${ms / 1000})`);
}
