import type { AddJobFunction, Job, TaskSpec } from 'graphile-worker';
import type { z } from 'zod';
import {
  catalogueFanoutPayload,
  cronPayload,
  exportRunPayload,
  inventoryFanoutPayload,
  noPayload,
  webhookCoalescePayload,
} from './job-payloads.ts';
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
  pruneIdempotencyKeys: 'prune_idempotency_keys',
  pruneEvents: 'prune_events',
  pruneRequestLog: 'prune_request_log',
  runExport: 'export_run',
  pruneExports: 'export_prune',
} as const;

export type JobName = (typeof JOBS)[keyof typeof JOBS];

/** Each task's payload schema (src/db/job-payloads.ts): the enqueue helpers' types and the tasks' parse. */
export const JOB_PAYLOADS = {
  [JOBS.sendMail]: noPayload,
  [JOBS.dispatchEvents]: noPayload,
  // The wakes queue `{}`; the crontab's minutely run adds `_cron`.
  [JOBS.deliverWebhooks]: cronPayload,
  [JOBS.webhookCoalesce]: webhookCoalescePayload,
  [JOBS.catalogueFanout]: catalogueFanoutPayload,
  [JOBS.inventoryFanout]: inventoryFanoutPayload,
  [JOBS.readinessPass]: cronPayload,
  [JOBS.pruneRateLimits]: cronPayload,
  [JOBS.pruneIdempotencyKeys]: cronPayload,
  [JOBS.pruneEvents]: cronPayload,
  [JOBS.pruneRequestLog]: cronPayload,
  [JOBS.runExport]: exportRunPayload,
  [JOBS.pruneExports]: cronPayload,
} as const satisfies { [N in JobName]: z.ZodType };

/** What may be queued for job `N`. */
export type JobInput<N extends JobName> = z.input<(typeof JOB_PAYLOADS)[N]>;
/** What the task of job `N` runs with, once parsed. */
export type JobPayload<N extends JobName> = z.output<(typeof JOB_PAYLOADS)[N]>;

/** How a keyed job gets its payload; none (`{}`) only for the tasks whose payload may be empty. */
type KeyedPayload<N extends JobName> =
  | { payload: JobInput<N>; payloadSql?: never }
  | {
      /**
       * A json expression the statement builds (it may read the statement's columns), for set-based
       * enqueues: `sql<JobInput<N>>` states it has the schema's shape, which the task checks.
       */
      payloadSql: RawBuilder<JobInput<N>>;
      payload?: never;
    }
  | (Record<string, never> extends JobInput<N> ? { payload?: never; payloadSql?: never } : never);

export type KeyedJob<N extends JobName> = KeyedPayload<N> & {
  /** One pending job per key. */
  key: string | RawBuilder<unknown>;
  /** `replace`: a pending job runs now with the new payload; `preserve_run_at`: keeps a sooner run. */
  mode: 'replace' | 'preserve_run_at';
  runAt?: RawBuilder<unknown>;
  maxAttempts?: number;
};

/**
 * `add_keyed_job(…)` (Migration20261122075000_keyed_jobs: Graphile's add_job, retried) as an expression, to
 * select in the caller's statement: the job exists if and only if the transaction commits.
 */
export function keyedJob<N extends JobName>(name: N, job: KeyedJob<N>): RawBuilder<unknown> {
  const payload =
    job.payloadSql ??
    (job.payload === undefined ? sql`'{}'::json` : sql`${JSON.stringify(job.payload)}::json`);
  const runAt = job.runAt ? sql`, run_at => ${job.runAt}` : sql``;
  const attempts = job.maxAttempts ? sql`, max_attempts => ${job.maxAttempts}::integer` : sql``;
  return sql`add_keyed_job(${name}::text, ${payload}, (${job.key})::text, ${job.mode}::text${runAt}${attempts})`;
}

/** A payload as json text, for a set-based enqueue that passes many as one array parameter. */
export function jobPayloadJson<N extends JobName>(_name: N, payload: JobInput<N>): string {
  return JSON.stringify(payload);
}

/** Graphile's `addJob` (a runner's, WorkerUtils'), with the payload checked against the job's schema type. */
export function enqueueJob<N extends JobName>(
  graphile: { addJob: AddJobFunction },
  name: N,
  payload: JobInput<N>,
  spec?: TaskSpec,
): Promise<Job> {
  return graphile.addJob<string>(name, payload, spec);
}

/** A job whose payload its schema refuses: retrying cannot mend it, so the message says what is wrong. */
export class MalformedJobPayload extends Error {
  override name = 'MalformedJobPayload';
}

/** The task's side: the payload as its schema reads it, or MalformedJobPayload naming what is wrong. */
export function parseJobPayload<N extends JobName>(name: N, payload: unknown): JobPayload<N> {
  const schema: z.ZodType = JOB_PAYLOADS[name];
  const parsed = schema.safeParse(payload);
  // TypeScript cannot follow the indexed generic: the map's entry for N is JobPayload<N>'s schema.
  if (parsed.success) return parsed.data as JobPayload<N>;
  throw new MalformedJobPayload(
    `${name}: malformed payload, expected ${schema.description}: ${describeIssues(parsed.error.issues, [])}`,
  );
}

/** Issues as one line; a union's branches each, so the message names the field that is wrong. */
function describeIssues(issues: readonly z.core.$ZodIssue[], base: PropertyKey[]): string {
  const shown = issues.slice(0, 3).map((issue) => {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0)
      return issue.errors.map((branch) => `(${describeIssues(branch, path)})`).join(' or ');
    return path.length ? `${issue.message} at ${dotPath(path)}` : issue.message;
  });
  const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : '';
  return `${shown.join('; ')}${more}`;
}

function dotPath(path: PropertyKey[]): string {
  return path
    .map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`))
    .join('')
    .replace(/^\./, '');
}
