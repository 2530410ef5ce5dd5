import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, run } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { encryptSecret, newSigningSecret, secretsKey } from './delivery/signing-secrets.ts';
import { MAX_SUBSCRIPTIONS_PER_STORE } from './limits.ts';
import { checkUrl, subscription } from './queries.ts';
import type { CreateWebhookInput } from './schemas.ts';

export async function createWebhook(ctx: PartnerContext, input: CreateWebhookInput) {
  const s = ctx.settings.webhooks;
  const storeId = ctx.actor.storeId;
  const url = await checkUrl(input.url, s);
  const secret = newSigningSecret();
  return ctx.em.transactional(async (tx) => {
    // Serialises creates per store, so two at once cannot both be the tenth.
    await run(db(tx).selectFrom('stores').select('id').where('id', '=', storeId).forUpdate());
    const counted = await first(
      db(tx)
        .selectFrom('webhook_subscriptions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(ownedBy(ctx.actor, 'webhook_subscriptions')),
    );
    if (Number(counted?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_STORE) {
      throw new AppError(
        'conflict',
        'WEBHOOK_LIMIT_REACHED',
        `A store can have at most ${MAX_SUBSCRIPTIONS_PER_STORE} webhook subscriptions in each mode; delete one first`,
      );
    }
    const created = await first(
      db(tx)
        .insertInto('webhook_subscriptions')
        .values({
          store_id: storeId,
          livemode: ctx.actor.livemode,
          url,
          events: input.events,
          secret_encrypted: encryptSecret(secretsKey(s.secretKey), secret),
        })
        .returning(subscription),
    );
    if (!created) throw new Error('the subscription was not inserted');
    return { webhook: { ...created, secret } };
  });
}
