import { type RawBuilder, sql } from './sql.ts';

/**
 * Every Graphile Worker task, by the name jobs are queued under: spelled here once, so the code that
 * queues a job and the worker that runs it (one file per task in jobs/) cannot disagree. Migrations
 * keep the names their triggers were written with (`inventory_fanout`): they never change.
 */
export const JOBS = {
  sendMail: 'send_mail',
  dispatchEvents: 'dispatch_events',
  deliverWebhooks: 'deliver_webhooks',
  webhookCoalesce: 'webhook_coalesce',
  catalogueFanout: 'catalogue_fanout',
  inventoryFanout: 'inventory_fanout',
  readinessPass: 'readiness_pass',
  pruneRateLimits: 'prune_rate_limits',
} as const;

export type JobName = (typeof JOBS)[keyof typeof JOBS];

export interface KeyedJob {
  /** A json expression (it may read the statement's columns); `{}` when the task takes none. */
  payload?: RawBuilder<unknown>;
  /** One pending job per key. */
  key: string | RawBuilder<unknown>;
  /** `replace`: a pending job runs now with the new payload; `preserve_run_at`: keeps a sooner run. */
  mode: 'replace' | 'preserve_run_at';
  runAt?: RawBuilder<unknown>;
  maxAttempts?: number;
}

/**
 * `add_keyed_job(…)` (Migration20261122075000_keyed_jobs: Graphile's add_job, retried) as an expression, to
 * select in the caller's statement: the job exists if and only if the transaction commits.
 */
export function keyedJob(name: JobName, job: KeyedJob): RawBuilder<unknown> {
  const payload = job.payload ?? sql`'{}'::json`;
  const runAt = job.runAt ? sql`, run_at => ${job.runAt}` : sql``;
  const attempts = job.maxAttempts ? sql`, max_attempts => ${job.maxAttempts}::integer` : sql``;
  return sql`add_keyed_job(${name}::text, ${payload}, (${job.key})::text, ${job.mode}::text${runAt}${attempts})`;
}
