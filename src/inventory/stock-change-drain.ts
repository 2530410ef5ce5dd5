import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { idsOnlyData } from '../events/ids-only.ts';
import { LISTING_STORES_BATCH } from '../events/listing-stores.ts';
import { enqueueDispatch } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import { fanOutStock } from './stock-propagation.ts';
import { setStockTotals } from './stock-total.ts';

/** Waiting products one drain transaction takes. */
const DRAIN_BATCH = 200;
/**
 * The drain's transaction lock (any constant: it names nothing else). Two drains never read the same
 * rows, and neither blocks: a busy lock makes the other job leave a re-check behind it instead.
 */
const DRAIN_LOCK = 27_050_701;

interface Waiting {
  product_id: number;
  variant_id: number | null;
  version: number;
}

/**
 * What each product's fan-out reached, and whether another drain must follow this one: another drain
 * held the lock (it may have read before the change this run was queued for committed), or a row read
 * was changed again meanwhile and left waiting (its writer queued no job: the row was there).
 */
export interface Drained {
  reached: { productId: number; stores: number }[];
  again: boolean;
}

/**
 * Fans out every waiting stock change (inventory_fanout_pending), DRAIN_BATCH products per
 * transaction: their totals follow their variants (setStockTotals), each store listing one gets it
 * at the head of its feed and an `inventory.updated`, and the rows read are deleted unless a change committed after the read bumped
 * their version. All in one transaction, so a failed run leaves its rows waiting for the retry. A
 * product more stores list than LISTING_STORES_BATCH is fanned out alone after the batch, in batches
 * of stores, its row deleted after. Stops when a batch comes back short, or when another drain holds
 * the lock.
 */
export async function drainStockChanges(em: EntityManager): Promise<Drained> {
  const reached: Drained['reached'] = [];
  let left = false;
  for (;;) {
    const batch = await em.transactional(async (tx) => {
      const [lock] = await rows<{ ok: boolean }>(
        tx,
        sql`SELECT pg_try_advisory_xact_lock(${DRAIN_LOCK}) AS ok`,
      );
      if (!lock?.ok) return null;
      const waiting = await rows<Waiting>(
        tx,
        sql`SELECT product_id, variant_id, version FROM inventory_fanout_pending
          ORDER BY product_id LIMIT ${DRAIN_BATCH}`,
      );
      if (waiting.length === 0) return { waiting, wide: [] as Waiting[] };
      const ids = waiting.map((w) => w.product_id);
      await setStockTotals(tx, ids);
      const wideIds = new Set(
        (
          await rows<{ product_id: number }>(
            tx,
            sql`SELECT product_id FROM listings WHERE product_id = ANY(${ids}::integer[]) AND deleted_at IS NULL
              GROUP BY product_id HAVING count(*) > ${LISTING_STORES_BATCH}`,
          )
        ).map((r) => r.product_id),
      );
      const narrow = waiting.filter((w) => !wideIds.has(w.product_id));
      reached.push(...(await fanOutNarrow(tx, narrow)));
      if ((await forget(tx, narrow)) < narrow.length) left = true;
      return { waiting, wide: waiting.filter((w) => wideIds.has(w.product_id)) };
    });
    if (batch === null) return { reached, again: true };
    for (const w of batch.wide) {
      reached.push({ productId: w.product_id, stores: await fanOutStock(em, w.product_id, w.variant_id) });
      if ((await forget(em, [w])) < 1) left = true;
    }
    if (batch.waiting.length < DRAIN_BATCH) return { reached, again: left };
  }
}

/** One statement for the batch: the feeds (in store order, as every feed writer) and the events. */
async function fanOutNarrow(tx: EntityManager, narrow: Waiting[]): Promise<Drained['reached']> {
  if (narrow.length === 0) return [];
  const ids = narrow.map((w) => w.product_id);
  const data = narrow.map((w) => JSON.stringify(idsOnlyData(w.product_id, w.variant_id)));
  const counted = await rows<{ product_id: number; stores: number }>(
    tx,
    sql`WITH b AS (
        SELECT * FROM unnest(${ids}::integer[], ${data}::jsonb[]) AS b(product_id, data)
      ), stores AS (
        SELECT l.store_id, b.product_id, b.data FROM b
        JOIN listings l ON l.product_id = b.product_id AND l.deleted_at IS NULL
      ), feed AS (
        INSERT INTO inventory_feed (store_id, product_id)
        SELECT store_id, product_id FROM stores ORDER BY store_id, product_id
        ON CONFLICT (store_id, product_id) DO UPDATE
          SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq')
      ), events AS (
        INSERT INTO domain_events (store_id, event, entity_id, data)
        SELECT store_id, ${EVENT.inventory.updated}::text, product_id, data FROM stores ORDER BY store_id, product_id
      )
      SELECT b.product_id, count(s.store_id)::integer AS stores
      FROM b LEFT JOIN stores s ON s.product_id = b.product_id GROUP BY b.product_id`,
  );
  if (counted.some((c) => c.stores > 0)) await enqueueDispatch(tx);
  return counted.map((c) => ({ productId: c.product_id, stores: c.stores }));
}

/**
 * Deletes the rows read, unless a change committed since bumped their version, or one is bumping it
 * now (the row is locked: skipped, not waited for). Either way the row waits for the next drain. Not
 * waiting matters: the writer may hold a feed row this drain has just written, and would wait back.
 */
async function forget(em: EntityManager, taken: Waiting[]): Promise<number> {
  if (taken.length === 0) return 0;
  const [gone] = await rows<{ n: number }>(
    em,
    sql`WITH gone AS (
        DELETE FROM inventory_fanout_pending WHERE product_id IN (
          SELECT w.product_id FROM inventory_fanout_pending w
          JOIN unnest(${taken.map((t) => t.product_id)}::integer[], ${taken.map((t) => t.version)}::integer[])
            AS t(product_id, version) ON w.product_id = t.product_id AND w.version = t.version
          ORDER BY w.product_id FOR UPDATE OF w SKIP LOCKED)
        RETURNING 1
      ) SELECT count(*)::integer AS n FROM gone`,
  );
  return gone?.n ?? 0;
}
