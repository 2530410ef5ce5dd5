import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';

/** What the catalogue needs to know about the store that is browsing it. */
export interface StoreCatalogueContext {
  storeId: number;
  defaultScope: 'all' | 'store';
  minMarginBps: number;
  hasOwnSuppliers: boolean;
}

export async function loadCatalogueContext(
  em: EntityManager,
  storeId: number,
): Promise<StoreCatalogueContext> {
  const [row] = await rows<{ catalogue_scope: 'all' | 'store'; min_margin_bps: number; has_own: boolean }>(
    em,
    sql`SELECT s.catalogue_scope, s.min_margin_bps,
          EXISTS (SELECT 1 FROM suppliers WHERE owner_store_id = s.id) AS has_own
        FROM stores s WHERE s.id = ${storeId}`,
  );
  if (!row) throw notFound('Store not found', 'STORE_NOT_FOUND');
  return {
    storeId,
    defaultScope: row.catalogue_scope,
    minMarginBps: row.min_margin_bps,
    hasOwnSuppliers: row.has_own,
  };
}
