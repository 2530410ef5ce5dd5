import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import { foldFacetCells, GRAINS, grainColumns, grainMask } from '../../src/catalogue/cells.ts';
import { type RawBuilder, rows, sql } from '../../src/db/sql.ts';

const SLICED = 1024;
const COLUMNS = grainColumns(0);

/**
 * A recount of `source` (rows of the cell columns, price as the slice, and `n`) at every grain: the
 * band grains with each slice read as its band, the slice grains (GROUPING() | 1024) as they are.
 * `keys` are grouped by at every grain (a store's cells: store and kind).
 */
function atEveryGrain(source: RawBuilder<unknown>, keys: string[]): RawBuilder<unknown> {
  const columns = sql.raw(COLUMNS.join(', '));
  const by = sql.raw(keys.map((k) => `${k}, `).join(''));
  const masks = GRAINS.map(grainMask);
  const level = (sliced: boolean) => {
    const sets = masks
      .filter((m) => m >= SLICED === sliced)
      .map((m) => `(${grainColumns(m % SLICED).join(', ')})`)
      .join(', ');
    const price = sliced ? 'price_band' : 'facet_band_of_slice(price_band)';
    const read = sql.raw(COLUMNS.map((c) => (c === 'price_band' ? `${price} AS price_band` : c)).join(', '));
    return sql`SELECT ${by}(GROUPING(${columns}) | ${sql.lit(sliced ? SLICED : 0)})::smallint AS grain, ${columns},
        sum(n)::integer AS n
      FROM (SELECT ${by}${read}, n FROM (${source}) s) c
      GROUP BY ${by}GROUPING SETS (${sql.raw(sets)}) HAVING sum(n) <> 0`;
  };
  const order = sql.raw([...keys, 'grain', ...COLUMNS].join(', '));
  return sql`SELECT * FROM (${level(false)} UNION ALL ${level(true)}) r ORDER BY ${order}`;
}

/** The cells after a fold equal a fresh count of the active catalogue at every grain. */
export async function cellsEqualRecount(em: EntityManager) {
  await foldFacetCells(em);
  const columns = sql.raw(COLUMNS.join(', '));
  const order = sql.raw(['grain', ...COLUMNS].join(', '));
  const stored = await rows(em, sql`SELECT grain, ${columns}, n FROM facet_cells ORDER BY ${order}`);
  const recount = await rows(
    em,
    atEveryGrain(
      sql`SELECT owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode,
          stock_quantity > 0 AS in_stock, ready_to_list, facet_price_band(retail_price_cents) AS price_band,
          complete_channels, 1 AS n FROM products WHERE active`,
      [],
    ),
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
  const columns = sql.raw(COLUMNS.join(', '));
  const order = sql.raw(['store_id', 'kind', 'grain', ...COLUMNS].join(', '));
  const cell = sql`p.owner_store_id, p.brand_id, p.category_id, p.supplier_id, p.pricing_type`;
  const mode = sql`CASE WHEN p.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(l.purchase_mode, p.purchase_mode) END`;
  const slice = sql`facet_price_band(COALESCE(l.custom_retail_price_cents, p.retail_price_cents))`;
  const stored = await rows(
    em,
    sql`SELECT store_id, kind, grain, ${columns}, n FROM store_cells ORDER BY ${order}`,
  );
  const recount = await rows(
    em,
    atEveryGrain(
      sql`SELECT l.store_id, k.kind, ${cell}, v.purchase_mode, p.stock_quantity > 0 AS in_stock,
          p.ready_to_list, v.price_band, p.complete_channels, v.n
        FROM listings l JOIN products p ON p.id = l.product_id
        CROSS JOIN (VALUES (0::smallint), (1::smallint)) k (kind)
        CROSS JOIN LATERAL (VALUES
          (-1, p.purchase_mode, facet_price_band(p.retail_price_cents)),
          (1, ${mode}, ${slice})) v (n, purchase_mode, price_band)
        WHERE l.deleted_at IS NULL AND p.active AND (k.kind = 1 OR v.n = -1)`,
      ['store_id', 'kind'],
    ),
  );
  expect(stored).toEqual(recount);
}
