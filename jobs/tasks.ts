import type { Task, TaskList } from 'graphile-worker';
import { JOBS, type JobName } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import type { MailSettings } from '../src/mail/smtp-sender.ts';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings, type WebhookSettings } from '../src/settings.ts';
import { catalogueFanoutTask } from './catalogue-fanout.ts';
import { deliverWebhooksTask } from './deliver-webhooks.ts';
import { dispatchEventsTask } from './dispatch-events.ts';
import { exportPruneTask, exportRunTask } from './export-run.ts';
import { inventoryFanoutTask } from './inventory-fanout.ts';
import {
  pruneEventsTask,
  pruneIdempotencyKeysTask,
  pruneRateLimitsTask,
  readinessPassTask,
} from './maintenance.ts';
import { pruneRequestLogTask } from './prune-request-log.ts';
import { sendMailTask } from './send-mail.ts';
import { webhookCoalesceTask } from './webhook-coalesce.ts';

/**
 * Every Graphile task the service runs, one file each, under the names of src/db/jobs.ts; each parses
 * its payload with the job's schema (src/db/job-payloads.ts) before it does anything.
 */
export interface WorkerTasks {
  tasks: TaskList;
  /** Shutdown: the delivery run claims nothing more, so it ends once what is out is written. */
  stopDelivering(): void;
}

export function createTaskList(
  orm: Orm,
  mail: MailSettings,
  webhooks: WebhookSettings,
  exports: ExportSettings = DEFAULT_EXPORT_SETTINGS,
): TaskList {
  return createWorkerTasks(orm, mail, webhooks, exports).tasks;
}

export function createWorkerTasks(
  orm: Orm,
  mail: MailSettings,
  webhooks: WebhookSettings,
  exports: ExportSettings = DEFAULT_EXPORT_SETTINGS,
): WorkerTasks {
  const delivery = deliverWebhooksTask(orm, webhooks);
  const tasks: Record<JobName, Task> = {
    [JOBS.sendMail]: sendMailTask(orm, mail),
    [JOBS.inventoryFanout]: inventoryFanoutTask(orm),
    [JOBS.catalogueFanout]: catalogueFanoutTask(orm),
    [JOBS.pruneRateLimits]: pruneRateLimitsTask(orm),
    [JOBS.pruneIdempotencyKeys]: pruneIdempotencyKeysTask(orm),
    [JOBS.pruneEvents]: pruneEventsTask(orm),
    [JOBS.dispatchEvents]: dispatchEventsTask(orm, webhooks),
    [JOBS.webhookCoalesce]: webhookCoalesceTask(orm),
    [JOBS.deliverWebhooks]: delivery.task,
    [JOBS.readinessPass]: readinessPassTask(orm),
    [JOBS.pruneRequestLog]: pruneRequestLogTask(orm),
    [JOBS.runExport]: exportRunTask(orm, exports),
    [JOBS.pruneExports]: exportPruneTask(orm, exports),
  };
  return { tasks, stopDelivering: delivery.stop };
}

/**
 * Deliveries also get a look every minute, so those a crashed worker was sending are retaken even if
 * nothing else wakes the queue. The readiness pass runs nightly at 03:00 UTC (`?fill=6h` runs a missed
 * pass once if the worker was down then); expired rate-limit windows and idempotency keys are dropped
 * hourly, and so are events past the event log's 30 days, requests past the request log's 7, and
 * export files past their retention.
 */
export const crontab = [
  `0 3 * * * ${JOBS.readinessPass} ?fill=6h`,
  `17 * * * * ${JOBS.pruneRateLimits}`,
  `23 * * * * ${JOBS.pruneIdempotencyKeys}`,
  `41 * * * * ${JOBS.pruneEvents}`,
  `47 * * * * ${JOBS.pruneRequestLog}`,
  `53 * * * * ${JOBS.pruneExports}`,
  `* * * * * ${JOBS.deliverWebhooks}`,
].join('\n');
