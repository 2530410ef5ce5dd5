import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { disable } from './delivery/disable-subscriptions.ts';
import { checkUrl, notFoundHook, one, subscription } from './queries.ts';
import type { UpdateWebhookInput } from './schemas.ts';

export async function updateWebhook(ctx: PartnerContext, input: UpdateWebhookInput) {
  const url = input.url === undefined ? undefined : await checkUrl(input.url, ctx.settings.webhooks);
  return ctx.em.transactional(async (tx) => {
    const current = await one(tx, ctx.actor, input.id);
    if (input.active === false && current.active) await disable(tx, [current.id], 'manual');
    const updated = await first(
      db(tx)
        .updateTable('webhook_subscriptions')
        .set({
          url,
          events: input.events,
          active: input.active,
          // Re-enabling starts afresh: no reason, no streak.
          ...(input.active === true && { disabled_reason: null, dead_letter_streak: 0 }),
          updated_at: sql`now()`,
        })
        .where('id', '=', input.id)
        .where(ownedBy(ctx.actor, 'webhook_subscriptions'))
        .returning(subscription),
    );
    if (!updated) throw notFoundHook(input.id);
    return { webhook: updated };
  });
}
