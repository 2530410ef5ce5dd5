import { Migration } from '@mikro-orm/migrations';

/**
 * Per-store facet cells: what a store's listings change in the catalogue's cells, kept as the
 * listings and products change, so a count no longer reads the store's listings at request time (a
 * store with 10,000 re-priced listings paid ~40 ms a count to join them to their products).
 *
 * Two kinds, each a correction added to `facet_cells`, at the same grains:
 * - kind 0, listed: -1 at the product's cell for each live listing of an active product
 *   (`exclude_in_store` takes the store's products out);
 * - kind 1, moved: for a live listing whose custom price or selling mode puts an active product in
 *   another price band or mode, -1 at the product's cell and +1 at the cell it moves to.
 *
 * Kept like facet_cells: statement-level triggers append deltas (insert only), readers add the
 * pending deltas of their store, a fold moves them into the cells. A contribution reads a listing
 * and its product together, so two transactions changing each could each miss the other's change:
 * the product side therefore share-locks the listings it recounts, and the listing side, which runs
 * after its own row lock, reads the product with a fresh READ COMMITTED snapshot (every write here
 * runs at READ COMMITTED). A product deleted outright takes its listings' contributions out before
 * its row goes (BEFORE DELETE), since the cascade deletes the listings when the product is no longer
 * visible to their trigger.
 */
const DIMS = `owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels`;

/** The cell of product `p`, in DIMS order. */
const cellOf = (p: string) => `${p}.owner_store_id, ${p}.brand_id, ${p}.category_id, ${p}.supplier_id,
  ${p}.pricing_type, ${p}.purchase_mode, ${p}.stock_quantity > 0, ${p}.ready_to_list,
  facet_price_band(${p}.retail_price_cents), ${p}.complete_channels`;

/** A product quote-only in the catalogue stays quote-only whatever the listing says (filters.ts). */
const MOVED_MODE = `CASE WHEN s.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(s.l_mode, s.purchase_mode) END`;
const MOVED_BAND = 'facet_price_band(COALESCE(s.l_price, s.retail_price_cents))';
const MOVES = `${MOVED_BAND} <> facet_price_band(s.retail_price_cents) OR ${MOVED_MODE} <> s.purchase_mode`;

/** The cell a source row's product moves to in the listing's store. */
const MOVED_CELL = `s.owner_store_id, s.brand_id, s.category_id, s.supplier_id, s.pricing_type, ${MOVED_MODE},
  s.stock_quantity > 0, s.ready_to_list, ${MOVED_BAND}, s.complete_channels`;

/**
 * The deltas of `src`, a query of (l: listing columns, p: product columns, sign) rows: each live
 * listing of an active product counts, times its sign.
 */
const appendDeltas = (src: string) => `
  WITH s AS (${src}), ins AS (
    INSERT INTO store_cell_deltas (store_id, kind, ${DIMS}, n)
    SELECT store_id, kind, ${DIMS}, sum(n) FROM (
      SELECT s.store_id, 0::smallint, ${cellOf('s')}, -s.sign FROM s
      UNION ALL
      SELECT s.store_id, 1::smallint, ${cellOf('s')}, -s.sign FROM s WHERE ${MOVES}
      UNION ALL
      SELECT s.store_id, 1::smallint, ${MOVED_CELL}, s.sign FROM s WHERE ${MOVES}
    ) c (store_id, kind, ${DIMS}, n)
    GROUP BY store_id, kind, ${DIMS} HAVING sum(n) <> 0
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM store_cells_note(lo, hi); END IF;`;

/** A source row: the listing's store, price and mode, the product's columns, and the sign. */
const sourceRow = (listing: string, product: string, sign: string) =>
  `SELECT ${listing}.store_id, ${listing}.custom_retail_price_cents AS l_price, ${listing}.purchase_mode AS l_mode,
    ${product}.owner_store_id, ${product}.brand_id, ${product}.category_id, ${product}.supplier_id,
    ${product}.pricing_type, ${product}.purchase_mode, ${product}.stock_quantity, ${product}.ready_to_list,
    ${product}.retail_price_cents, ${product}.complete_channels, ${sign} AS sign`;

const SMALL = 'pricing_type, purchase_mode, in_stock, ready_to_list';
/** The grains of facet_cells (Migration20261122080000_facet_cells; GRAINS in src/catalogue/cells.ts). */
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

const LOCK = 4_207_081;

export class Migration20261125040000_store_cells extends Migration {
  override name = 'Migration20261125040000_store_cells';

