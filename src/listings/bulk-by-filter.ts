import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import type { z } from 'zod';
import { buildCatalogueQuery, catalogueFrom, whereAll } from '../catalogue/filters.ts';
import type { CatalogueFilters } from '../catalogue/schemas.ts';
import { type DB, db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, rows, sql } from '../db/sql.ts';
import { enqueueDispatch, productEventsFrom } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import { loadCatalogueContext } from '../store/catalogue-context.ts';
import { type Added, addedFrom } from './queries.ts';
import type { bulkRemoveOutput, Skip } from './schemas.ts';

/**
 * The product id ranges a bulk call by filter changes, one transaction each. Each range's listings,
 * events and cell changes commit together, so 100,000 products never hold their key locks, or one
 * snapshot that keeps vacuum from the tables, for the whole call. Ranges rather than "the next N
 * matches": a filter PostgreSQL cannot estimate (an effective price bound) was planned as a walk of
 * the whole catalogue for every batch. The width adapts to what a range costs: about STEP_TARGET_MS
 * a step, far inside the API's statement budget (2 s) however dense the matches, and wide where
 * they are sparse.
 */
export const BULK_BATCH = 5_000;
const STEP_TARGET_MS = 300;
const MAX_BATCH = 200_000;

/**
 * Calls `step` for consecutive id ranges covering lo..hi. `fixed` keeps every range that wide (tests
 * cross several ranges of a small catalogue); otherwise each width follows the last step's time.
 */
async function inRanges(
  lo: number,
  hi: number,
  fixed: number | undefined,
  step: (lo: number, hi: number) => Promise<void>,
) {
  let width = fixed ?? BULK_BATCH;
  for (let at = lo; at <= hi; ) {
    const end = Math.min(hi, at + width - 1);
    const started = performance.now();
    await step(at, end);
    at = end + 1;
    if (fixed !== undefined) continue;
    const ms = Math.max(1, performance.now() - started);
    width = Math.max(100, Math.min(MAX_BATCH, Math.round(width * Math.min(4, STEP_TARGET_MS / ms))));
  }
}

/**
 * A bulk add by filter (bulk-add-listings.ts). The width is a parameter so that tests can cross
 * several ranges with a small catalogue.
 */
export async function bulkAddByFilter(
  em: EntityManager,
  storeId: number,
  filters: CatalogueFilters,
  batch?: number,
) {
  // The filter is resolved once (taxonomy, the search's mode); each batch then takes its id range.
  const ctx = await loadCatalogueContext(em, storeId);
  const where = whereAll(await buildCatalogueQuery(em, ctx, filters));
  const total = { added: 0, restored: 0, skipped: [] as Skip[] };
  const span = idSpan(
    await first(
      db(em)
        .selectFrom('products')
        .select((eb) => [eb.fn.min<Id | null>('id').as('lo'), eb.fn.max<Id | null>('id').as('hi')]),
    ),
  );
  await inRanges(span.lo, span.hi, batch, async (lo, hi) => {
    const step = await em.transactional(async (tx) => {
      const [row] = await rows(
        tx,
        sql<Added>`WITH ${addedFrom(
          storeId,
          sql`SELECT p.id FROM ${catalogueFrom(ctx)}
            WHERE p.id BETWEEN ${lo} AND ${hi} AND ${where} AND l.id IS NULL`,
        )}
          SELECT count(*) FILTER (WHERE NOT restored)::integer AS added,
            count(*) FILTER (WHERE restored)::integer AS restored
          FROM changed`,
      );
      if ((row?.added ?? 0) + (row?.restored ?? 0) > 0) await enqueueDispatch(tx);
      return row;
    });
    total.added += step?.added ?? 0;
    total.restored += step?.restored ?? 0;
  });
  return total;
}

/** A bulk remove by filter (bulk-remove-listings.ts), in ranges as the add. */
export async function bulkRemoveByFilter(
  em: EntityManager,
  storeId: number,
  filters: CatalogueFilters,
  batch?: number,
) {
  const ctx = await loadCatalogueContext(em, storeId);
  const match = whereAll(await buildCatalogueQuery(em, ctx, filters, { forRemoval: true }));
  let removed = 0;
  const span = idSpan(
    await first(
      db(em)
        .selectFrom('listings')
        .select((eb) => [
          eb.fn.min<Id | null>('product_id').as('lo'),
          eb.fn.max<Id | null>('product_id').as('hi'),
        ])
        .where(ownedBy({ storeId }, 'listings'))
        .where('deleted_at', 'is', null),
    ),
  );
  await inRanges(span.lo, span.hi, batch, async (lo, hi) => {
    const step = await em.transactional(async (tx) => {
      // Raw SQL: as the removal by ids, with the filter's SQL fragments (`p` and `l`) as its match.
      const [row] = await rows(
        tx,
        sql<Pick<z.output<typeof bulkRemoveOutput>, 'removed'>>`WITH changed AS (
            UPDATE listings l SET deleted_at = now(), updated_at = now() FROM products p
            WHERE p.id = l.product_id AND ${ownedBy({ storeId }, 'listings as l')} AND l.deleted_at IS NULL
              AND l.product_id BETWEEN ${lo} AND ${hi} AND ${match}
            RETURNING l.product_id
          ), events AS (${productEventsFrom(storeId, EVENT.product.deleted, sql`changed`)})
          SELECT count(*)::integer AS removed FROM changed`,
      );
      if ((row?.removed ?? 0) > 0) await enqueueDispatch(tx);
      return row;
    });
    removed += step?.removed ?? 0;
  });
  return { removed, skipped: [] as Skip[] };
}

type Id = Selectable<DB['products']>['id'];

/** The lowest and highest id of a min/max row, `lo` and `hi` (an empty span when there are none). */
function idSpan(span: { lo: Id | null; hi: Id | null } | undefined) {
  return { lo: span?.lo ?? 1, hi: span?.hi ?? 0 };
}
