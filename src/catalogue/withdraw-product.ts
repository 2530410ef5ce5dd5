import { db } from '../db/kysely.ts';
import { first, isoTime, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { queueProductChange } from './product-change-propagation.ts';
import { lockProduct } from './product-writes.ts';
import { scoreRange } from './readiness-scores.ts';
import type { ProductRef } from './schemas.ts';

/**
 * Withdraws a product from the catalogue: it leaves the catalogue's reads at once, cannot be listed
 * or ordered, and every store that lists it gets `product.deleted`. The listings themselves are kept
 * (docs/decisions.md, "Catalogue maintenance"): they stay readable, marked `withdrawn_at`, with
 * nothing available to sell, and come back as they were if the product is reinstated.
 */
export async function withdrawProduct(ctx: UseCaseContext, { productId }: ProductRef) {
  return ctx.em.transactional(async (tx) => {
    const product = await lockProduct(tx, productId);
    if (product.withdrawn) {
      throw new AppError('conflict', 'ALREADY_WITHDRAWN', `Product ${productId} is already withdrawn`);
    }
    const row = await first(
      db(tx)
        .updateTable('products')
        .set({ active: false, withdrawn_at: sql`now()`, updated_at: sql`now()` })
        .where('id', '=', productId)
        .returning((eb) => isoTime(eb.ref('withdrawn_at')).as('withdrawn_at')),
    );
    await scoreRange(tx, productId, productId);
    await queueProductChange(tx, { productId, event: EVENT.product.deleted, feed: true });
    return { product_id: productId, withdrawn_at: row?.withdrawn_at ?? null };
  });
}
