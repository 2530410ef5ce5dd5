/**
 * The event log as a partner meets it (`GET /api/v1/events`, `/events/{id}`), against a raw replay of
 * the same SQL on the same database in the same run: the store's newest page, the next page by
 * cursor, a type filter, time filters with and without a cursor, one event by id. Seeds a store with
 * BENCH_EVENTS events over 30 days (kinds mixed as a busy store's: mostly stock and product changes)
 * plus other stores' events, then measures with fresh statistics and again after ANALYZE.
 *
 *   npm start   # (DATA_DIR, PORT, EMBEDDED_PG_PORT as you like)
 *   BENCH_URL=http://localhost:3000 BENCH_KEY=<the demo read key> BENCH_STORE=1 \
 *     BENCH_DATABASE_URL=postgres://stockless:stockless@127.0.0.1:54329/stockless node bench/events.ts
 *
 * Settings: BENCH_EVENTS (200000 for the store), BENCH_OTHER_STORES (20, 20000 events each),
 * BENCH_SAMPLES (200 sequential requests a side a scenario).
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { pageQuery } from '../src/event-log/queries.ts';
import { WEBHOOK_EVENTS } from '../src/webhooks/events.ts';

const base = process.env.BENCH_URL ?? 'http://localhost:3000';
const key = process.env.BENCH_KEY;
const store = Number(process.env.BENCH_STORE ?? 1);
const databaseUrl = process.env.BENCH_DATABASE_URL;
if (!key || !databaseUrl)
  throw new Error('BENCH_KEY (a live key of BENCH_STORE) and BENCH_DATABASE_URL are required');
const events = Number(process.env.BENCH_EVENTS ?? 200_000);
const otherStores = Number(process.env.BENCH_OTHER_STORES ?? 20);
const samples = Number(process.env.BENCH_SAMPLES ?? 200);

const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const kysely = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });

/** Kinds as a busy store sees them: half stock changes, a third product changes, the rest orders. */
const MIX = [
  'inventory.updated',
  'inventory.updated',
  'inventory.updated',
  'product.updated',
  'product.updated',
  'order.created',
  'order.updated',
  'order.shipped',
  'invoice.issued',
  'product.created',
];

async function seed(storeId: number, n: number) {
  // One statement per 50,000: bodies as the log stores them, created over the last 30 days in id order.
  for (let done = 0; done < n; done += 50_000) {
    const batch = Math.min(50_000, n - done);
    await pool.query(
      `INSERT INTO webhook_events (id, store_id, event, event_key, body, created_at, livemode) OVERRIDING SYSTEM VALUE
       SELECT n.id, $1, n.kind, n.kind || ':' || n.g, '{"id":"evt_' || n.id || '","event":"' || n.kind
         || '","event_key":"' || n.kind || ':' || n.g || '","created_at":"2026-11-01T00:00:00.000Z","livemode":true,'
         || '"data":{"product_id":' || n.g || '}}',
         now() - interval '30 days' + (($2::int + n.g) * (interval '30 days' / $3::int)), true
       FROM (SELECT nextval(pg_get_serial_sequence('webhook_events', 'id')) AS id, g,
               ($5::text[])[1 + (g % $6::int)] AS kind
             FROM generate_series(1, $4::int) g) n`,
      [storeId, done, n, batch, MIX, MIX.length],
    );
  }
}

interface Scenario {
  name: string;
  path: string;
  /** The same page's SQL, as the API runs it (a cursor's position decoded by hand). */
  raw: () => { sql: string; parameters: readonly unknown[] };
}

const allTypes = [...WEBHOOK_EVENTS];
const day = 86_400_000;
const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

/** The newest page's `next_cursor` and the position it names (its last event's), for the next page. */
async function secondPage() {
  const r = await fetch(`${base}/api/v1/events`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await r.json()) as { events: { id: string }[]; next_cursor: string };
  const last = body.events.at(-1)?.id.replace('evt_', '') ?? '0';
  const { rows } = await pool.query<{ xid: string; id: string }>(
    'SELECT xid::text, id::text FROM webhook_events WHERE id = $1::bigint',
    [last],
  );
  return { cursor: body.next_cursor, from: rows[0] ?? { xid: '0', id: '0' } };
}

function page(q: Partial<Parameters<typeof pageQuery>[0]>) {
  return () =>
    pageQuery({
      storeId: store,
      livemode: true,
      types: allTypes,
      from: null,
      order: 'desc',
      limit: 21,
      ...q,
    }).compile(kysely);
}

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 10; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}
const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

async function measure(label: string, scenarios: Scenario[]) {
  console.log(`\n${label}: ${samples} sequential requests a side`);
  console.log('scenario                          api p50  api p99  raw p50  raw p99  p50 ratio');
  for (const s of scenarios) {
    const api = await timed(async () => {
      const r = await fetch(`${base}${s.path}`, { headers: { authorization: `Bearer ${key}` } });
      if (!r.ok) throw new Error(`${s.name}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    });
    const statement = s.raw();
    const raw = await timed(() => pool.query(statement.sql, [...statement.parameters]));
    const f = (x: number) => x.toFixed(2).padStart(7);
    console.log(
      `${s.name.padEnd(32)} ${f(q(api, 0.5))}  ${f(q(api, 0.99))}  ${f(q(raw, 0.5))}  ${f(q(raw, 0.99))}  ${(q(api, 0.5) / q(raw, 0.5)).toFixed(2).padStart(8)}`,
    );
  }
}

console.log(`seeding ${events} events for store ${store} and ${otherStores} x 20000 for other stores…`);
await seed(store, events);
const { rows: others } = await pool.query<{ id: number }>(
  `SELECT id FROM stores WHERE id <> $1 ORDER BY id LIMIT $2`,
  [store, otherStores],
);
for (const o of others) await seed(o.id, 20_000);
const next = await secondPage();
const firstId = (
  await pool.query<{ id: string }>(
    `SELECT id::text FROM webhook_events WHERE store_id = $1 ORDER BY id DESC LIMIT 1`,
    [store],
  )
).rows[0]?.id;

const scenarios: Scenario[] = [
  { name: 'newest page (desc, all kinds)', path: '/api/v1/events', raw: page({}) },
  {
    name: 'next page by cursor (desc)',
    path: `/api/v1/events?cursor=${encodeURIComponent(next.cursor)}`,
    raw: page({ from: next.from }),
  },
  {
    name: 'type=order.* (desc)',
    path: '/api/v1/events?type=order.*',
    raw: page({ types: allTypes.filter((t) => t.startsWith('order.')) }),
  },
  {
    name: 'created_lt 15 days ago (desc)',
    path: `/api/v1/events?created_lt=${iso(15 * day)}`,
    raw: page({ createdLt: iso(15 * day) }),
  },
  {
    name: 'created_gte yesterday (asc)',
    path: `/api/v1/events?order=asc&created_gte=${iso(day)}`,
    raw: page({ order: 'asc', createdGte: iso(day) }),
  },
  { name: 'oldest page (asc)', path: '/api/v1/events?order=asc', raw: page({ order: 'asc' }) },
  {
    name: 'one event by id',
    path: `/api/v1/events/evt_${firstId}`,
    raw: () => ({
      sql: 'SELECT event, body FROM webhook_events WHERE id = $1::bigint AND store_id = $2 AND livemode = $3',
      parameters: [firstId, store, true],
    }),
  },
];

await measure('fresh statistics', scenarios);
await pool.query('ANALYZE webhook_events');
await measure('analysed', scenarios);
await pool.end();
