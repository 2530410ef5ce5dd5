import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { enqueueDispatch } from '../events/outbox.ts';

const BATCH = 1000;

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
 * an `inventory.updated` event. Stores are taken in batches of a thousand, each batch its own short
 * transaction, so a product listed by 10,000 stores never holds one long transaction or lock.
 */
export async function fanOutStock(
  em: EntityManager,
  productId: number,
  variantId: number | null = null,
): Promise<number> {
  const data =
    variantId === null ? { product_id: productId } : { product_id: productId, variant_id: variantId };
  let after = 0;
  let total = 0;
  for (;;) {
    const batch = await em.transactional(async (tx) => {
      const [done] = await rows<{ n: number; last: number | null }>(
        tx,
        sql`WITH stores AS (
            SELECT store_id FROM listings
            WHERE product_id = ${productId} AND deleted_at IS NULL AND store_id > ${after}
            ORDER BY store_id LIMIT ${BATCH}
          ), feed AS (
            INSERT INTO inventory_feed (store_id, product_id)
            SELECT store_id, ${productId}::integer FROM stores
            ON CONFLICT (store_id, product_id) DO UPDATE
              SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq')
          ), events AS (
            INSERT INTO domain_events (store_id, event, entity_id, data)
            SELECT store_id, 'inventory.updated', ${productId}, ${JSON.stringify(data)}::jsonb
            FROM stores
          )
          SELECT count(*)::integer AS n, max(store_id) AS last FROM stores`,
      );
      if (done?.n) await enqueueDispatch(tx);
      return done ?? { n: 0, last: null };
    });
    total += batch.n;
    if (batch.n < BATCH || batch.last === null) return total;
    after = batch.last;
  }
}
