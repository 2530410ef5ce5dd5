import type { EntityManager } from '@mikro-orm/postgresql';
import { idsOnlyData } from '../events/ids-only.ts';
import { fanOutToListingStores } from '../events/listing-stores.ts';
import { EVENT } from '../events/vocabulary/index.ts';

/**
 * The product an `inventory_fanout` job names, and the variants its payload itself names: the
 * `{ product_id }` the stock trigger queues names none (the change waits in inventory_fanout_pending
 * for a drain), the array payloads queued before Migration20261128050000_inventory_fanout_pending
 * name theirs and are fanned out as before.
 */
export function parseFanoutPayload(
  payload: unknown,
): { productId: number; changes: (readonly number[] | null)[] } | null {
  if (!Array.isArray(payload)) {
    const productId = (payload as { product_id?: unknown } | null)?.product_id;
    return typeof productId === 'number' ? { productId, changes: [] } : null;
  }
  const items = payload as { product_id?: unknown; variant_ids?: unknown }[];
  const productId = items[0]?.product_id;
  if (typeof productId !== 'number') return null;
  const changes = items.map((item) =>
    Array.isArray(item?.variant_ids) ? (item.variant_ids as number[]) : null,
  );
  return { productId, changes };
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
    events: [{ event: EVENT.inventory.updated, data: idsOnlyData(productId, variantId) }],
    touchFeed: true,
  });
}
