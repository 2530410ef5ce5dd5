import type { Selectable } from 'kysely';
import type { CatalogueFilters } from '../catalogue/schemas.ts';
import type { DB } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { rows, sql } from '../db/sql.ts';
import { enqueueDispatch, productEventsFrom } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { bulkRemoveByFilter } from './bulk-by-filter.ts';
import { dedupe } from './queries.ts';
import type { BulkInput, Skip } from './schemas.ts';

/**
 * Bulk remove (soft delete). `ids`: one transaction. `filter` (with no filters: the whole store):
 * one product id range at a time (bulk-by-filter.ts), each one transaction.
 */
export async function bulkRemoveListings(ctx: PartnerContext, input: BulkInput) {
  const { storeId } = ctx.actor;
  if (input.mode !== 'ids') return bulkRemoveByFilter(ctx.em, storeId, input.filters as CatalogueFilters);
  return ctx.em.transactional(async (tx) => {
    const skipped: Skip[] = [];
    const ids = dedupe(input.product_ids ?? [], skipped);
    // Raw SQL: the removal feeds its events' insert (productEventsFrom) in data-modifying CTEs.
    const removed = await rows(
      tx,
      sql<Pick<Selectable<DB['listings']>, 'product_id'>>`WITH changed AS (
          UPDATE listings l SET deleted_at = now(), updated_at = now()
          WHERE ${ownedBy({ storeId }, 'listings as l')} AND l.deleted_at IS NULL AND l.product_id = ANY(${ids}::integer[])
          RETURNING l.product_id
        ), events AS (${productEventsFrom(storeId, EVENT.product.deleted, sql`changed`)})
        SELECT product_id FROM changed`,
    );
    const gone = new Set(removed.map((r) => r.product_id));
    for (const id of ids) if (!gone.has(id)) skipped.push({ product_id: id, reason: 'not_in_store' });
    if (removed.length > 0) await enqueueDispatch(tx);
    return { removed: removed.length, skipped };
  });
}
