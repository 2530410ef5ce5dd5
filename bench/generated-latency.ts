import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { request } from 'undici';
import type { Config } from '../server/config.ts';
import type { Orm } from '../server/orm.ts';
import { captureStatements, startReplay } from './capture.ts';
import { seedEventLog } from './event-log-data.ts';
import {
  type Drawn,
  drawQueries,
  type Endpoint,
  GENERATED_ENDPOINTS,
  readDomain,
  resolveWalks,
} from './generated-queries.ts';
import { MEASURED_TABLES, printTable, quantile, round, type Statistics, setStatistics } from './lib.ts';
import { logCredentials, seedExports, seedRequestLog } from './request-log-data.ts';

/** The targets for every endpoint, one request at a time, in ms. */
export const GENERATED_TARGETS = { p50: 15, p99: 60, max: 250 };
/** Every table the six endpoints read, whose statistics are cleared for the fresh round. */
const TABLES = [...MEASURED_TABLES, 'orders', 'webhook_events', 'inventory_feed', 'request_log', 'exports'];

interface Side {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}
export interface EndpointFigure {
  endpoint: Endpoint;
  /** Combinations answered 200 and timed on both sides. */
  measured: number;
  api: Side;
  raw: Side;
  /** api p50 / raw p50. */
  ratio: number;
  met: boolean;
}
export interface SlowQuery {
  url: string;
  api_ms: number;
  raw_ms: number;
  /** The plan of the request's slowest statement, EXPLAIN ANALYZE as PostgreSQL printed it. */
  plan: string[];
}
export interface GeneratedResult {
  combinations: number;
  /** Combinations answered 4xx (input the contract refuses), per endpoint and status. */
  refused: Record<string, number>;
  /** Any 5xx or network failure of the API: each is a defect. */
  errors: { url: string; status: number; body: string }[];
  /** Combinations whose raw replay failed (its statements past the budget): their raw time is the budget. */
  raw_failures: string[];
  rounds: Partial<Record<Statistics, { endpoints: EndpointFigure[]; slowest: SlowQuery[] }>>;
}

async function timed(url: string, headers: Record<string, string>) {
  const t = performance.now();
  try {
    const res = await request(url, { headers });
    const body = await res.body.text();
    return { ms: performance.now() - t, status: res.statusCode, body };
  } catch (err) {
    return { ms: performance.now() - t, status: 0, body: String(err) };
  }
}

const side = (xs: number[]): Side => ({
  p50_ms: round(quantile(xs, 0.5)),
  p99_ms: round(quantile(xs, 0.99)),
  max_ms: round(Math.max(0, ...xs)),
});

/** How long one EXPLAIN ANALYZE of a slow statement may run. */
const EXPLAIN_BUDGET_MS = 10_000;

type Plan = Record<string, { sql: string; parameters: unknown[] }[][]>;

/**
 * EXPLAIN ANALYZE of each read statement a URL ran; the slowest one's plan. A statement past the
 * budget is explained without ANALYZE (the plan PostgreSQL would run, not its figures).
 */
