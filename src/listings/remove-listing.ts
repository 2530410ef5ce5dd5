import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { run, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { productEvent } from './queries.ts';
import type { ProductPathInput } from './schemas.ts';

export async function removeListing(ctx: PartnerContext, { productId }: ProductPathInput) {
  const { storeId } = ctx.actor;
  return ctx.em.transactional(async (tx) => {
    const removed = await run(
      db(tx)
        .updateTable('listings')
        .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
        .where(ownedBy({ storeId }, 'listings'))
        .where('product_id', '=', productId)
        .where('deleted_at', 'is', null)
        .returning('id'),
    );
    if (removed.length === 0) throw notFound(`Product ${productId} is not in your store`, 'NOT_IN_STORE');
    await recordEvents(tx, [productEvent(storeId, EVENT.product.deleted, productId)]);
    return { message: 'Product removed from your store' };
  });
}
