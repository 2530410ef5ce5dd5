import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, run } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { queueProductChange } from './change-fanout.ts';
import type { UpdateVariantInput } from './maintenance-schemas.ts';
import { lockProduct, touchProduct } from './update-product.ts';
import { ensureFreeSku, fitOptions } from './variant-options.ts';

/** A live variant of the (locked) product, or the reason it cannot be changed. */
export async function liveVariant(tx: EntityManager, productId: number, variantId: number) {
  const variant = await first(
    db(tx)
      .selectFrom('product_variants')
      .select((eb) => ['id', eb('retired_at', 'is not', null).as('retired')])
      .where('id', '=', variantId)
      .where('product_id', '=', productId)
      .forUpdate(),
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
    await run(
      db(tx)
        .updateTable('product_variants')
        .set({
          sku: input.sku,
          title: input.title,
          option_values: input.option_values && JSON.stringify(input.option_values),
          wholesale_price_cents: input.wholesale_price_cents,
          retail_price_cents: input.retail_price_cents,
        })
        .where('id', '=', input.variantId),
    );
    await touchProduct(tx, input.productId);
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
