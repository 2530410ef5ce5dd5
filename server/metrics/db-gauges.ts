import type pg from 'pg';
import { Gauge } from 'prom-client';
import { registry } from '../../src/metrics/registry.ts';
import type { Logger } from '../logger.ts';
import { type DbSnapshot, readDbSnapshot } from './db-queries.ts';

/** A scrape waits at most this long for the database; its gauges are then absent, `up` is 0. */
const SCRAPE_DB_MS = 1000;
/** The gauges of one scrape share one read: Prometheus asks for all of them at once. */
const SHARE_MS = 250;

type Read = () => Promise<DbSnapshot>;

/** A gauge set from the scrape's shared read at each scrape, absent when the read failed. */
const gauge =
  (name: string, help: string, labelNames: string[], set: (g: Gauge, s: DbSnapshot) => void) =>
  (read: Read) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        const snapshot = await read().catch(() => undefined);
        if (snapshot) set(this, snapshot);
      },
    });

const GAUGES = [
  gauge(
    'stockless_jobs_queued',
    'Graphile Worker jobs due now and not yet taken, by task.',
    ['task'],
    (g, s) => {
      for (const j of s.jobs) g.set({ task: j.task }, j.queued);
    },
  ),
  gauge('stockless_jobs_running', 'Graphile Worker jobs a worker has taken, by task.', ['task'], (g, s) => {
    for (const j of s.jobs) g.set({ task: j.task }, j.running);
  }),
  gauge('stockless_jobs_failed', 'Graphile Worker jobs out of attempts, by task.', ['task'], (g, s) => {
    for (const j of s.jobs) g.set({ task: j.task }, j.failed);
  }),
  gauge(
    'stockless_jobs_oldest_queued_age_seconds',
    'Age of the oldest job due and not yet taken, by task (0 when none waits).',
    ['task'],
    (g, s) => {
      for (const j of s.jobs) g.set({ task: j.task }, j.oldest);
    },
  ),
  gauge(
    'stockless_event_log_head_lag_seconds',
    'Age of the oldest domain event not yet dispatched to the event log and webhooks (0 when none).',
    [],
    (g, s) => g.set(s.eventsOldestPending),
  ),
  gauge(
    'stockless_inventory_feed_head_lag_seconds',
    "Age of the oldest open transaction holding an xid: the inventory feed's xmin horizon, which no " +
      'page reads past until it ends (0 when none).',
    [],
    (g, s) => g.set(s.oldestXact),
  ),
  gauge('stockless_webhook_deliveries_due', 'Webhook deliveries due now and not yet sent.', [], (g, s) =>
    g.set(s.deliveriesDue),
  ),
  gauge(
    'stockless_webhook_deliveries_oldest_due_age_seconds',
    'How long the longest-waiting due delivery has been due (0 when none).',
    [],
    (g, s) => g.set(s.deliveriesOldestDue),
  ),
  gauge(
    'stockless_webhook_subscriptions',
    'Webhook subscriptions by state: held (a worker delivers them now), disabled_manual, disabled_gone (410), disabled_dead_letters.',
    ['state'],
    (g, s) => {
      g.set({ state: 'held' }, s.subscriptions.held);
      g.set({ state: 'disabled_manual' }, s.subscriptions.manual);
      g.set({ state: 'disabled_gone' }, s.subscriptions.gone);
      g.set({ state: 'disabled_dead_letters' }, s.subscriptions.dead_letters);
    },
  ),
  gauge(
    'stockless_exports',
    'Bulk exports kept, by status (queued, running, completed, failed, expired).',
    ['status'],
    (g, s) => {
      for (const status of ['queued', 'running', 'completed', 'failed', 'expired']) {
        g.set({ status }, s.exports.find((e) => e.status === status)?.n ?? 0);
      }
    },
  ),
];

let installed: { source?: pg.Pool } | undefined;

/**
 * The gauges read from the database at scrape time, in this process: a worker's (docs/operations.md),
 * so N API processes do not each repeat the queries. The last call's pool is the one read.
 */
export function enableDbGauges(pool: pg.Pool, log: Logger): void {
  if (installed) {
    installed.source = pool;
    return;
  }
  const state: { source?: pg.Pool } = { source: pool };
  installed = state;
  let shared: { at: number; read: Promise<DbSnapshot> } | undefined;
  const read = () => {
    if (!shared || performance.now() - shared.at > SHARE_MS) {
      const source = state.source;
      const work = source ? readDbSnapshot(source, SCRAPE_DB_MS) : Promise.reject(new Error('no pool'));
      const read = bounded(work, SCRAPE_DB_MS + 200);
      read.catch((err: unknown) => log.warn({ err }, 'metrics: the database gauges could not be read'));
      shared = { at: performance.now(), read };
    }
    return shared.read;
  };
  for (const define of GAUGES) define(read);
  new Gauge({
    name: 'stockless_db_gauges_up',
    help: "1 when this scrape's database read answered within its bound, else 0 (the database gauges are then absent).",
    registers: [registry],
    async collect() {
      this.set(
        await read().then(
          () => 1,
          () => 0,
        ),
      );
    },
  });
}

function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database read timed out')), ms);
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
