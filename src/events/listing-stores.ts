import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import type { DB } from '../db/kysely.ts';
import { rows, sql } from '../db/sql.ts';
import { enqueueDispatch } from './outbox.ts';
import type { CoalescedEvent, IdsOnlyEventData } from './vocabulary/index.ts';

/** Stores per transaction: a product listed by 10,000 stores never holds one long transaction. */
export const LISTING_STORES_BATCH = 1000;

export interface ListingStoresChange {
  /** One event per listing store for each entry (ids-only data, coalesced downstream per product). */
  events: { event: CoalescedEvent; data: IdsOnlyEventData }[];
  /** Whether the change shows in the inventory feed: the product goes to the head of each store's feed. */
  touchFeed: boolean;
}

/** How many stores a batch reached, and the last of them (by id; null when none). */
type Batch = { n: number; last: Selectable<DB['listings']>['store_id'] | null };

/**
 * A change to a catalogue product reaches every store with a live listing of it: each gets the
 * events and, when the feed shows the change, the product at the head of its inventory feed. Stores
 * are taken in id order in batches, each batch its own short transaction that also wakes the
 * dispatcher, so an event exists exactly when its batch committed. A store that lists the product
 * after its batch ran reads the product as it now is, so it has missed nothing.
 */
export async function fanOutToListingStores(
  em: EntityManager,
  productId: number,
  change: ListingStoresChange,
  batch = LISTING_STORES_BATCH,
  onBatch: (stores: number, ms: number) => void = () => {},
): Promise<number> {
  const names = change.events.map((e) => e.event);
  const payloads = change.events.map((e) => JSON.stringify(e.data));
  const feed = change.touchFeed
    ? sql`, feed AS (
        INSERT INTO inventory_feed (store_id, product_id)
        SELECT store_id, ${productId}::integer FROM stores
        ON CONFLICT (store_id, product_id) DO UPDATE
          SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq')
      )`
    : sql``;
  let after = 0;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const done = await em.transactional(async (tx) => {
      // Raw SQL: the batch's stores feed the feed upsert and the events' insert (an unnest() of the
      // events cross the stores) in data-modifying CTEs.
      const [row] = await rows(
        tx,
        sql<Batch>`WITH stores AS (
            SELECT store_id FROM listings
            WHERE product_id = ${productId} AND deleted_at IS NULL AND store_id > ${after}
            ORDER BY store_id LIMIT ${batch}
          )${feed}, events AS (
            INSERT INTO domain_events (store_id, event, entity_id, data)
            SELECT s.store_id, e.event, ${productId}, e.data
            FROM stores s CROSS JOIN unnest(${names}::text[], ${payloads}::jsonb[]) AS e(event, data)
          )
          SELECT count(*)::integer AS n, max(store_id) AS last FROM stores`,
      );
      if (row?.n && names.length) await enqueueDispatch(tx);
      return row ?? { n: 0, last: null };
    });
    onBatch(done.n, performance.now() - started);
    total += done.n;
    if (done.n < batch || done.last === null) return total;
    after = done.last;
  }
}
