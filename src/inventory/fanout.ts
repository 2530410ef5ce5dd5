import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { idsOnlyData, onlyVariant } from '../events/ids-only.ts';
import { fanOutToListingStores } from '../events/listing-stores.ts';

/**
 * The product an `inventory_fanout` job names, and the variants its payload itself names: the
 * `{ product_id }` the stock trigger queues names none (they wait in inventory_fanout_pending), the
 * array payloads queued before Migration20261128050000_inventory_fanout_pending name theirs.
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
 * Takes the product's waiting stock change (see the migration above) and says which variant the
 * fan-out names: the one every change touched, or null. A job finding no row (an earlier run took
 * a change committed while it ran, or a retry after its first attempt took it) still fans out,
 * naming no variant: a repeated `inventory.updated` is harmless, a missed one is not.
 */
export async function takeFanoutVariant(
  em: EntityManager,
  productId: number,
  named: readonly (readonly number[] | null)[],
): Promise<number | null> {
  const [pending] = await rows<{ variant_id: number | null }>(
    em,
    sql`DELETE FROM inventory_fanout_pending WHERE product_id = ${productId} RETURNING variant_id`,
  );
  const fromRow = pending ? [pending.variant_id === null ? null : [pending.variant_id]] : [];
  const changes = [...named, ...fromRow];
  return changes.length === 0 ? null : onlyVariant(changes);
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