  override up(): void {
    this.addSql(`
CREATE TABLE store_cells (
  store_id integer NOT NULL,
  kind smallint NOT NULL,
  grain smallint NOT NULL,
  owner_store_id integer,
  brand_id integer,
  category_id integer,
  supplier_id integer,
  pricing_type text,
  purchase_mode text,
  in_stock boolean,
  ready_to_list boolean,
  price_band smallint,
  complete_channels smallint,
  n integer NOT NULL
);
CREATE UNIQUE INDEX store_cells_key ON store_cells (store_id, kind, grain, ${DIMS}) NULLS NOT DISTINCT;

CREATE TABLE store_cell_deltas (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL,
  kind smallint NOT NULL,
  owner_store_id integer,
  brand_id integer,
  category_id integer,
  supplier_id integer NOT NULL,
  pricing_type text NOT NULL,
  purchase_mode text NOT NULL,
  in_stock boolean NOT NULL,
  ready_to_list boolean NOT NULL,
  price_band smallint NOT NULL,
  complete_channels smallint NOT NULL,
  n integer NOT NULL
);
CREATE INDEX store_cell_deltas_store_idx ON store_cell_deltas (store_id, kind);
ALTER TABLE store_cell_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
  autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000);

-- Callers hold the advisory lock ${LOCK}.
CREATE FUNCTION store_cells_fold_locked() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (DELETE FROM store_cell_deltas RETURNING *)
  INSERT INTO store_cells (store_id, kind, grain, ${DIMS}, n)
  SELECT store_id, kind, GROUPING(${DIMS}), ${DIMS}, sum(n)
  FROM d
  GROUP BY store_id, kind, GROUPING SETS (${GRAINS.join(',\n    ')})
  HAVING sum(n) <> 0
  ON CONFLICT (store_id, kind, grain, ${DIMS}) DO UPDATE SET n = store_cells.n + EXCLUDED.n;
  DELETE FROM store_cells WHERE n = 0;
END $$;

CREATE FUNCTION store_cells_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(${LOCK});
  PERFORM store_cells_fold_locked();
END $$;

-- As facet_cells_try_fold: housekeeping that never fails the write.
CREATE FUNCTION store_cells_try_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') = 'read committed' AND pg_try_advisory_xact_lock(${LOCK}) THEN
    BEGIN
      PERFORM store_cells_fold_locked();
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'store cells fold skipped: %', SQLERRM;
    END;
  END IF;
END $$;

CREATE FUNCTION store_cells_note(lo bigint, hi bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF hi / 512 > (lo - 1) / 512 THEN PERFORM store_cells_try_fold(); END IF;
END $$;

CREATE FUNCTION store_cells_listings_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  ${appendDeltas(`${sourceRow('r', 'p', '1')} FROM new_rows r JOIN products p ON p.id = r.product_id
    WHERE r.deleted_at IS NULL AND p.active`)}
  RETURN NULL;
END $$;

CREATE FUNCTION store_cells_listings_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  ${appendDeltas(`${sourceRow('r', 'p', '-1')} FROM old_rows r JOIN products p ON p.id = r.product_id
    WHERE r.deleted_at IS NULL AND p.active`)}
  RETURN NULL;
END $$;

-- Only listings whose store, product, price, mode or liveness changed are recounted.
CREATE FUNCTION store_cells_listings_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  ${appendDeltas(`WITH moved AS (
      SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.store_id, o.product_id, o.custom_retail_price_cents, o.purchase_mode, o.deleted_at IS NULL)
        IS DISTINCT FROM (n.store_id, n.product_id, n.custom_retail_price_cents, n.purchase_mode, n.deleted_at IS NULL))
    ${sourceRow('r', 'p', '-1')} FROM old_rows r JOIN products p ON p.id = r.product_id
      WHERE r.deleted_at IS NULL AND p.active AND r.id IN (SELECT id FROM moved)
    UNION ALL
    ${sourceRow('r', 'p', '1')} FROM new_rows r JOIN products p ON p.id = r.product_id
      WHERE r.deleted_at IS NULL AND p.active AND r.id IN (SELECT id FROM moved)`)}
  RETURN NULL;
END $$;

-- A product that changed cell or activity is recounted in every store listing it.
CREATE FUNCTION store_cells_products_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  ${appendDeltas(`WITH moved AS (
      SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.active, ${cellOf('o')}) IS DISTINCT FROM (n.active, ${cellOf('n')})
    ), held AS (
      SELECT l.store_id, l.product_id, l.custom_retail_price_cents, l.purchase_mode FROM listings l
      WHERE l.product_id IN (SELECT id FROM moved) AND l.deleted_at IS NULL
      FOR SHARE OF l
    )
    ${sourceRow('l', 'p', '-1')} FROM held l JOIN old_rows p ON p.id = l.product_id WHERE p.active
    UNION ALL
    ${sourceRow('l', 'p', '1')} FROM held l JOIN new_rows p ON p.id = l.product_id WHERE p.active`)}
  RETURN NULL;
END $$;

CREATE FUNCTION store_cells_product_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  IF OLD.active THEN
    ${appendDeltas(`${sourceRow('l', 'p', '-1')} FROM listings l JOIN products p ON p.id = l.product_id
      WHERE l.product_id = OLD.id AND l.deleted_at IS NULL`)}
  END IF;
  RETURN OLD;
END $$;

CREATE FUNCTION store_cells_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM store_cell_deltas;
  DELETE FROM store_cells;
  RETURN NULL;
END $$;

CREATE TRIGGER listings_store_cells_ins AFTER INSERT ON listings
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_cells_listings_inserted();
CREATE TRIGGER listings_store_cells_upd AFTER UPDATE ON listings
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_cells_listings_updated();
CREATE TRIGGER listings_store_cells_del AFTER DELETE ON listings
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION store_cells_listings_deleted();
CREATE TRIGGER listings_store_cells_trunc AFTER TRUNCATE ON listings
  FOR EACH STATEMENT EXECUTE FUNCTION store_cells_truncated();
CREATE TRIGGER products_store_cells_upd AFTER UPDATE ON products
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_cells_products_updated();
CREATE TRIGGER products_store_cells_del BEFORE DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION store_cells_product_deleting();

-- The listings as they stand.
DO $$
DECLARE lo bigint; hi bigint;
BEGIN
  ${appendDeltas(`${sourceRow('r', 'p', '1')} FROM listings r JOIN products p ON p.id = r.product_id
    WHERE r.deleted_at IS NULL AND p.active`)}
END $$;
SELECT store_cells_fold();
ANALYZE store_cells;
`);
  }
}
