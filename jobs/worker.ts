import { Logger, type Runner, run } from 'graphile-worker';
import type { Logger as Pino } from '../server/logger.ts';
import type { Orm } from '../server/orm.ts';
import type { MailSettings } from '../src/mail/send.ts';
import { createTaskList, crontab } from './tasks.ts';

export interface WorkerOptions {
  orm: Orm;
  connectionString: string;
  concurrency: number;
  log: Pino;
  mail: MailSettings;
}

function graphileLogger(log: Pino): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const method =
      level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : 'info';
    log[method]({ scope, ...meta }, message);
  });
}

export async function startWorker(opts: WorkerOptions): Promise<Runner> {
  return run({
    connectionString: opts.connectionString,
    concurrency: opts.concurrency,
    taskList: createTaskList(opts.orm, opts.mail),
    crontab,
    logger: graphileLogger(opts.log.child({ component: 'worker' })),
    noHandleSignals: true,
    pollInterval: 1000,
  });
}
