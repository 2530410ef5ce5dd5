import type { TaskList } from 'graphile-worker';
import type { Orm } from '../server/orm.ts';
import { runReadinessPass } from '../src/catalogue/readiness.ts';
import { dispatchPendingEvents } from '../src/events/dispatch.ts';
import { type MailSettings, sendQueuedMail } from '../src/mail/send.ts';

/** Every Graphile task the service runs. Each forks its own unit of work. */
export function createTaskList(orm: Orm, mail: MailSettings): TaskList {
  return {
    send_mail: async (_payload, helpers) => {
      const c = await sendQueuedMail(orm.em.fork(), mail);
      if (c.sent + c.held + c.failed + c.retrying) {
        helpers.logger.info(
          `mail: ${c.sent} sent, ${c.held} held (no SMTP), ${c.failed} failed, ${c.retrying} to retry`,
        );
      }
    },
    dispatch_events: async (_payload, helpers) => {
      const n = await dispatchPendingEvents(orm.em.fork(), (e) =>
        helpers.logger.debug(`event ${e.event} ${e.entity_id} (store ${e.store_id})`),
      );
      if (n) helpers.logger.info(`dispatched ${n} events`);
    },
    readiness_pass: async (_payload, helpers) => {
      const result = await runReadinessPass(orm.em.fork());
      helpers.logger.info(`readiness pass scored ${result.products} products`);
    },
  };
}

/** Nightly at 03:00 UTC; `?fill=6h` runs a missed pass once if the worker was down at that time. */
export const crontab = '0 3 * * * readiness_pass ?fill=6h';
