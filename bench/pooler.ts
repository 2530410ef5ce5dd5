import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Orm } from '../server/orm.ts';
import { createApiKey } from '../src/store/create-api-key.ts';
import { type PgBouncer, startPgBouncer } from '../test/helpers/pgbouncer.ts';
import { seedOrders, seedPlatformListings, seedPlatformOrders } from './build/orders-data.ts';
import { printTable, round, SMALL } from './lib.ts';
import { benchPlatformDay, type PlatformDayResult } from './platform-day.ts';

/**
 * `BENCH_ONLY=pooler`: the platform day (bench/platform-day.ts, its mix unchanged) run by two API
 * processes and a worker connected to PostgreSQL directly, and the same processes with
 * DATABASE_URL = a real PgBouncer in transaction mode and DATABASE_DIRECT_URL = the server
 * (docs/scaling.md, section 3), in one run on one database. The sides alternate (direct, pooled,
 * pooled, direct) so that a machine warming up or slowing down weighs on both alike.
 * BENCH_POOLER_SECONDS (each run; BENCH_DAY_SECONDS, or 10 small / 60), BENCH_POOLER_POOL_SIZE (8:
 * fewer server connections than the API processes' 2 x DB_POOL_SIZE clients, so pooling is real).
 */

const SECONDS = Number(
  process.env.BENCH_POOLER_SECONDS ?? process.env.BENCH_DAY_SECONDS ?? (SMALL ? 10 : 60),
);
const POOL_SIZE = Number(process.env.BENCH_POOLER_POOL_SIZE ?? 8);
const ORDER = ['direct', 'pooled', 'pooled', 'direct'] as const;
/** What the API's pool sends at connect when direct (API_STATEMENT_TIMEOUT's default, no parallel query). */
const API_SETTINGS = 'SET statement_timeout = 2000; SET max_parallel_workers_per_gather = 0';
type Side = (typeof ORDER)[number];

export interface PoolerBenchOptions {
  orm: Orm;
  databaseUrl: string;
  storeId: number;
  connections: number;
  /** The API processes listen on this port and the next. */
  apiPort: number;
}

/** What a side's run gave, and PgBouncer's view of it when pooled. */
interface SideRun {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  deliveries: number;
  error_samples: string[];
  pgbouncer?: { transactions: number; avg_wait_us: number; max_wait_us: number; server_connections: number };
}

export async function benchPooler(o: PoolerBenchOptions) {
  await seedOrders(o.databaseUrl, o.storeId, SMALL ? 10_000 : 100_000);
  await seedPlatformOrders(o.databaseUrl, SMALL ? 100 : 10_000, SMALL ? 10_000 : 900_000);
  await seedPlatformListings(o.databaseUrl, SMALL ? 100 : 10_000);
  const keys = await dayKeys(o);
  // The API's own entry carries the statement budget, as docs/scaling.md, section 3, says to set it up:
  // both sides then run the API's statements under the same settings.
  const database = new URL(o.databaseUrl).pathname.slice(1);
  const bouncer = await startPgBouncer(o.databaseUrl, {
    poolSize: POOL_SIZE,
    entries: { [`${database}_api`]: { database, connectQuery: API_SETTINGS } },
  });
  const runs: Record<Side, SideRun[]> = { direct: [], pooled: [] };
  try {
    for (const side of ORDER) {
      runs[side].push(await runSide(o, side, bouncer, keys));
      console.log(`pooler: ${side} run ${runs[side].length}: ${JSON.stringify(runs[side].at(-1))}`);
    }
  } finally {
    await bouncer.stop();
  }
  const result = summarize(runs);
  printPooler(result);
  return result;
}

async function dayKeys(o: PoolerBenchOptions) {
  const em = () => o.orm.em.fork();
  const storeId = o.storeId;
  const readKey = (
    await createApiKey({ em: em() }, { storeId, scope: 'read', mode: 'live', name: 'bench pooler' })
  ).key;
  // Test-mode orders take no stock, so the runs leave the catalogue as they found it.
  const writeKey = (
    await createApiKey({ em: em() }, { storeId, scope: 'read_write', mode: 'test', name: 'bench pooler' })
  ).key;
  return { readKey, writeKey };
}

/** Two API processes and the day's worker, connected as `side` says, for one run of the day. */
async function runSide(
  o: PoolerBenchOptions,
  side: Side,
  bouncer: PgBouncer,
  keys: { readKey: string; writeKey: string },
): Promise<SideRun> {
  const pooled = bouncer.pooled(o.databaseUrl);
  const apiEntry = new URL(pooled);
  apiEntry.pathname = `${apiEntry.pathname}_api`;
  const [connect, apiConnect] =
    side === 'direct'
      ? [{ DATABASE_URL: o.databaseUrl }, { DATABASE_URL: o.databaseUrl }]
      : [
          { DATABASE_URL: pooled, DATABASE_DIRECT_URL: o.databaseUrl },
          { DATABASE_URL: apiEntry.toString(), DATABASE_DIRECT_URL: o.databaseUrl },
        ];
  const ports = [o.apiPort, o.apiPort + 1];
  const apis = ports.map((port) => spawnApi(port, apiConnect));
  try {
    // Each process migrates (finding nothing to do) under the lock before it listens: on a busy
    // machine that took longer than lib's 20 s wait.
    await until(
      async () => (await Promise.all(ports.map((port) => healthy(port)))).every(Boolean),
      120_000,
      `the ${side} API processes`,
    );
    const before = side === 'pooled' ? await bouncerStats(bouncer, o.databaseUrl) : undefined;
    const day = await benchPlatformDay({
      databaseUrl: o.databaseUrl,
      apiUrl: `http://127.0.0.1:${ports[0]}`,
      apiUrls: ports.map((port) => `http://127.0.0.1:${port}`),
      workerEnv: connect,
      ...keys,
      storeId: o.storeId,
      connections: o.connections,
      seconds: SECONDS,
    });
    const after = side === 'pooled' ? await bouncerStats(bouncer, o.databaseUrl) : undefined;
    return { ...figures(day), ...(before && after && { pgbouncer: poolerFigures(before, after) }) };
  } finally {
    await Promise.all(apis.map(stopChild));
  }
}

