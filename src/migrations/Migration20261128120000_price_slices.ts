import { Migration } from '@mikro-orm/migrations';

/**
 * Price slices in the cells: slices of the contract's price bands (every band edge is a slice edge),
 * 2,500 cents wide up to 1,000.00, then 5,000 to 2,000.00, 10,000 to 5,000.00, 50,000 to 10,000.00,
 * and one open slice above. A price range off the band edges was counted from the cells for its whole
 * bands and through the price index for the rest, up to half a band: 425,000 products (0.42 s) in the
 * bench's widest band at 2M. With slices, the rest is at most half a slice (~21,000).
 *
 * The four grains holding the price dimension are kept twice: by band (as before) and by slice, the
 * latter under grain `GROUPING() | 1024` (src/catalogue/cells.ts reads whole bands from the first,
 * whole slices of a partial band from the second). The deltas carry the slice: the cell triggers of
 * earlier migrations compute the dimension through facet_price_band(), which therefore now answers
 * the slice (its name stays because their bodies call it), and the folds map it to its band
 * (facet_band_of_slice) for the band grains.
 */
const edges = (from: number, to: number, step: number) =>
  Array.from({ length: (to - from) / step }, (_, i) => from + i * step);
const BANDS = [0, 2500, 5000, 10000, 25000, 50000, 100000];
const SLICES = [
  ...edges(0, 100_000, 2_500),
  ...edges(100_000, 200_000, 5_000),
  ...edges(200_000, 500_000, 10_000),
  ...edges(500_000, 1_000_000, 50_000),
  1_000_000,
];

const DIMS = `owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels`;
const cellOf = (p: string, price: string) => `${p}.owner_store_id, ${p}.brand_id, ${p}.category_id,
  ${p}.supplier_id, ${p}.pricing_type, ${p}.purchase_mode, ${p}.stock_quantity > 0, ${p}.ready_to_list,
  facet_price_band(${price}), ${p}.complete_channels`;

const SMALL = 'pricing_type, purchase_mode, in_stock, ready_to_list';
/** Every grain (Migration20261122080000_facet_cells), and the four that hold the price dimension. */
const GRAINS = [
  `(owner_store_id, ${SMALL}, price_band, complete_channels)`,
  `(owner_store_id, brand_id, ${SMALL})`,
  `(owner_store_id, category_id, ${SMALL})`,
  `(owner_store_id, supplier_id, ${SMALL})`,
  `(owner_store_id, brand_id, ${SMALL}, price_band, complete_channels)`,
  `(owner_store_id, category_id, ${SMALL}, price_band, complete_channels)`,
  `(owner_store_id, supplier_id, ${SMALL}, price_band, complete_channels)`,
  `(owner_store_id, brand_id, category_id, ${SMALL})`,
  `(owner_store_id, brand_id, supplier_id, ${SMALL})`,
  `(owner_store_id, category_id, supplier_id, ${SMALL})`,
];
const PRICE_GRAINS = GRAINS.filter((g) => g.includes('price_band'));
const SLICED = 1024;

/** DIMS of a delta row `d` with its slice mapped to its band. */
const BANDED = `owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, facet_band_of_slice(price_band), complete_channels`;

/** A quote-only product stays quote-only whatever the listing says (Migration20261125040000_store_cells). */
const MODE = `CASE WHEN p.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(l.purchase_mode, p.purchase_mode) END`;
const PRICE = 'COALESCE(l.custom_retail_price_cents, p.retail_price_cents)';
const MOVES = `facet_price_band(${PRICE}) <> facet_price_band(p.retail_price_cents) OR ${MODE} <> p.purchase_mode`;

export class Migration20261128120000_price_slices extends Migration {
  override name = 'Migration20261128120000_price_slices';

