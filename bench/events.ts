/**
 * The event log as a partner meets it (`GET /api/v1/events`, `/events/{id}`), against a raw replay of
 * the same SQL on the same database in the same run: the store's newest page, the next page by
 * cursor, a type filter, time filters (`created_gte`, `created_lt`, both) with and without `type`, in
 * both orders, with and without a cursor, one event by id. Seeds a store with BENCH_EVENTS events over
 * 30 days (kinds mixed as a busy store's: mostly stock and product changes) plus other stores' events,
 * then measures with cleared statistics (`pg_clear_relation_stats`, autovacuum off for the table while
 * the bench runs) and again after ANALYZE. Time-filter rows end with their ratio to the cursor page.
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
import { EVENT_NAMES } from '../src/events/vocabulary/index.ts';
import { pageQuery } from '../src/events-api/queries.ts';
import { seedEventLog } from './event-log-data.ts';

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

interface Scenario {
  name: string;
  path: string;
  /** The same page's SQL, as the API runs it (a cursor's position decoded by hand). */
  raw: () => { sql: string; parameters: readonly unknown[] };
}

const allTypes = [...EVENT_NAMES];
const orderTypes = allTypes.filter((t) => t.startsWith('order.'));
const day = 86_400_000;
// One instant for the whole run, so the API's and the raw side's windows are the same.
const now = Date.now();
const iso = (msAgo: number) => new Date(now - msAgo).toISOString();