function spawnApi(port: number, connect: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['server/main.ts', 'serve'], {
    env: {
      ...process.env,
      ...connect,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DB_POOL_SIZE: '10',
      // One issuer for both processes, as behind one load balancer: the apps' tokens name it as their
      // resource, and a process with an issuer of its own (localhost:<its port>) refused them.
      PUBLIC_URL: 'http://stockless.bench',
      // As the platform-day part: the mix stays far below the default limits, the warm-up does not.
      APP_RATE_LIMIT: '1000000',
      EXTERNAL_ORDERS_RATE_LIMIT: '1000000',
      INVENTORY_RATE_LIMIT: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`bench: ${what} did not come up in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

function figures(day: PlatformDayResult): SideRun {
  return {
    rps: day.rps,
    p50: day.p50,
    p99: day.p99,
    errors: day.errors,
    deliveries: day.webhook_deliveries,
    error_samples: day.error_samples.slice(0, 3),
  };
}

interface BouncerCounters {
  xacts: number;
  waitUs: number;
  maxWaitUs: number;
  servers: number;
}

async function bouncerStats(bouncer: PgBouncer, databaseUrl: string): Promise<BouncerCounters> {
  // Both entries: the shared one (the worker's jobs) and the API's own.
  const name = new URL(databaseUrl).pathname.slice(1);
  const ours = (r: Record<string, string>) => r.database === name || r.database === `${name}_api`;
  const stats = (await bouncer.show('STATS')).filter(ours);
  const pools = (await bouncer.show('POOLS')).filter(ours);
  const sum = (xs: Record<string, string>[], f: (r: Record<string, string>) => number) =>
    xs.reduce((n, r) => n + f(r), 0);
  return {
    xacts: sum(stats, (r) => Number(r.total_xact_count ?? 0)),
    waitUs: sum(stats, (r) => Number(r.total_wait_time ?? 0)),
    maxWaitUs: Math.max(0, ...pools.map((p) => Number(p.maxwait ?? 0) * 1e6 + Number(p.maxwait_us ?? 0))),
    servers: (await bouncer.show('SERVERS')).filter(ours).length,
  };
}

function poolerFigures(before: BouncerCounters, after: BouncerCounters): NonNullable<SideRun['pgbouncer']> {
  const transactions = after.xacts - before.xacts;
  return {
    transactions,
    avg_wait_us: transactions ? Math.round((after.waitUs - before.waitUs) / transactions) : 0,
    max_wait_us: after.maxWaitUs,
    server_connections: after.servers,
  };
}

function summarize(runs: Record<Side, SideRun[]>) {
  const mean = (side: Side, f: 'rps' | 'p50' | 'p99') =>
    round(runs[side].reduce((n, r) => n + r[f], 0) / (runs[side].length || 1));
  const side = (s: Side) => ({ rps: mean(s, 'rps'), p50: mean(s, 'p50'), p99: mean(s, 'p99') });
  const direct = side('direct');
  const pooled = side('pooled');
  return {
    seconds: SECONDS,
    pool_size: POOL_SIZE,
    runs,
    direct,
    pooled,
    ratio: {
      rps: round(pooled.rps / (direct.rps || 1)),
      p50: round(pooled.p50 / (direct.p50 || 1)),
      p99: round(pooled.p99 / (direct.p99 || 1)),
    },
  };
}

function printPooler(r: ReturnType<typeof summarize>) {
  console.log(
    `\nPlatform day through PgBouncer (transaction mode, default_pool_size ${r.pool_size}) vs direct: ` +
      `2 API processes and a worker, ${r.seconds} s a run, runs in the order ${ORDER.join(', ')}`,
  );
  const row = (name: string, s: SideRun) => [
    name,
    `${s.rps}`,
    `${s.p50}`,
    `${s.p99}`,
    `${s.errors}`,
    `${s.deliveries}`,
    s.pgbouncer ? `${s.pgbouncer.transactions} xacts, avg wait ${s.pgbouncer.avg_wait_us} us` : '',
  ];
  printTable(
    ['run', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'deliveries', 'PgBouncer'],
    [
      ...r.runs.direct.map((s, i) => row(`direct ${i + 1}`, s)),
      ...r.runs.pooled.map((s, i) => row(`pooled ${i + 1}`, s)),
    ],
  );
  console.log(
    `mean: direct ${r.direct.rps} req/s p50 ${r.direct.p50} p99 ${r.direct.p99} ms; pooled ${r.pooled.rps} req/s ` +
      `p50 ${r.pooled.p50} p99 ${r.pooled.p99} ms; pooled/direct: req/s ${r.ratio.rps}x, p50 ${r.ratio.p50}x, p99 ${r.ratio.p99}x`,
  );
}
