import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { dispatchPendingEvents } from '../src/events/dispatch.ts';
import { tracedFanOut } from '../src/events/traced-fan-out.ts';
import type { WebhookSettings } from '../src/settings.ts';
import { inJobSpan } from '../src/tracing/job-spans.ts';
import { webhookFanOut } from '../src/webhooks/fanout.ts';

/** `dispatch_events` (no payload): the outbox's pending events go to the webhook fan-out. */
export function dispatchEventsTask(orm: Orm, webhooks: WebhookSettings): Task {
  const fanOut = tracedFanOut(webhookFanOut(webhooks.coalesceWindowMs));
  return async (payload, helpers) => {
    parseJobPayload(JOBS.dispatchEvents, payload);
    const n = await inJobSpan(JOBS.dispatchEvents, [], () =>
      dispatchPendingEvents(orm.em.fork(), fanOut, (e) =>
        helpers.logger.debug(`event ${e.event} ${e.entity_id} (store ${e.store_id})`),
      ),
    );
    if (n) helpers.logger.info(`dispatched ${n} events`);
  };
}