async function slowestPlan(client: pg.Client, steps: Plan[string]): Promise<string[]> {
  let worst: { ms: number; plan: string[] } = { ms: -1, plan: [] };
  for (const s of steps.flat()) {
    if (!/^\s*(SELECT|WITH)\b/i.test(s.sql)) continue;
    const explain = (options: string) =>
      client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (${options}) ${s.sql}`, s.parameters);
    await client.query(`SET statement_timeout = ${EXPLAIN_BUDGET_MS}`);
    const { rows } = await explain('ANALYZE, BUFFERS').catch(() => explain('COSTS'));
    await client.query('RESET statement_timeout');
    const plan = rows.map((r) => r['QUERY PLAN']);
    const ms = Number(/Execution Time: ([\d.]+)/.exec(plan.at(-1) ?? '')?.[1] ?? 0);
    if (ms > worst.ms) worst = { ms, plan };
  }
  return worst.plan;
}

/**
 * The generated-query part: `count` combinations from the contract's parameter schemas
 * (generated-queries.ts), each asked once of the API and once of the raw replay of its own
 * statements, one request at a time, with cleared statistics and analysed. Loads the store's event
 * log to `events` first if it holds fewer.
 */
export async function benchGeneratedQueries(opts: {
  orm: Orm;
  config: Config;
  databaseUrl: string;
  apiUrl: string;
  rawPort: number;
  node: string;
  storeId: number;
  /** A live read key of the store: its orders and events are live. */
  key: string;
  count: number;
  events: number;
  /** The store's request log, in rows over its 7 days (a busy store's week). */
  requests: number;
  modes: readonly Statistics[];
}): Promise<GeneratedResult> {
  const headers = { authorization: `Bearer ${opts.key}` };
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  let raw: ChildProcess | undefined;
  try {
    await loadEvents(opts.databaseUrl, client, opts.storeId, opts.events);
    await loadRequestLog(opts.databaseUrl, client, opts.storeId, opts.requests);
    const domain = await readDomain(client, opts.storeId, opts.apiUrl, headers);
    const drawn = await resolveWalks(drawQueries(domain, opts.count), opts.apiUrl, headers);
    const result: GeneratedResult = {
      combinations: drawn.length,
      refused: {},
      errors: [],
      raw_failures: [],
      rounds: {},
    };

    // One untimed pass: what each combination answers, and a warm cache for both sides.
    const ok: Drawn[] = [];
    for (const d of drawn) {
      const r = await timed(opts.apiUrl + d.url, headers);
      if (r.status === 200) ok.push(d);
      else if (r.status >= 400 && r.status < 500) {
        const k = `${d.endpoint} ${r.status}`;
        result.refused[k] = (result.refused[k] ?? 0) + 1;
      } else result.errors.push({ url: d.url, status: r.status, body: r.body.slice(0, 300) });
    }
    const plan: Plan = await captureStatements(
      opts.orm,
      opts.config,
      opts.key,
      ok.map((d) => d.url),
      { skipFailed: true },
    );
    const replay = await startReplay(plan, {
      node: opts.node,
      databaseUrl: opts.databaseUrl,
      port: opts.rawPort,
    });
    raw = replay.child;
    const rawUrl = replay.url;
    const measured = ok.filter((d) => plan[d.url]);

    for (const stats of opts.modes) {
      await setStatistics(client, stats, TABLES);
      const times: { d: Drawn; api: number; raw: number }[] = [];
      for (const [i, d] of measured.entries()) {
        // The side asked first alternates, so cache state and noise fall on both alike.
        const order = i % 2 === 0 ? (['api', 'raw'] as const) : (['raw', 'api'] as const);
        const t = { api: 0, raw: 0 };
        for (const s of order) {
          const r = await timed((s === 'api' ? opts.apiUrl : rawUrl) + d.url, headers);
          t[s] = r.ms;
          if (r.status === 200) continue;
          if (s === 'raw') result.raw_failures.push(`${stats} ${d.url}`);
          else result.errors.push({ url: `${stats} ${d.url}`, status: r.status, body: r.body.slice(0, 300) });
        }
        times.push({ d, ...t });
      }
      const endpoints = GENERATED_ENDPOINTS.map((endpoint): EndpointFigure => {
        const mine = times.filter((t) => t.d.endpoint === endpoint);
        const api = side(mine.map((t) => t.api));
        const rawSide = side(mine.map((t) => t.raw));
        return {
          endpoint,
          measured: mine.length,
          api,
          raw: rawSide,
          ratio: round(api.p50_ms / (rawSide.p50_ms || 1)),
          met:
            api.p50_ms <= GENERATED_TARGETS.p50 &&
            api.p99_ms <= GENERATED_TARGETS.p99 &&
            api.max_ms <= GENERATED_TARGETS.max,
        };
      });
      const slowest: SlowQuery[] = [];
      for (const t of [...times].sort((a, b) => b.api - a.api).slice(0, 10)) {
        slowest.push({
          url: t.d.url,
          api_ms: round(t.api),
          raw_ms: round(t.raw),
          plan: await slowestPlan(client, plan[t.d.url] ?? []),
        });
      }
      result.rounds[stats] = { endpoints, slowest };
    }
    return result;
  } finally {
    raw?.kill('SIGTERM');
    for (const table of TABLES) await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = on)`);
    await client.query(`ANALYZE ${TABLES.join(', ')}`);
    await client.end();
  }
}