  override up(): void {
    this.addSql(`
-- Writers still running the old function wait here, so no delta holding a band is left behind the
-- fold to be read as a slice.
LOCK TABLE facet_cell_deltas, store_cell_deltas IN EXCLUSIVE MODE;
SELECT facet_cells_fold(), store_cells_fold();

CREATE OR REPLACE FUNCTION facet_price_band(cents integer) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (width_bucket(cents, ARRAY[${SLICES.join(', ')}]) - 1)::smallint;

CREATE FUNCTION facet_band_of_slice(slice smallint) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (width_bucket(slice, ARRAY[${BANDS.map((b) => SLICES.indexOf(b)).join(', ')}]) - 1)::smallint;

CREATE OR REPLACE FUNCTION facet_cells_fold_locked() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (DELETE FROM facet_cell_deltas RETURNING *), bands AS (
    INSERT INTO facet_cells (grain, ${DIMS}, n)
    SELECT GROUPING(${DIMS}), ${DIMS}, sum(n)
    FROM (SELECT ${BANDED}, n FROM d) b (${DIMS}, n)
    GROUP BY GROUPING SETS (${GRAINS.join(',\n      ')})
    HAVING sum(n) <> 0
    ON CONFLICT (grain, ${DIMS}) DO UPDATE SET n = facet_cells.n + EXCLUDED.n
  )
  INSERT INTO facet_cells (grain, ${DIMS}, n)
  SELECT GROUPING(${DIMS}) | ${SLICED}, ${DIMS}, sum(n)
  FROM d
  GROUP BY GROUPING SETS (${PRICE_GRAINS.join(',\n    ')})
  HAVING sum(n) <> 0
  ON CONFLICT (grain, ${DIMS}) DO UPDATE SET n = facet_cells.n + EXCLUDED.n;
  DELETE FROM facet_cells WHERE n = 0;
END $$;

CREATE OR REPLACE FUNCTION store_cells_fold_locked() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (DELETE FROM store_cell_deltas RETURNING *), bands AS (
    INSERT INTO store_cells (store_id, kind, grain, ${DIMS}, n)
    SELECT store_id, kind, GROUPING(${DIMS}), ${DIMS}, sum(n)
    FROM (SELECT store_id, kind, ${BANDED}, n FROM d) b (store_id, kind, ${DIMS}, n)
    GROUP BY store_id, kind, GROUPING SETS (${GRAINS.join(',\n      ')})
    HAVING sum(n) <> 0
    ON CONFLICT (store_id, kind, grain, ${DIMS}) DO UPDATE SET n = store_cells.n + EXCLUDED.n
  )
  INSERT INTO store_cells (store_id, kind, grain, ${DIMS}, n)
  SELECT store_id, kind, GROUPING(${DIMS}) | ${SLICED}, ${DIMS}, sum(n)
  FROM d
  GROUP BY store_id, kind, GROUPING SETS (${PRICE_GRAINS.join(',\n    ')})
  HAVING sum(n) <> 0
  ON CONFLICT (store_id, kind, grain, ${DIMS}) DO UPDATE SET n = store_cells.n + EXCLUDED.n;
  DELETE FROM store_cells WHERE n = 0;
END $$;

-- The slice grains of the catalogue and of each store, counted as they stand.
INSERT INTO facet_cells (grain, ${DIMS}, n)
SELECT GROUPING(${DIMS}) | ${SLICED}, ${DIMS}, count(*)
FROM (SELECT ${cellOf('p', 'p.retail_price_cents')} FROM products p WHERE p.active) c (${DIMS})
GROUP BY GROUPING SETS (${PRICE_GRAINS.join(', ')});

INSERT INTO store_cells (store_id, kind, grain, ${DIMS}, n)
SELECT store_id, kind, GROUPING(${DIMS}) | ${SLICED}, ${DIMS}, sum(n)
FROM (
  SELECT l.store_id, 0::smallint, ${cellOf('p', 'p.retail_price_cents')}, -1
  FROM listings l JOIN products p ON p.id = l.product_id WHERE l.deleted_at IS NULL AND p.active
  UNION ALL
  SELECT l.store_id, 1::smallint, ${cellOf('p', 'p.retail_price_cents')}, -1
  FROM listings l JOIN products p ON p.id = l.product_id
  WHERE l.deleted_at IS NULL AND p.active AND (l.custom_retail_price_cents IS NOT NULL OR l.purchase_mode IS NOT NULL)
    AND (${MOVES})
  UNION ALL
  SELECT l.store_id, 1::smallint, p.owner_store_id, p.brand_id, p.category_id, p.supplier_id, p.pricing_type,
    ${MODE}, p.stock_quantity > 0, p.ready_to_list, facet_price_band(${PRICE}), p.complete_channels, 1
  FROM listings l JOIN products p ON p.id = l.product_id
  WHERE l.deleted_at IS NULL AND p.active AND (l.custom_retail_price_cents IS NOT NULL OR l.purchase_mode IS NOT NULL)
    AND (${MOVES})
) c (store_id, kind, ${DIMS}, n)
GROUP BY store_id, kind, GROUPING SETS (${PRICE_GRAINS.join(', ')})
HAVING sum(n) <> 0;

-- A partial band reads its slices' cells alone, not the slice grain's every cell.
CREATE INDEX facet_cells_slice_idx ON facet_cells (grain, price_band)
  INCLUDE (owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
    ready_to_list, complete_channels, n)
  WHERE grain >= ${SLICED};

ANALYZE facet_cells;
ANALYZE store_cells;
`);
  }
}
