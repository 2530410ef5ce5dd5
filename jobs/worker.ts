import { EventEmitter } from 'node:events';
import { type Job, Logger, type Runner, run, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger as Pino } from 'pino';
import { enqueueJob, JOBS } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import type { MailSettings } from '../src/mail/smtp-sender.ts';
import type { ExportSettings, WebhookSettings } from '../src/settings.ts';
import { closeWebhookAgents } from '../src/webhooks/delivery/post-webhook.ts';
import { summarizeJobs } from './job-summary.ts';
import { createWorkerTasks, crontab } from './tasks.ts';

export interface WorkerOptions {
  orm: Orm;
  connectionString: string;
  concurrency: number;
  log: Pino;
  mail: MailSettings;
  webhooks: WebhookSettings;
  /** Bulk exports' settings; the defaults when absent. */
  exports?: ExportSettings;
  /** How often the jobs that finished are summed up at info (default a minute); tests shorten it. */
  summaryIntervalMs?: number;
}

/** What Graphile Worker passes with its lines about a job (`Completed task …`, `Failed task …`). */
interface JobMeta {
  job?: Job;
  duration?: number;
  success?: boolean;
  failure?: boolean;
  error?: unknown;
  [key: string]: unknown;
}

const METHOD = { error: 'error', warning: 'warn', info: 'info', debug: 'debug' } as const;

/**
 * Graphile Worker's log lines on pino. A finished job is one short line: task, job id, attempts,
 * duration and outcome. A success is at debug: the delivery wake-ups alone succeed about once a
 * second, which buried everything else at info (the worker's summary line says how many ran); a
 * failed attempt is at error. The job row itself (its payload, which can be large and can hold
 * customer data) is logged only at debug.
 */
export function graphileLogger(log: Pino): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const { job, error, ...rest } = (meta ?? {}) as JobMeta;
    if (job && (rest.success || rest.failure)) return logOutcome(log, job, rest.duration ?? 0, error);
    const fields = {
      ...(scope.label ? { scope: scope.label } : {}),
      ...(scope.workerId ? { worker: scope.workerId } : {}),
      ...(scope.taskIdentifier ? { task: scope.taskIdentifier } : {}),
      ...(scope.jobId ? { job_id: scope.jobId } : {}),
      ...rest,
      ...(job ? jobFields(log, job) : {}),
      // pino serializes `err` (message, stack); an Error under any other key prints as {}.
      ...(error === undefined ? {} : { err: error }),
    };
    log[METHOD[level] ?? 'info'](fields, message);
  });
}

function jobFields(log: Pino, job: Job) {
  return {
    task: job.task_identifier,
    job_id: job.id,
    attempts: job.attempts,
    max_attempts: job.max_attempts,
    ...(log.isLevelEnabled('debug') ? { payload: job.payload } : {}),
  };
}

function logOutcome(log: Pino, job: Job, duration: number, error: unknown) {
  const durationMs = Math.round(duration * 10) / 10;
  const attempt = `attempt ${job.attempts} of ${job.max_attempts}`;
  const line = { ...jobFields(log, job), duration_ms: durationMs };
  if (error === undefined) {
    log.debug(
      { ...line, outcome: 'succeeded' },
      `${job.task_identifier} job ${job.id} succeeded in ${durationMs}ms`,
    );
    return;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const next = job.attempts >= job.max_attempts ? 'no attempts left' : 'will retry';
  log.error(
    { ...line, outcome: 'failed', err },
    `${job.task_identifier} job ${job.id} failed in ${durationMs}ms (${attempt}, ${next}): ${err.message.split('\n')[0]}`,
  );
}

export async function startWorker(opts: WorkerOptions): Promise<Runner> {
  const work = createWorkerTasks(opts.orm, opts.mail, opts.webhooks, opts.exports);
  const log = opts.log.child({ component: 'worker' });
  // Our own pool, not Graphile's: Graphile ends its pool without waiting and drops its error
  // listener, so when PostgreSQL stops right after (npm start's shutdown) an idle connection's
  // "terminating connection" error had no listener and crashed the process.
  // Idle connections kept as the API's are (mikro-orm.config.ts): a burst of jobs after a quiet spell
  // otherwise ran on new backends, each faulting in every shared buffer page it first touched.
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.concurrency + 2,
    idleTimeoutMillis: 300_000,
  });
  const closed = (err: Error) => log.debug({ err }, 'worker connection closed');
  pool.on('error', closed);
  pool.on('connect', (client) => client.on('error', closed));
  // Ours rather than the runner's, so that the summary counts from the first job.
  const events: WorkerEvents = new EventEmitter();
  const summary = summarizeJobs(events, log, opts.summaryIntervalMs);
  const runner = await run({
    pgPool: pool,
    concurrency: opts.concurrency,
    taskList: work.tasks,
    crontab,
    logger: graphileLogger(log),
    events,
    noHandleSignals: true,
    pollInterval: 1000,
    // A stopping delivery run lets its attempts end (each within twice the deadline) and releases its
    // subscriptions; cut short, it would leave them held for their whole hold.
    gracefulShutdownAbortTimeout: 2 * opts.webhooks.timeoutMs + 5_000,
  }).catch((err: unknown) => {
    summary.stop();
    throw err;
  });
  // Deliveries a previous worker left mid-flight are taken again at once.
  await enqueueJob(runner, JOBS.deliverWebhooks, {}, { jobKey: JOBS.deliverWebhooks, jobKeyMode: 'replace' });
  void runner.promise.finally(() => {
    summary.stop();
    return closeWebhookAgents();
  });
  // A graceful stop waits for running jobs: the delivery run must end rather than drain a backlog.
  const stop = runner.stop.bind(runner);
  runner.stop = async () => {
    work.stopDelivering();
    await stop();
    // After the jobs the stop waited for, so that they are in the last line.
    summary.stop();
    await pool.end();
  };
  return runner;
}
