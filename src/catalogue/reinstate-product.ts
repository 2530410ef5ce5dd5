import { db } from '../db/kysely.ts';
import { run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { queueProductChange } from './product-change-propagation.ts';
import { lockProduct } from './product-writes.ts';
import { scoreRange } from './readiness-scores.ts';
import type { ProductRef } from './schemas.ts';

/** Brings a withdrawn product back: its listings sell again and their stores get `product.updated`. */
export async function reinstateProduct(ctx: UseCaseContext, { productId }: ProductRef) {
  return ctx.em.transactional(async (tx) => {
    const product = await lockProduct(tx, productId);
    if (!product.withdrawn) {
      throw new AppError('conflict', 'NOT_WITHDRAWN', `Product ${productId} is not withdrawn`);
    }
    await run(
      db(tx)
        .updateTable('products')
        .set({ active: true, withdrawn_at: null, updated_at: sql`now()` })
        .where('id', '=', productId),
    );
    await scoreRange(tx, productId, productId);
    await queueProductChange(tx, { productId, event: EVENT.product.updated, feed: true });
    return { product_id: productId, withdrawn_at: null };
  });
}
