import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { queueProductChange } from './change-fanout.ts';
import { scoreRange } from './readiness.ts';
import { lockProduct } from './update-product.ts';
import { liveVariant } from './update-variant.ts';

/**
 * Retires a variant: it can no longer be ordered and leaves every read, but its row stays for the
 * order lines that name it. Its stock goes to zero in the same statement, so the product's stock
 * and every listing store's feed follow as for any stock change (`inventory.updated` naming it).
 */
export async function retireVariant(em: EntityManager, productId: number, variantId: number) {
  return em.transactional(async (tx) => {
    await lockProduct(tx, productId);
    await liveVariant(tx, productId, variantId);
    const [left] = await rows<{ n: number }>(
      tx,
      sql`SELECT count(*)::integer AS n FROM product_variants WHERE product_id = ${productId} AND retired_at IS NULL`,
    );
    if ((left?.n ?? 0) <= 1) {
      throw new AppError(
        'conflict',
        'LAST_VARIANT',
        `Variant ${variantId} is the last one of product ${productId}: withdraw the product instead`,
      );
    }
    await rows(
      tx,
      sql`UPDATE product_variants SET retired_at = now(), stock_quantity = 0 WHERE id = ${variantId}`,
    );
    await rows(tx, sql`UPDATE products SET updated_at = now() WHERE id = ${productId}`);
    await scoreRange(tx, productId, productId);
    await queueProductChange(tx, {
      productId,
      event: 'product.updated',
      variantIds: [variantId],
      feed: true,
    });
    return { product_id: productId, variant_id: variantId };
  });
}
