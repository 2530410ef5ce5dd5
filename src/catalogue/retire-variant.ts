import { db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { queueProductChange } from './product-change-propagation.ts';
import { liveVariant, lockProduct, touchProduct } from './product-writes.ts';
import { scoreRange } from './readiness-scores.ts';
import type { VariantRef } from './schemas.ts';

/**
 * Retires a variant: it can no longer be ordered and leaves every read, but its row stays for the
 * order lines that name it. Its stock goes to zero in the same statement, so the product's stock
 * and every listing store's feed follow as for any stock change (`inventory.updated` naming it).
 */
export async function retireVariant(ctx: UseCaseContext, { productId, variantId }: VariantRef) {
  return ctx.em.transactional(async (tx) => {
    await lockProduct(tx, productId);
    await liveVariant(tx, productId, variantId);
    const left = await first(
      db(tx)
        .selectFrom('product_variants')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
        .where('product_id', '=', productId)
        .where('retired_at', 'is', null),
    );
    if ((left?.n ?? 0) <= 1) {
      throw new AppError(
        'conflict',
        'LAST_VARIANT',
        `Variant ${variantId} is the last one of product ${productId}: withdraw the product instead`,
      );
    }
    await run(
      db(tx)
        .updateTable('product_variants')
        .set({ retired_at: sql`now()`, stock_quantity: 0 })
        .where('id', '=', variantId),
    );
    await touchProduct(tx, productId);
    await scoreRange(tx, productId, productId);
    await queueProductChange(tx, {
      productId,
      event: EVENT.product.updated,
      variantIds: [variantId],
      feed: true,
    });
    return { product_id: productId, variant_id: variantId };
  });
}
