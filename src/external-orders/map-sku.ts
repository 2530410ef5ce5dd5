import { db } from '../db/kysely.ts';
import { run } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { MapSkuInput } from './schemas.ts';

/** Maps a marketplace SKU to a product (and variant) for a store; a single-variant product needs no variant. */
export async function mapSku(ctx: UseCaseContext, { storeId, sku, productId, variantId }: MapSkuInput) {
  return ctx.em.transactional(async (tx) => {
    const variants = await run(
      db(tx)
        .selectFrom('product_variants as v')
        .innerJoin('products as p', 'p.id', 'v.product_id')
        .select('v.id')
        .where('v.product_id', '=', productId)
        .where('v.retired_at', 'is', null)
        .where((eb) => eb.or([eb('p.owner_store_id', 'is', null), eb('p.owner_store_id', '=', storeId)]))
        .orderBy('v.position')
        .orderBy('v.id'),
    );
    const variant =
      variantId === undefined
        ? variants.length === 1
          ? variants[0]?.id
          : undefined
        : variants.find((v) => v.id === variantId)?.id;
    if (variant === undefined) {
      throw notFound(
        variants.length
          ? `Name one of the variants of product ${productId}`
          : `No catalogue product with id ${productId}`,
        variants.length ? 'VARIANT_NOT_FOUND' : 'PRODUCT_NOT_FOUND',
      );
    }
    await run(
      db(tx)
        .insertInto('sku_mappings')
        .values({ store_id: storeId, sku, product_id: productId, variant_id: variant })
        .onConflict((oc) =>
          oc.columns(['store_id', 'sku']).doUpdateSet((eb) => ({
            product_id: eb.ref('excluded.product_id'),
            variant_id: eb.ref('excluded.variant_id'),
          })),
        ),
    );
    return { store_id: storeId, sku, product_id: productId, variant_id: variant };
  });
}
