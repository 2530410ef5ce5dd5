import type { EntityManager } from '@mikro-orm/postgresql';
import { fanOutToListingStores } from '../events/listing-stores.ts';

/**
 * What a (possibly merged) `inventory_fanout` payload says: the product, and the variant when exactly
 * one variant changed. Accepts the older single-object payload too.
 */
export function parseFanoutPayload(payload: unknown): { productId: number; variantId: number | null } | null {
  const items = (Array.isArray(payload) ? payload : [payload]) as {
    product_id?: unknown;
    variant_ids?: unknown;
  }[];
  const productId = items[0]?.product_id;
  if (typeof productId !== 'number') return null;
  const variants = new Set<number>();
  let unknownVariant = false;
  for (const item of items) {
    if (!Array.isArray(item?.variant_ids)) unknownVariant = true;
    else for (const v of item.variant_ids) variants.add(Number(v));
  }
  const only = !unknownVariant && variants.size === 1 ? ([...variants][0] ?? null) : null;
  return { productId, variantId: only };
}

/**
 * A product's stock changed: every store that lists it gets the product at the head of its feed and
 * an `inventory.updated` event, in batches of stores (see fanOutToListingStores).
 */
export async function fanOutStock(
  em: EntityManager,
  productId: number,
  variantId: number | null = null,
): Promise<number> {
  const data =
    variantId === null ? { product_id: productId } : { product_id: productId, variant_id: variantId };
  return fanOutToListingStores(em, productId, {
    events: [{ event: 'inventory.updated', data }],
    touchFeed: true,
  });
}
