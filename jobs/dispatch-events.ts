import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { dispatchPendingEvents } from '../src/events/dispatch.ts';
import type { WebhookSettings } from '../src/settings.ts';
import { webhookFanOut } from '../src/webhooks/fanout.ts';

/** `dispatch_events` (no payload): the outbox's pending events go to the webhook fan-out. */
export function dispatchEventsTask(orm: Orm, webhooks: WebhookSettings): Task {
  return async (payload, helpers) => {
    parseJobPayload(JOBS.dispatchEvents, payload);
    const n = await dispatchPendingEvents(orm.em.fork(), webhookFanOut(webhooks.coalesceWindowMs), (e) =>
      helpers.logger.debug(`event ${e.event} ${e.entity_id} (store ${e.store_id})`),
    );
    if (n) helpers.logger.info(`dispatched ${n} events`);
  };
}
