import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../trpc/errors.ts';

/**
 * A supplier stock update: sets one variant's stock. The product's total follows by trigger, and
 * the same transaction enqueues the fan-out that brings the change to every store listing it.
 * `variantId` may be left out for a product with a single variant.
 */
export async function setStock(em: EntityManager, productId: number, quantity: number, variantId?: number) {
  return em.transactional(async (tx) => {
    const variants = await rows<{ id: number }>(
      tx,
      sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY position, id`,
    );
    if (!variants.length) throw notFound(`No catalogue product with id ${productId}`, 'PRODUCT_NOT_FOUND');
    let target = variantId;
    if (target === undefined) {
      if (variants.length > 1) {
        throw new AppError(
          'bad_request',
          'VARIANT_REQUIRED',
          `Product ${productId} has ${variants.length} variants: name one`,
        );
      }
      target = variants[0]?.id;
    } else if (!variants.some((v) => v.id === target)) {
      throw notFound(`Product ${productId} has no variant ${target}`, 'VARIANT_NOT_FOUND');
    }
    await rows(tx, sql`UPDATE product_variants SET stock_quantity = ${quantity} WHERE id = ${target}`);
    const [after] = await rows<{ stock_quantity: number }>(
      tx,
      sql`SELECT stock_quantity FROM products WHERE id = ${productId}`,
    );
    return {
      product_id: productId,
      variant_id: target as number,
      quantity,
      product_stock: after?.stock_quantity ?? 0,
    };
  });
}
