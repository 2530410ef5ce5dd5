import { db } from '../db/kysely.ts';
import { run } from '../db/sql.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { queueProductChange } from './product-change-propagation.ts';
import { liveVariant, lockProduct, rememberWholesalePrice, touchProduct } from './product-writes.ts';
import type { UpdateVariantInput } from './schemas.ts';
import { ensureFreeSku, fitOptions } from './variant-options.ts';

/** Changes one variant: its stores get `product.updated` naming it. */
export async function updateVariant(ctx: UseCaseContext, input: UpdateVariantInput) {
  return ctx.em.transactional(async (tx) => {
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
          ...rememberWholesalePrice(input.wholesale_price_cents),
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
      event: EVENT.product.updated,
      variantIds: [input.variantId],
      feed: shownInFeed,
    });
    return { product_id: input.productId, variant_id: input.variantId };
  });
}
