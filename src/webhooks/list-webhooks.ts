import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { run } from '../db/sql.ts';
import { EVENT_NAMES } from '../events/vocabulary/index.ts';
import type { PartnerContext } from '../trpc/context.ts';
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
  return { webhooks, valid_events: [...EVENT_NAMES] };
}
