import { db } from '../db/kysely.ts';
import { first, run } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { subscription } from './queries.ts';
import type { ListStoreWebhooksInput, Webhook } from './schemas.ts';

/**
 * A store's webhook subscriptions for operators (the CLI's `webhooks:list`): the partner's own list,
 * with why a disabled one was switched off and its failure streak; the signing secret is never read.
 */
export async function listStoreWebhooks(
  ctx: Pick<UseCaseContext, 'em'>,
  { storeId }: ListStoreWebhooksInput,
) {
  const store = await first(db(ctx.em).selectFrom('stores').select('id').where('id', '=', storeId));
  if (!store) throw notFound(`No store with id ${storeId}`, 'STORE_NOT_FOUND');
  const webhooks: Webhook[] = await run(
    db(ctx.em)
      .selectFrom('webhook_subscriptions')
      .select(subscription)
      .where('store_id', '=', storeId)
      .orderBy('id'),
  );
  return { store_id: storeId, webhooks };
}
