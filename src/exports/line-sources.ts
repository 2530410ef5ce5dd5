import type { EntityManager } from '@mikro-orm/postgresql';
import { storeActor } from '../auth/actor.ts';
import { buildCatalogueQuery, catalogueFrom, whereAll } from '../catalogue/filters.ts';
import { type ProductRow, productColumns, toCatalogueProduct } from '../catalogue/product-item.ts';
import { rows, sql } from '../db/sql.ts';
import { listItem } from '../listings/list-listings.ts';
import { COLUMNS, LIVE, type Row as ListingRow, variantsOf } from '../listings/queries.ts';
import { filters as orderFilters } from '../orders/list-orders.ts';
import { LIST_COLUMNS, type ListRow, toListItem } from '../orders/queries.ts';
import { loadCatalogueContext } from '../store/catalogue-context.ts';
import { catalogueExportFilters, type ExportType, ordersExportFilters } from './schemas.ts';

/** One keyset batch: its items (each exactly a list item of its endpoint) and the key to read on from. */
export interface Batch {
  items: unknown[];
  last: number;
}

/** Reads the batch after key `after`; all reads are in the caller's (snapshot) transaction. */
export type LineSource = (tx: EntityManager, after: number, limit: number) => Promise<Batch | null>;

/** What a source needs of the export: whose, which mode, what buyer fields it may show, its filters. */
export interface SourceOf {
  storeId: number;
  livemode: boolean;
  canReadCustomers: boolean;
  type: ExportType;
  filters: unknown;
}

const batchOf = <R extends { id: number }>(found: R[], items: unknown[]): Batch | null => {
  const last = found.at(-1);
  return last ? { items, last: last.id } : null;
};

/**
 * The catalogue under GET /products' filters, in id order: its columns and item builder
 * (product-item.ts), the filter resolved once like a bulk add by filter (listings/bulk-by-filter.ts).
 */
async function catalogueSource(tx: EntityManager, e: SourceOf): Promise<LineSource> {
  const ctx = await loadCatalogueContext(tx, e.storeId);
  const where = whereAll(await buildCatalogueQuery(tx, ctx, catalogueExportFilters.parse(e.filters)));
  return async (em, after, limit) => {
    const found = await rows<ProductRow>(
      em,
      sql`SELECT ${productColumns(ctx)} FROM ${catalogueFrom(ctx)}
        LEFT JOIN categories c ON c.id = p.category_id
        LEFT JOIN brands b ON b.id = p.brand_id
        WHERE p.id > ${after} AND ${where}
        ORDER BY p.id LIMIT ${limit}`,
    );
    return batchOf(found, found.map(toCatalogueProduct));
  };
}

/** The store's live listings with their variants, as GET /my-products?include=variants lists them. */
function listingsSource(e: SourceOf): LineSource {
  return async (em, after, limit) => {
    const found = await rows<ListingRow>(
      em,
      sql`SELECT ${COLUMNS} FROM ${LIVE(e.storeId)} AND l.id > ${after} ORDER BY l.id LIMIT ${limit}`,
    );
    if (found.length === 0) return null;
    const extra = await variantsOf(
      em,
      found.map((r) => r.product_id),
    );
    return batchOf(
      found,
      found.map((r) => listItem(r, extra)),
    );
  };
}

/** The store's orders of the export's mode under GET /orders' filters, buyer fields as its credential saw them. */
function ordersSource(e: SourceOf): LineSource {
  const actor = { ...storeActor(e.storeId, e.livemode), canReadCustomers: e.canReadCustomers };
  const where = orderFilters(actor, ordersExportFilters.parse(e.filters));
  return async (em, after, limit) => {
    const found = await rows<ListRow>(
      em,
      sql`SELECT ${LIST_COLUMNS} FROM orders o WHERE ${where} AND o.id > ${after} ORDER BY o.id LIMIT ${limit}`,
    );
    return batchOf(
      found,
      found.map((r) => toListItem(r, actor)),
    );
  };
}

export async function lineSource(tx: EntityManager, e: SourceOf): Promise<LineSource> {
  if (e.type === 'catalogue') return catalogueSource(tx, e);
  if (e.type === 'listings') return listingsSource(e);
  return ordersSource(e);
}
