import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { first } from '../db/sql.ts';
import { notFound } from '../errors.ts';

/** Whether the store has suppliers of its own: the catalogue's `ownership` filter applies only then. */
export const hasOwnSuppliers = (eb: ExpressionBuilder<DB, 'stores'>) =>
  eb
    .exists(
      eb
        .selectFrom('suppliers')
        .select(eb.lit(1).as('one'))
        .whereRef('suppliers.owner_store_id', '=', 'stores.id'),
    )
    .$castTo<boolean>();

/** What the catalogue needs to know about the store that is browsing it. */
export type StoreCatalogueContext = Awaited<ReturnType<typeof loadCatalogueContext>>;

export async function loadCatalogueContext(em: EntityManager, storeId: number) {
  const row = await first(
    db(em)
      .selectFrom('stores')
      .select((eb) => ['catalogue_scope', 'min_margin_bps', hasOwnSuppliers(eb).as('has_own')])
      .where('id', '=', storeId),
  );
  if (!row) throw notFound('Store not found', 'STORE_NOT_FOUND');
  return {
    storeId,
    defaultScope: row.catalogue_scope,
    minMarginBps: row.min_margin_bps,
    hasOwnSuppliers: row.has_own,
  };
}
