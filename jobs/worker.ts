import { Logger, type Runner, run } from 'graphile-worker';
import type { Logger as Pino } from 'pino';
import { enqueueJob, JOBS } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import type { MailSettings } from '../src/mail/send.ts';
import { closeWebhookAgents } from '../src/webhooks/send.ts';
import type { WebhookSettings } from '../src/webhooks/settings.ts';
import { createWorkerTasks, crontab } from './tasks.ts';

export interface WorkerOptions {
  orm: Orm;
  connectionString: string;
  concurrency: number;
  log: Pino;
  mail: MailSettings;
  webhooks: WebhookSettings;
}

function graphileLogger(log: Pino): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const method =
      level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : 'info';
    log[method]({ scope, ...meta }, message);
  });
}

export async function startWorker(opts: WorkerOptions): Promise<Runner> {
  const work = createWorkerTasks(opts.orm, opts.mail, opts.webhooks);
  const runner = await run({
    connectionString: opts.connectionString,
    concurrency: opts.concurrency,
    taskList: work.tasks,
    crontab,
    logger: graphileLogger(opts.log.child({ component: 'worker' })),
    noHandleSignals: true,
    pollInterval: 1000,
    // A stopping delivery run lets its attempts end (each within twice the deadline) and releases its
    // subscriptions; cut short, it would leave them held for their whole hold.
    gracefulShutdownAbortTimeout: 2 * opts.webhooks.timeoutMs + 5_000,
  });
  // Deliveries a previous worker left mid-flight are taken again at once.
  await enqueueJob(runner, JOBS.deliverWebhooks, {}, { jobKey: JOBS.deliverWebhooks, jobKeyMode: 'replace' });
  void runner.promise.finally(() => closeWebhookAgents());
  // A graceful stop waits for running jobs: the delivery run must end rather than drain a backlog.
  const stop = runner.stop.bind(runner);
  runner.stop = async () => {
    work.stopDelivering();
    return stop();
  };
  return runner;
}
