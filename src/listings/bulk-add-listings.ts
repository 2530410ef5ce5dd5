import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlBool } from 'kysely';
import { visibility } from '../catalogue/filters.ts';
import type { CatalogueFilters } from '../catalogue/schemas.ts';
import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { rows, run, sql } from '../db/sql.ts';
import { enqueueDispatch } from '../events/outbox.ts';
import { loadCatalogueContext, type StoreCatalogueContext } from '../store/catalogue-context.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { bulkAddByFilter } from './bulk-by-filter.ts';
import { type Added, addedFrom, dedupe } from './queries.ts';
import type { BulkInput, Skip } from './schemas.ts';

/** The products of `ids` the store may see, each with whether the store lists it now. */
function listedState(tx: EntityManager, ctx: StoreCatalogueContext, ids: number[]) {
  return run(
    db(tx)
      .selectFrom('products as p')
      // As catalogueFrom: the store's live listing of the product, if any.
      .leftJoin('listings as l', (join) =>
        join
          .onRef('l.product_id', '=', 'p.id')
          .on(ownedBy(ctx, 'listings as l'))
          .on('l.deleted_at', 'is', null),
      )
      .select((eb) => ['p.id', eb('l.id', 'is not', null).$castTo<boolean>().as('listed')])
      .where('p.id', '=', (eb) => eb.fn.any(sql<number[]>`${ids}::integer[]`))
      .where(visibility(ctx).$castTo<SqlBool>()),
  );
}

/**
 * Bulk add at default pricing. `ids` (at most 500): each id is added, restored, or skipped with a
 * reason, in one transaction. `filter`: every catalogue match not already in the store, one product
 * id range at a time (widths adapt to each step's time), each one transaction (docs/decisions.md, "Bulk by filter").
 */
export async function bulkAddListings(ctx: PartnerContext, input: BulkInput) {
  const { storeId } = ctx.actor;
  if (input.mode !== 'ids') return bulkAddByFilter(ctx.em, storeId, input.filters as CatalogueFilters);
  return ctx.em.transactional(async (tx) => {
    const store = await loadCatalogueContext(tx, storeId);
    const skipped: Skip[] = [];
    const ids = dedupe(input.product_ids ?? [], skipped);
    const found = await listedState(tx, store, ids);
    const state = new Map(found.map((r) => [r.id, r.listed]));
    for (const id of ids) {
      const listed = state.get(id);
      if (listed === undefined) skipped.push({ product_id: id, reason: 'not_found' });
      else if (listed) skipped.push({ product_id: id, reason: 'already_listed' });
    }
    const eligible = found.filter((r) => !r.listed).map((r) => r.id);
    const [counts] = await rows(
      tx,
      sql<Added>`WITH ${addedFrom(storeId, sql`SELECT unnest(${eligible}::integer[]) AS id`)}
        SELECT count(*) FILTER (WHERE NOT restored)::integer AS added,
               count(*) FILTER (WHERE restored)::integer AS restored
        FROM changed`,
    );
    const result = { added: counts?.added ?? 0, restored: counts?.restored ?? 0, skipped };
    if (result.added + result.restored > 0) await enqueueDispatch(tx);
    return result;
  });
}
