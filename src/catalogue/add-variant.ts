import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { queueProductChange } from './change-fanout.ts';
import type { AddVariantInput } from './maintenance-schemas.ts';
import { scoreRange } from './readiness.ts';
import { lockProduct } from './update-product.ts';
import { ensureFreeSku, fitOptions } from './variant-options.ts';

/**
 * Adds a variant to a catalogue product, priced like the product unless priced on its own. Its
 * stock is set by a second statement so the stock change reaches the stores as any supplier update
 * does (`inventory.updated`); the new variant itself is a `product.updated` naming it.
 */
export async function addVariant(em: EntityManager, input: AddVariantInput) {
  return em.transactional(async (tx) => {
    await lockProduct(tx, input.productId);
    await ensureFreeSku(tx, input.sku);
    await fitOptions(tx, input.productId, input.option_values);
    const [variant] = await rows<{ id: number }>(
      tx,
      sql`INSERT INTO product_variants (product_id, sku, title, option_values, wholesale_price_cents,
          retail_price_cents, stock_quantity, position)
        SELECT p.id, ${input.sku}, ${input.title}, ${JSON.stringify(input.option_values)}::jsonb,
          COALESCE(${input.wholesale_price_cents ?? null}::integer, p.wholesale_price_cents),
          COALESCE(${input.retail_price_cents ?? null}::integer, p.retail_price_cents), 0,
          COALESCE((SELECT max(position) + 1 FROM product_variants WHERE product_id = p.id), 1)
        FROM products p WHERE p.id = ${input.productId}
        RETURNING id`,
    );
    const variantId = variant?.id as number;
    if (input.stock > 0) {
      await rows(
        tx,
        sql`UPDATE product_variants SET stock_quantity = ${input.stock} WHERE id = ${variantId}`,
      );
    }
    await rows(tx, sql`UPDATE products SET updated_at = now() WHERE id = ${input.productId}`);
    await scoreRange(tx, input.productId, input.productId);
    await queueProductChange(tx, {
      productId: input.productId,
      event: 'product.updated',
      variantIds: [variantId],
      feed: true,
    });
    return { product_id: input.productId, variant_id: variantId };
  });
}
