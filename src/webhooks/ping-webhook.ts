import { ownedBy } from '../db/owned-by.ts';
import { rows, sql } from '../db/sql.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { createWebhookEvents } from './fanout.ts';
import { DELIVERY, oneActive } from './queries.ts';
import type { DeliverySummary, WebhookPathInput } from './schemas.ts';

/** Sends `webhook.ping` to this subscription alone, whatever events it asked for. */
export async function pingWebhook(ctx: PartnerContext, { id }: WebhookPathInput) {
  const storeId = ctx.actor.storeId;
  return ctx.em.transactional(async (tx) => {
    await oneActive(tx, ctx.actor, id);
    const now = new Date();
    await createWebhookEvents(tx, [
      {
        storeId,
        event: EVENT.webhook.ping,
        eventKey: `${EVENT.webhook.ping}:${id}.${now.getTime()}`,
        createdAt: now.toISOString(),
        data: { webhook_id: id },
        subscriptionId: id,
        livemode: ctx.actor.livemode,
      },
    ]);
    const [d] = await rows<DeliverySummary>(
      tx,
      sql`SELECT ${DELIVERY} FROM webhook_deliveries d
        JOIN webhook_events e ON e.id = d.event_id AND ${ownedBy(ctx.actor, 'webhook_events as e')}
        WHERE d.subscription_id = ${id} AND e.event = ${EVENT.webhook.ping} ORDER BY d.id DESC LIMIT 1`,
    );
    if (!d) throw new Error('the ping delivery was not created');
    return { delivery: d };
  });
}
