import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { notFoundHook } from './queries.ts';
import type { WebhookPathInput } from './schemas.ts';

export async function deleteWebhook(ctx: PartnerContext, { id }: WebhookPathInput) {
  const gone = await first(
    db(ctx.em)
      .deleteFrom('webhook_subscriptions')
      .where('id', '=', id)
      .where(ownedBy(ctx.actor, 'webhook_subscriptions'))
      .returning('id'),
  );
  if (!gone) throw notFoundHook(id);
  return { message: `Webhook subscription ${id} deleted` };
}
