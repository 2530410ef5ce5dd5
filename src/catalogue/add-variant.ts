import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, run } from '../db/sql.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { queueProductChange } from './product-change-propagation.ts';
import { lockProduct, touchProduct } from './product-writes.ts';
import { scoreRange } from './readiness-scores.ts';
import type { AddVariantInput } from './schemas.ts';
import { ensureFreeSku, fitOptions } from './variant-options.ts';

/** The new variant, priced like the product where the input names no price, after its last variant. */
async function insertVariant(tx: EntityManager, input: AddVariantInput): Promise<number> {
  const variant = await first(
    db(tx)
      .insertInto('product_variants')
      .columns([
        'product_id',
        'sku',
        'title',
        'option_values',
        'wholesale_price_cents',
        'retail_price_cents',
        'stock_quantity',
        'position',
      ])
      .expression((eb) =>
        eb
          .selectFrom('products as p')
          .select((eb) => [
            'p.id',
            eb.val(input.sku).as('sku'),
            eb.val(input.title).as('title'),
            eb.cast(eb.val(JSON.stringify(input.option_values)), 'jsonb').as('option_values'),
            eb.fn
              .coalesce(eb.val(input.wholesale_price_cents ?? null), 'p.wholesale_price_cents')
              .as('wholesale_price_cents'),
            eb.fn
              .coalesce(eb.val(input.retail_price_cents ?? null), 'p.retail_price_cents')
              .as('retail_price_cents'),
            eb.lit(0).as('stock_quantity'),
            eb.fn
              .coalesce(
                eb
                  .selectFrom('product_variants')
                  .select((eb) => eb(eb.fn.max('position'), '+', eb.lit(1)).as('next'))
                  .whereRef('product_id', '=', 'p.id'),
                eb.lit(1),
              )
              .as('position'),
          ])
          .where('p.id', '=', input.productId),
      )
      .returning('id'),
  );
  if (!variant) throw new Error(`product ${input.productId} took no variant`);
  return variant.id;
}

/**
 * Adds a variant to a catalogue product, priced like the product unless priced on its own. Its
 * stock is set by a second statement so the stock change reaches the stores as any supplier update
 * does (`inventory.updated`); the new variant itself is a `product.updated` naming it.
 */
export async function addVariant(ctx: UseCaseContext, input: AddVariantInput) {
  return ctx.em.transactional(async (tx) => {
    await lockProduct(tx, input.productId);
    await ensureFreeSku(tx, input.sku);
    await fitOptions(tx, input.productId, input.option_values);
    const variantId = await insertVariant(tx, input);
    if (input.stock > 0) {
      await run(
        db(tx)
          .updateTable('product_variants')
          .set({ stock_quantity: input.stock })
          .where('id', '=', variantId),
      );
    }
    await touchProduct(tx, input.productId);
    await scoreRange(tx, input.productId, input.productId);
    await queueProductChange(tx, {
      productId: input.productId,
      event: EVENT.product.updated,
      variantIds: [variantId],
      feed: true,
    });
    return { product_id: input.productId, variant_id: variantId };
  });
}