/** The store's event log up to `events` (a platform store's month), judged as the trigger would. */
async function loadEvents(databaseUrl: string, client: pg.Client, storeId: number, events: number) {
  const { rows } = await client.query<{ n: number }>(
    'SELECT count(*)::integer AS n FROM webhook_events WHERE store_id = $1',
    [storeId],
  );
  const missing = events - (rows[0]?.n ?? 0);
  if (missing <= 0) return;
  console.log(`loading ${missing} events into store ${storeId}'s log…`);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await seedEventLog(pool, storeId, missing);
  } finally {
    await pool.end();
  }
  await client.query('SELECT webhook_events_reclassify()');
  await client.query('VACUUM ANALYZE webhook_events');
}

/**
 * The store's request log up to `requests` rows over the last 7 days, and a week of exports (50 a
 * day, the limit); other stores' logs beside it, a tenth as many each for three of them.
 */
async function loadRequestLog(databaseUrl: string, client: pg.Client, storeId: number, requests: number) {
  const count = async (table: string, store: number) =>
    (
      await client.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table} WHERE store_id = $1`, [
        store,
      ])
    ).rows[0]?.n ?? 0;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const others = (
      await client.query<{ id: number }>('SELECT id FROM stores WHERE id <> $1 ORDER BY id LIMIT 3', [
        storeId,
      ])
    ).rows.map((r) => r.id);
    for (const [store, n] of [
      [storeId, requests] as const,
      ...others.map((o) => [o, requests / 10] as const),
    ]) {
      const missing = Math.floor(n - (await count('request_log', store)));
      if (missing <= 0) continue;
      console.log(`loading ${missing} requests into store ${store}'s request log…`);
      await seedRequestLog(pool, store, missing, await logCredentials(pool, store));
    }
    if ((await count('exports', storeId)) < 350) await seedExports(pool, storeId, 350);
  } finally {
    await pool.end();
  }
  await client.query('VACUUM ANALYZE request_log, exports');
}

export function printGenerated(result: GeneratedResult, products: number): void {
  console.log(
    `\nGenerated queries: ${result.combinations} combinations from the contract's parameter schemas, one connection (${products} products)`,
  );
  const refused = Object.entries(result.refused).map(([k, n]) => `${k}: ${n}`);
  console.log(
    `  refused (4xx): ${refused.length ? refused.join(', ') : 'none'}; errors: ${result.errors.length}`,
  );
  for (const e of result.errors.slice(0, 10)) console.log(`  ERROR ${e.status} ${e.url} ${e.body}`);
  const t = GENERATED_TARGETS;
  for (const [stats, round_] of Object.entries(result.rounds)) {
    console.log(`\n${stats} statistics`);
    printTable(
      [
        'endpoint',
        'n',
        'api p50',
        'api p99',
        'api max',
        'raw p50',
        'raw p99',
        'raw max',
        'api/raw',
        'target',
      ],
      round_.endpoints.map((e) => [
        e.endpoint,
        `${e.measured}`,
        `${e.api.p50_ms}`,
        `${e.api.p99_ms}`,
        `${e.api.max_ms}`,
        `${e.raw.p50_ms}`,
        `${e.raw.p99_ms}`,
        `${e.raw.max_ms}`,
        `${e.ratio}x`,
        `p50 ≤ ${t.p50}, p99 ≤ ${t.p99}, max ≤ ${t.max}: ${e.met ? 'met' : 'MISSED'}`,
      ]),
    );
    console.log(`\nthe 10 slowest (${stats}), with the plan of each one's slowest statement`);
    for (const s of round_.slowest) {
      console.log(`\n  ${s.api_ms} ms (raw ${s.raw_ms} ms) ${s.url}`);
      for (const line of s.plan.slice(0, 18)) console.log(`    ${line}`);
      if (s.plan.length > 18) console.log(`    … ${s.plan.length - 18} more lines in bench/results.json`);
    }
  }
}
