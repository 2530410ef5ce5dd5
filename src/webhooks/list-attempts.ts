import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { isoTime, run, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { DELIVERY_LOG_SIZE } from './limits.ts';
import { one } from './queries.ts';
import type { WebhookPathInput } from './schemas.ts';

/** The last 100 attempts, newest first. */
export async function listAttempts(ctx: PartnerContext, { id }: WebhookPathInput) {
  await one(ctx.em, ctx.actor, id);
  const deliveries = await run(
    db(ctx.em)
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .innerJoin('webhook_events as e', (join) =>
        join.onRef('e.id', '=', 'd.event_id').on(ownedBy(ctx.actor, 'webhook_events as e')),
      )
      .select((eb) => [
        sql<number>`a.id::integer`.as('id'),
        sql<number>`a.delivery_id::integer`.as('delivery_id'),
        'e.event',
        'e.event_key',
        'a.attempt',
        'a.outcome',
        'a.response_status',
        'a.error',
        'a.duration_ms',
        isoTime(eb.ref('a.next_attempt_at')).as('next_attempt_at'),
        isoTime(eb.ref('a.created_at')).as('created_at'),
      ])
      .where('a.subscription_id', '=', id)
      .orderBy('a.id', 'desc')
      .limit(DELIVERY_LOG_SIZE),
  );
  return { deliveries };
}
