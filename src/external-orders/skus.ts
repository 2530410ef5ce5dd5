import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';

/** Maps a marketplace SKU to a product (and variant) for a store; a single-variant product needs no variant. */
export async function mapSku(
  em: EntityManager,
  storeId: number,
  sku: string,
  productId: number,
  variantId?: number,
) {
  return em.transactional(async (tx) => {
    const variants = await rows<{ id: number }>(
      tx,
      sql`SELECT v.id FROM product_variants v JOIN products p ON p.id = v.product_id
        WHERE v.product_id = ${productId} AND v.retired_at IS NULL
          AND (p.owner_store_id IS NULL OR p.owner_store_id = ${storeId})
        ORDER BY v.position, v.id`,
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
    await rows(
      tx,
      sql`INSERT INTO sku_mappings (store_id, sku, product_id, variant_id) VALUES (${storeId}, ${sku}, ${productId}, ${variant})
        ON CONFLICT (store_id, sku) DO UPDATE SET product_id = EXCLUDED.product_id, variant_id = EXCLUDED.variant_id`,
    );
    return { store_id: storeId, sku, product_id: productId, variant_id: variant };
  });
}