/** A first page's `next_cursor` and the position it names (its last event's), for the next page. */
async function nextOf(path: string) {
  const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
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

/** The scenario every time filter is held to (within 2x of its p50, API and raw). */
const BASELINE = 'next page by cursor (desc)';

interface Row {
  name: string;
  api: [number, number];
  raw: [number, number];
}

async function measure(label: string, scenarios: Scenario[]): Promise<Row[]> {
  console.log(`\n${label}: ${samples} sequential requests a side`);
  console.log(
    `${'scenario'.padEnd(48)} api p50  api p99  raw p50  raw p99  p50 ratio  vs cursor page (api / raw)`,
  );
  const out: Row[] = [];
  for (const s of scenarios) {
    const api = await timed(async () => {
      const r = await fetch(`${base}${s.path}`, { headers: { authorization: `Bearer ${key}` } });
      if (!r.ok) throw new Error(`${s.name}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    });
    const statement = s.raw();
    const raw = await timed(() => pool.query(statement.sql, [...statement.parameters]));
    const row: Row = { name: s.name, api: [q(api, 0.5), q(api, 0.99)], raw: [q(raw, 0.5), q(raw, 0.99)] };
    out.push(row);
    const f = (x: number) => x.toFixed(2).padStart(7);
    const base0 = out.find((r) => r.name === BASELINE);
    const vs =
      base0 && s.name.includes('created_')
        ? `${(row.api[0] / base0.api[0]).toFixed(2)} / ${(row.raw[0] / base0.raw[0]).toFixed(2)}`
        : '';
    console.log(
      `${s.name.padEnd(48)} ${f(row.api[0])}  ${f(row.api[1])}  ${f(row.raw[0])}  ${f(row.raw[1])}  ${(row.api[0] / row.raw[0]).toFixed(2).padStart(9)}  ${vs}`,
    );
  }
  return out;
}

console.log(`seeding ${events} events for store ${store} and ${otherStores} x 20000 for other stores…`);
// No autovacuum on the log while the bench runs: the first pass is measured with cleared statistics.
await pool.query('ALTER TABLE webhook_events SET (autovacuum_enabled = false)');
try {
  await seedEventLog(pool, store, events);
  const { rows: others } = await pool.query<{ id: number }>(
    `SELECT id FROM stores WHERE id <> $1 ORDER BY id LIMIT $2`,
    [store, otherStores],
  );
  for (const o of others) await seedEventLog(pool, o.id, 20_000);
  const judged = await pool.query<{ n: string }>('SELECT webhook_events_reclassify()::text AS n');
  console.log(`reclassified: ${judged.rows[0]?.n} rows changed`);
  const firstId = (
    await pool.query<{ id: string }>(
      `SELECT id::text FROM webhook_events WHERE store_id = $1 ORDER BY id DESC LIMIT 1`,
      [store],
    )
  ).rows[0]?.id;

  const gteYesterday = iso(day);
  const lt15 = iso(15 * day);
  const from10 = iso(10 * day);
  const to9 = iso(9 * day);
  const gte20 = iso(20 * day);
  const plain: Scenario[] = [
    { name: 'newest page (desc, all kinds)', path: '/api/v1/events', raw: page({}) },
    await cursorPage('next page by cursor (desc)', '/api/v1/events', {}),
    {
      name: 'type=order.* (desc)',
      path: '/api/v1/events?type=order.*',
      raw: page({ types: orderTypes }),
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
  // A cursor half way down the log (the newest event created before 15 days ago), read without a filter.
  const deep = await nextOf(`/api/v1/events?created_lt=${lt15}&limit=1`);
  for (const order of ['desc', 'asc'] as const) {
    plain.push({
      name: `cursor mid-log, no filter (${order})`,
      path: `/api/v1/events?order=${order}&cursor=${encodeURIComponent(deep.cursor)}`,
      raw: page({ order, from: deep.from }),
    });
  }
  const timeFilters: [string, string, Partial<Parameters<typeof pageQuery>[0]>][] = [
    ['created_lt 15 days ago (desc)', `created_lt=${lt15}`, { createdLt: lt15 }],
    ['created_lt 15 days ago (asc)', `order=asc&created_lt=${lt15}`, { order: 'asc', createdLt: lt15 }],
    [
      'created_gte yesterday (asc)',
      `order=asc&created_gte=${gteYesterday}`,
      { order: 'asc', createdGte: gteYesterday },
    ],
    ['created_gte yesterday (desc)', `created_gte=${gteYesterday}`, { createdGte: gteYesterday }],
    [
      'created_gte 10 days & lt 9 days ago (asc)',
      `order=asc&created_gte=${from10}&created_lt=${to9}`,
      { order: 'asc', createdGte: from10, createdLt: to9 },
    ],
    [
      'created_gte 10 days & lt 9 days ago (desc)',
      `created_gte=${from10}&created_lt=${to9}`,
      { createdGte: from10, createdLt: to9 },
    ],
    [
      'created_gte 20 days, type=order.* (asc)',
      `order=asc&type=order.*&created_gte=${gte20}`,
      { order: 'asc', types: orderTypes, createdGte: gte20 },
    ],
    [
      'created_lt 15 days, type=order.* (desc)',
      `type=order.*&created_lt=${lt15}`,
      { types: orderTypes, createdLt: lt15 },
    ],
  ];
  const timeScenarios: Scenario[] = [];
  for (const [name, query, q0] of timeFilters) {
    timeScenarios.push({ name, path: `/api/v1/events?${query}`, raw: page(q0) });
  }
  // Second pages of time filters: the cursor the first page gave, in the same order and window.
  for (const [name, query, q0] of [0, 2, 5, 6].flatMap((i) => {
    const f = timeFilters[i];
    return f ? [f] : [];
  })) {
    timeScenarios.push(
      await cursorPage(
        `${name.replace(/ \((asc|desc)\)$/, '')}, next page (${q0.order ?? 'desc'})`,
        `/api/v1/events?${query}`,
        q0,
      ),
    );
  }
  const scenarios = [...plain, ...timeScenarios];

  await pool.query(`SELECT pg_clear_relation_stats('public', 'webhook_events')`);
  await pool.query(
    `SELECT pg_clear_attribute_stats('public', 'webhook_events', attname::name, false)
     FROM pg_attribute WHERE attrelid = 'webhook_events'::regclass AND attnum > 0 AND NOT attisdropped`,
  );
  const fresh = await measure('cleared statistics', scenarios);
  await pool.query('ANALYZE webhook_events');
  const analysed = await measure('analysed', scenarios);
  if (process.env.BENCH_JSON) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(process.env.BENCH_JSON, JSON.stringify({ events, samples, fresh, analysed }, null, 2));
  }
} finally {
  await pool.query('ALTER TABLE webhook_events RESET (autovacuum_enabled)');
  await pool.end();
}

/** The page after a first page of `path`: the API with its cursor, the raw side from the position it names. */
async function cursorPage(
  name: string,
  path: string,
  q0: Partial<Parameters<typeof pageQuery>[0]>,
): Promise<Scenario> {
  const next = await nextOf(path);
  const sep = path.includes('?') ? '&' : '?';
  return {
    name,
    path: `${path}${sep}cursor=${encodeURIComponent(next.cursor)}`,
    raw: page({ ...q0, from: next.from }),
  };
}
