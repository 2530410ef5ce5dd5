import type { TaskList } from 'graphile-worker';
import { runProductFanout } from '../src/catalogue/change-fanout.ts';
import { runReadinessPass } from '../src/catalogue/readiness.ts';
import type { Orm } from '../src/db/orm.ts';
import { dispatchPendingEvents } from '../src/events/dispatch.ts';
import { fanOutStock, parseFanoutPayload } from '../src/inventory/fanout.ts';
import { type MailSettings, sendQueuedMail } from '../src/mail/send.ts';
import { invoiceAttachments } from '../src/orders/invoice.ts';
import { pruneLimits } from '../src/ratelimit/limiter.ts';
import { scheduleNextWake } from '../src/webhooks/delivery-queries.ts';
import { DeliveryRun } from '../src/webhooks/delivery-run.ts';
import { closeCoalescingWindow, webhookFanOut } from '../src/webhooks/fanout.ts';
import type { WebhookSettings } from '../src/webhooks/settings.ts';

/** Every Graphile task the service runs. Each forks its own unit of work. */
export interface WorkerTasks {
  tasks: TaskList;
  /** Shutdown: the delivery run claims nothing more, so it ends once what is out is written. */
  stopDelivering(): void;
}

export function createTaskList(orm: Orm, mail: MailSettings, webhooks: WebhookSettings): TaskList {
  return createWorkerTasks(orm, mail, webhooks).tasks;
}

export function createWorkerTasks(orm: Orm, mail: MailSettings, webhooks: WebhookSettings): WorkerTasks {
  // One delivery run per worker process: its slots are the process's. Runs of several processes share
  // the due deliveries by row claims (src/webhooks/delivery-queries.ts).
  let delivering: DeliveryRun | undefined;
  let stopped = false;
  const tasks: TaskList = {
    send_mail: async (_payload, helpers) => {
      const c = await sendQueuedMail(orm.em.fork(), mail, invoiceAttachments(mail.merchant));
      if (c.sent + c.held + c.failed + c.retrying) {
        helpers.logger.info(
          `mail: ${c.sent} sent, ${c.held} held (no SMTP), ${c.failed} failed, ${c.retrying} to retry`,
        );
      }
    },
    inventory_fanout: async (payload, helpers) => {
      const parsed = parseFanoutPayload(payload);
      if (!parsed) throw new Error('inventory_fanout needs a numeric product_id');
      const stores = await fanOutStock(orm.em.fork(), parsed.productId, parsed.variantId);
      helpers.logger.debug(`stock of product ${parsed.productId} reached ${stores} stores`);
    },
    catalogue_fanout: async (payload, helpers) => {
      const stores = await runProductFanout(orm.em.fork(), payload);
      helpers.logger.debug(`a catalogue change reached ${stores} stores`);
    },
    prune_rate_limits: async () => {
      await pruneLimits(orm.em.fork());
    },
    dispatch_events: async (_payload, helpers) => {
      const n = await dispatchPendingEvents(orm.em.fork(), webhookFanOut(webhooks.coalesceWindowMs), (e) =>
        helpers.logger.debug(`event ${e.event} ${e.entity_id} (store ${e.store_id})`),
      );
      if (n) helpers.logger.info(`dispatched ${n} events`);
    },
    webhook_coalesce: async (payload) => {
      await closeCoalescingWindow(orm.em.fork(), payload);
    },
    deliver_webhooks: async (_payload, helpers) => {
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
    },
    readiness_pass: async (_payload, helpers) => {
      const result = await runReadinessPass(orm.em.fork());
      helpers.logger.info(`readiness pass scored ${result.products} products`);
    },
  };
  return {
    tasks,
    stopDelivering() {
      stopped = true;
      delivering?.stop();
    },
  };
}

/**
 * Deliveries also get a look every minute, so those a crashed worker was sending are retaken even if
 * nothing else wakes the queue. The readiness pass runs nightly at 03:00 UTC (`?fill=6h` runs a missed
 * pass once if the worker was down then); expired rate-limit windows are dropped hourly.
 */
export const crontab = [
  '0 3 * * * readiness_pass ?fill=6h',
  '17 * * * * prune_rate_limits',
  '* * * * * deliver_webhooks',
].join('\n');
