import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import type { WebhookSettings } from '../src/settings.ts';
import { scheduleNextWake } from '../src/webhooks/delivery/next-wake.ts';
import { DeliveryRun } from '../src/webhooks/delivery/run.ts';

export interface DeliverWebhooks {
  task: Task;
  /** Shutdown: the run takes nothing more, so it ends once what is out is written and let go. */
  stop(): void;
}

/**
 * `deliver_webhooks` (no payload but the crontab's `_cron`): one delivery run per worker process, its
 * slots the process's. Runs of several processes share the work by subscription holds
 * (src/webhooks/delivery/round.ts).
 */
export function deliverWebhooksTask(orm: Orm, webhooks: WebhookSettings): DeliverWebhooks {
  let delivering: DeliveryRun | undefined;
  let stopped = false;
  const task: Task = async (payload, helpers) => {
    parseJobPayload(JOBS.deliverWebhooks, payload);
    if (stopped) return;
    // This process already delivers: tell its run to look again rather than start a second one.
    if (delivering) return delivering.poke();
    const run = new DeliveryRun(orm.em.fork(), webhooks);
    delivering = run;
    try {
      const n = await run.run();
      if (n) helpers.logger.debug(`webhooks: ${n} attempts`);
    } finally {
      delivering = undefined;
    }
    // After the run is unreachable: work a wake-up brought as it ended is due now, so a job follows.
    await scheduleNextWake(orm.em.fork());
  };
  return {
    task,
    stop() {
      stopped = true;
      delivering?.stop();
    },
  };
}
