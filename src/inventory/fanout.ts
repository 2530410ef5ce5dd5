import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { enqueueDispatch } from '../events/outbox.ts';

const BATCH = 1000;

/**
 * A product's stock changed: every store that lists it gets the product at the head of its feed and
 * an `inventory.updated` event. Stores are taken in batches of a thousand, each batch its own short
 * transaction, so a product listed by 10,000 stores never holds one long transaction or lock.
 */
export async function fanOutStock(em: EntityManager, productId: number): Promise<number> {
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
            SELECT store_id, 'inventory.updated', ${productId}, jsonb_build_object('product_id', ${productId}::integer)
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
