import { Migration } from '@mikro-orm/migrations';

/**
 * Precomputed facet counts. A "cell" counts the active products sharing one combination of facet
 * dimensions, at one grain (a subset of the dimensions; the others rolled up). The grains are the
 * grouping sets below; src/catalogue/cells.ts lists the same ones and answers facets from the
 * smallest grain that holds every dimension a facet needs.
 *
 * Exact at every snapshot: a statement-level trigger on products appends each statement's changes
 * to `facet_cell_deltas` (insert only, so concurrent writers never wait on a shared counter row and
 * never deadlock), and readers add the pending deltas to the cells. `facet_cells_fold()` moves the
 * deltas into the cells in one transaction (delete + upsert), one folder at a time (advisory lock);
 * writers try a fold about every 512 delta rows and skip it when another transaction holds the lock.
 */
const DIMS = `owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels`;

/** The dimensions of a products row `r`, in DIMS order. */
const dimsOf = (r: string) => `${r}.owner_store_id, ${r}.brand_id, ${r}.category_id, ${r}.supplier_id,
  ${r}.pricing_type, ${r}.purchase_mode, ${r}.stock_quantity > 0, ${r}.ready_to_list,
  facet_price_band(${r}.retail_price_cents), ${r}.complete_channels`;

/** Grouping sets; keep in step with GRAINS in src/catalogue/cells.ts. */
const SMALL = 'pricing_type, purchase_mode, in_stock, ready_to_list';
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

const LOCK = 4_207_080;

export class Migration20261122080000_facet_cells extends Migration {
  override name = 'Migration20261122080000_facet_cells';

  override up(): void {
    this.addSql(`
-- Retail price band: 0-based index into src/catalogue/facets.ts PRICE_BANDS (min inclusive).
CREATE FUNCTION facet_price_band(cents integer) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (width_bucket(cents, ARRAY[0, 2500, 5000, 10000, 25000, 50000, 100000]) - 1)::smallint;

-- grain = GROUPING() over the ten dimensions in column order: bit set = rolled up (NULL here).
CREATE TABLE facet_cells (
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
CREATE UNIQUE INDEX facet_cells_key ON facet_cells (grain, ${DIMS}) NULLS NOT DISTINCT;
CREATE INDEX facet_cells_empty_idx ON facet_cells (grain) WHERE n = 0;

-- Changes not folded yet, at full dimensionality.
CREATE TABLE facet_cell_deltas (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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

-- Moves every visible delta into the cells. Callers hold the advisory lock ${LOCK}.
CREATE FUNCTION facet_cells_fold_locked() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (DELETE FROM facet_cell_deltas RETURNING *)
  INSERT INTO facet_cells (grain, ${DIMS}, n)
  SELECT GROUPING(${DIMS}), ${DIMS}, sum(n)
  FROM d
  GROUP BY GROUPING SETS (${GRAINS.join(',\n    ')})
  HAVING sum(n) <> 0
  ON CONFLICT (grain, ${DIMS}) DO UPDATE SET n = facet_cells.n + EXCLUDED.n;
  DELETE FROM facet_cells WHERE n = 0;
END $$;

-- Waits for the lock: for maintenance (the readiness pass, tests).
CREATE FUNCTION facet_cells_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(${LOCK});
  PERFORM facet_cells_fold_locked();
END $$;

-- From writers: folds only when no other transaction is folding, and only under READ COMMITTED
-- (a REPEATABLE READ snapshot could predate another fold and fail on its deleted deltas). A fold
-- is housekeeping: should it fail, it is undone (the deltas stay pending) and the write goes on.
CREATE FUNCTION facet_cells_try_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') = 'read committed' AND pg_try_advisory_xact_lock(${LOCK}) THEN
    BEGIN
      PERFORM facet_cells_fold_locked();
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'facet cells fold skipped: %', SQLERRM;
    END;
  END IF;
END $$;

CREATE FUNCTION facet_cells_note(lo bigint, hi bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF hi / 512 > (lo - 1) / 512 THEN PERFORM facet_cells_try_fold(); END IF;
END $$;

CREATE FUNCTION facet_cells_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH ins AS (
    INSERT INTO facet_cell_deltas (${DIMS}, n)
    SELECT ${dimsOf('r')}, count(*) FROM new_rows r WHERE r.active GROUP BY ${dimsOf('r')}
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM facet_cells_note(lo, hi); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION facet_cells_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH ins AS (
    INSERT INTO facet_cell_deltas (${DIMS}, n)
    SELECT ${dimsOf('r')}, -count(*) FROM old_rows r WHERE r.active GROUP BY ${dimsOf('r')}
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM facet_cells_note(lo, hi); END IF;
  RETURN NULL;
END $$;

-- Only rows whose dimensions (or active flag) changed move between cells: a stock change that
-- stays above zero, a rename or a price change within its band writes nothing.
CREATE FUNCTION facet_cells_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH moved AS (
    SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.active, ${dimsOf('o')}) IS DISTINCT FROM (n.active, ${dimsOf('n')})
  ), ins AS (
    INSERT INTO facet_cell_deltas (${DIMS}, n)
    SELECT ${DIMS}, sum(n) FROM (
      SELECT ${dimsOf('r')}, -1 AS n FROM old_rows r WHERE r.active AND r.id IN (SELECT id FROM moved)
      UNION ALL
      SELECT ${dimsOf('r')}, 1 FROM new_rows r WHERE r.active AND r.id IN (SELECT id FROM moved)
    ) c (${DIMS}, n)
    GROUP BY ${DIMS} HAVING sum(n) <> 0
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM facet_cells_note(lo, hi); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION facet_cells_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM facet_cell_deltas;
  DELETE FROM facet_cells;
  RETURN NULL;
END $$;

CREATE TRIGGER products_facet_cells_ins AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_inserted();
CREATE TRIGGER products_facet_cells_upd AFTER UPDATE ON products
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_updated();
CREATE TRIGGER products_facet_cells_del AFTER DELETE ON products
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_deleted();
CREATE TRIGGER products_facet_cells_trunc AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_truncated();

-- The per-store correction reads a store's listings that change a product's price band or mode.
CREATE INDEX listings_store_custom_idx ON listings (store_id, product_id)
  WHERE deleted_at IS NULL AND (custom_retail_price_cents IS NOT NULL OR purchase_mode IS NOT NULL);

-- The catalogue as it stands.
INSERT INTO facet_cell_deltas (${DIMS}, n)
SELECT ${dimsOf('p')}, count(*) FROM products p WHERE p.active GROUP BY ${dimsOf('p')};
SELECT facet_cells_fold_locked();
ANALYZE facet_cells;
`);
  }
}
