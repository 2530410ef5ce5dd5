import type pg from 'pg';
import { Gauge, Histogram } from 'prom-client';
import { registry } from '../../src/metrics/registry.ts';
import type { Orm } from '../orm.ts';

/** The pools this process reports, by name (`api`: the API's budgeted pool; `worker`: the jobs'). */
const pools = new Map<string, pg.Pool>();

const connections = new Gauge({
  name: 'stockless_db_pool_connections',
  help: "Connections of this process's database pools, by pool and state (in_use, idle).",
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    for (const [name, p] of pools) {
      this.set({ pool: name, state: 'in_use' }, p.totalCount - p.idleCount);
      this.set({ pool: name, state: 'idle' }, p.idleCount);
    }
  },
});

const waiting = new Gauge({
  name: 'stockless_db_pool_waiting',
  help: 'Callers waiting for a connection of the pool (all of its connections busy).',
  labelNames: ['pool'] as const,
  registers: [registry],
  collect() {
    for (const [name, p] of pools) this.set({ pool: name }, p.waitingCount);
  },
});

const max = new Gauge({
  name: 'stockless_db_pool_max',
  help: 'The most connections the pool opens (DB_POOL_SIZE).',
  labelNames: ['pool'] as const,
  registers: [registry],
  collect() {
    for (const [name, p] of pools) this.set({ pool: name }, p.options.max ?? 10);
  },
});

const acquire = new Histogram({
  name: 'stockless_db_pool_acquire_seconds',
  help: 'How long taking a connection from the pool took (the wait when all were busy, or a new connection).',
  labelNames: ['pool'] as const,
  buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers: [registry],
});

/**
 * Reports an ORM's pg pool under `name`: its connections from the pool's own counts at scrape time,
 * and each promise-style `connect` timed (MikroORM's kysely driver takes every connection so).
 */
export async function instrumentPool(orm: Orm, name: string): Promise<void> {
  const pool = (await orm.driver.getConnection().getNativeClient()) as pg.Pool;
  if (pools.get(name) === pool) return;
  pools.set(name, pool);
  const connect = pool.connect.bind(pool) as (cb?: unknown) => Promise<pg.PoolClient> | undefined;
  const timed = (cb?: unknown) => {
    if (cb) return connect(cb);
    const started = performance.now();
    return connect()?.then((client) => {
      acquire.observe({ pool: name }, (performance.now() - started) / 1000);
      return client;
    });
  };
  pool.connect = timed as typeof pool.connect;
}

/** Forgets a closed pool, so a scrape does not report it. */
export function forgetPool(name: string): void {
  pools.delete(name);
}

export const poolMetrics = { connections, waiting, max, acquire };
