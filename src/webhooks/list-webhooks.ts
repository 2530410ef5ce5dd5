import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { run } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { WEBHOOK_EVENTS } from './events.ts';
import { subscription } from './queries.ts';
import type { Webhook } from './schemas.ts';

export async function listWebhooks(ctx: PartnerContext) {
  const webhooks: Webhook[] = await run(
    db(ctx.em)
      .selectFrom('webhook_subscriptions')
      .select(subscription)
      .where(ownedBy(ctx.actor, 'webhook_subscriptions'))
      .orderBy('id'),
  );
  return { webhooks, valid_events: [...WEBHOOK_EVENTS] };
}
