import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import { foldFacetCells, GRAINS, grainColumns, grainMask } from '../../src/catalogue/cells.ts';
import { rows, sql } from '../../src/db/sql.ts';

/** The cells after a fold equal a fresh count of the active catalogue at every grain. */
export async function cellsEqualRecount(em: EntityManager) {
  await foldFacetCells(em);
  const columns = sql.raw(grainColumns(0).join(', '));
  const sets = sql.raw(GRAINS.map((g) => `(${grainColumns(grainMask(g)).join(', ')})`).join(', '));
  const order = sql.raw(['grain', ...grainColumns(0)].join(', '));
  const stored = await rows(em, sql`SELECT grain, ${columns}, n FROM facet_cells ORDER BY ${order}`);
  const recount = await rows(
    em,
    sql`SELECT GROUPING(${columns})::smallint AS grain, ${columns}, count(*)::integer AS n
      FROM (SELECT owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode,
          stock_quantity > 0 AS in_stock, ready_to_list, facet_price_band(retail_price_cents) AS price_band,
          complete_channels FROM products WHERE active) p
      GROUP BY GROUPING SETS (${sets}) ORDER BY ${order}`,
  );
  expect(stored).toEqual(recount);
  await storeCellsEqualRecount(em);
  const [pending] = await rows<{ n: number }>(em, sql`SELECT count(*)::integer AS n FROM facet_cell_deltas`);
  expect(pending?.n).toBe(0);
}

/**
 * Each store's cells after a fold equal a recount from its listings: kind 0 takes each listed active
 * product out of its cell, kind 1 moves a custom-priced or re-moded one to the cell it sells in.
 */
export async function storeCellsEqualRecount(em: EntityManager) {
  await foldFacetCells(em);
  const columns = sql.raw(grainColumns(0).join(', '));
  const sets = sql.raw(GRAINS.map((g) => `(${grainColumns(grainMask(g)).join(', ')})`).join(', '));
  const order = sql.raw(['store_id', 'kind', 'grain', ...grainColumns(0)].join(', '));
  const cell = sql`p.owner_store_id, p.brand_id, p.category_id, p.supplier_id, p.pricing_type`;
  const mode = sql`CASE WHEN p.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(l.purchase_mode, p.purchase_mode) END`;
  const band = sql`facet_price_band(COALESCE(l.custom_retail_price_cents, p.retail_price_cents))`;
  const stored = await rows(
    em,
    sql`SELECT store_id, kind, grain, ${columns}, n FROM store_cells ORDER BY ${order}`,
  );
  const recount = await rows(
    em,
    sql`SELECT store_id, kind, GROUPING(${columns})::smallint AS grain, ${columns}, sum(n)::integer AS n
      FROM (
        SELECT l.store_id, k.kind, ${cell}, v.purchase_mode, p.stock_quantity > 0, p.ready_to_list,
          v.price_band, p.complete_channels, v.n
        FROM listings l JOIN products p ON p.id = l.product_id
        CROSS JOIN (VALUES (0::smallint), (1::smallint)) k (kind)
        CROSS JOIN LATERAL (VALUES
          (-1, p.purchase_mode, facet_price_band(p.retail_price_cents)),
          (1, ${mode}, ${band})) v (n, purchase_mode, price_band)
        WHERE l.deleted_at IS NULL AND p.active AND (k.kind = 1 OR v.n = -1)
      ) c (store_id, kind, ${columns}, n)
      GROUP BY store_id, kind, GROUPING SETS (${sets}) HAVING sum(n) <> 0 ORDER BY ${order}`,
  );
  expect(stored).toEqual(recount);
}
