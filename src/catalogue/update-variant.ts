import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { queueProductChange } from './change-fanout.ts';
import type { UpdateVariantInput } from './maintenance-schemas.ts';
import { lockProduct } from './update-product.ts';
import { ensureFreeSku, fitOptions } from './variant-options.ts';

/** A live variant of the (locked) product, or the reason it cannot be changed. */
export async function liveVariant(tx: EntityManager, productId: number, variantId: number) {
  const [variant] = await rows<{ id: number; retired: boolean }>(
    tx,
    sql`SELECT id, retired_at IS NOT NULL AS retired FROM product_variants
      WHERE id = ${variantId} AND product_id = ${productId} FOR UPDATE`,
  );
  if (!variant) throw notFound(`Product ${productId} has no variant ${variantId}`, 'VARIANT_NOT_FOUND');
  if (variant.retired) throw new AppError('conflict', 'VARIANT_RETIRED', `Variant ${variantId} is retired`);
  return variant;
}

/** Changes one variant: its stores get `product.updated` naming it. */
export async function updateVariant(em: EntityManager, input: UpdateVariantInput) {
  return em.transactional(async (tx) => {
    await lockProduct(tx, input.productId);
    await liveVariant(tx, input.productId, input.variantId);
    if (input.sku !== undefined) await ensureFreeSku(tx, input.sku, input.variantId);
    if (input.option_values !== undefined)
      await fitOptions(tx, input.productId, input.option_values, input.variantId);
    const set: RawBuilder<unknown>[] = [];
    if (input.sku !== undefined) set.push(sql`sku = ${input.sku}`);
    if (input.title !== undefined) set.push(sql`title = ${input.title}`);
    if (input.option_values !== undefined)
      set.push(sql`option_values = ${JSON.stringify(input.option_values)}::jsonb`);
    if (input.wholesale_price_cents !== undefined)
      set.push(sql`wholesale_price_cents = ${input.wholesale_price_cents}`);
    if (input.retail_price_cents !== undefined)
      set.push(sql`retail_price_cents = ${input.retail_price_cents}`);
    await rows(tx, sql`UPDATE product_variants SET ${sql.join(set)} WHERE id = ${input.variantId}`);
    await rows(tx, sql`UPDATE products SET updated_at = now() WHERE id = ${input.productId}`);
    const shownInFeed =
      input.sku !== undefined || input.title !== undefined || input.option_values !== undefined;
    await queueProductChange(tx, {
      productId: input.productId,
      event: 'product.updated',
      variantIds: [input.variantId],
      feed: shownInFeed,
    });
    return { product_id: input.productId, variant_id: input.variantId };
  });
}
