import type { EntityManager } from '@mikro-orm/postgresql';
import { idsOnlyData, onlyVariant } from '../events/ids-only.ts';
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
  const changes = items.map((item) =>
    Array.isArray(item?.variant_ids) ? (item.variant_ids as number[]) : null,
  );
  return { productId, variantId: onlyVariant(changes) };
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
  return fanOutToListingStores(em, productId, {
    events: [{ event: 'inventory.updated', data: idsOnlyData(productId, variantId) }],
    touchFeed: true,
  });
}
