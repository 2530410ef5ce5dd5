import { ownedBy } from '../db/owned-by.ts';
import { rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { wakeDeliveries } from './delivery/wake-deliveries.ts';
import { DELIVERY, oneActive } from './queries.ts';
import type { DeliverySummary, ResendInput } from './schemas.ts';

/** Queues the event again for this subscription: a new round of attempts, starting now. */
export async function resendDelivery(ctx: PartnerContext, { id, deliveryId }: ResendInput) {
  return ctx.em.transactional(async (tx) => {
    await oneActive(tx, ctx.actor, id);
    // The subscription first, then its delivery: the order of every writer (the due trigger below
    // takes the subscription's lock too), so a resend never deadlocks with a write of attempts.
    await rows(
      tx,
      sql`SELECT 1 FROM webhook_subscriptions WHERE id = ${id} AND ${ownedBy(ctx.actor, 'webhook_subscriptions')}
      FOR NO KEY UPDATE`,
    );
    const [d] = await rows<DeliverySummary>(
      tx,
      sql`WITH again AS (
          UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = now(),
            updated_at = now()
          WHERE id = ${deliveryId} AND subscription_id = ${id} AND status <> 'pending'
          RETURNING *
        ), current AS (
          SELECT * FROM again
          UNION ALL
          SELECT * FROM webhook_deliveries WHERE id = ${deliveryId} AND subscription_id = ${id}
            AND NOT EXISTS (SELECT 1 FROM again)
        )
        SELECT ${DELIVERY} FROM current d
          JOIN webhook_events e ON e.id = d.event_id AND ${ownedBy(ctx.actor, 'webhook_events as e')}`,
    );
    if (!d) throw notFound(`No delivery ${deliveryId} for webhook subscription ${id}`, 'DELIVERY_NOT_FOUND');
    await wakeDeliveries(tx);
    return { delivery: d };
  });
}
