import { Migration } from '@mikro-orm/migrations';

/**
 * The order list's total for the filters that have few values (status, channel, needs_attention),
 * per store and mode, kept as counts: counting the rows read every order of the store for each
 * page (the bench store's 333,000 orders: ~200 ms a page at 2M, and 2 s with a status under the id
 * order). As the facet cells are (Migration20261122080000_facet_cells): statement-level triggers
 * append each statement's changes to `order_count_deltas` (insert only, so two orders placed at once
 * never wait on a shared counter row), readers add the pending deltas to `order_counts`, and a writer
 * folds the deltas in about every 512 rows when no other transaction is folding.
 */
const DIMS = 'store_id, livemode, status, channel, needs_attention';
const dimsOf = (r: string) => `${r}.store_id, ${r}.livemode, ${r}.status, ${r}.channel, ${r}.needs_attention`;
const LOCK = 27_090_001;

export class Migration20261128090000_order_counts extends Migration {
  override name = 'Migration20261128090000_order_counts';

  override up(): void {
    this.addSql(`
CREATE TABLE order_counts (
  store_id integer NOT NULL,
  livemode boolean NOT NULL,
  status text NOT NULL,
  channel text NOT NULL,
  needs_attention boolean NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (store_id, livemode, status, channel, needs_attention)
);

CREATE TABLE order_count_deltas (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL,
  livemode boolean NOT NULL,
  status text NOT NULL,
  channel text NOT NULL,
  needs_attention boolean NOT NULL,
  n integer NOT NULL
);
CREATE INDEX order_count_deltas_store_idx ON order_count_deltas (store_id, livemode);
ALTER TABLE order_count_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
  autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000);

-- Moves every visible delta into the counts. Callers hold the advisory lock ${LOCK}.
CREATE FUNCTION order_counts_fold_locked() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (DELETE FROM order_count_deltas RETURNING *)
  INSERT INTO order_counts (${DIMS}, n)
  SELECT ${DIMS}, sum(n) FROM d GROUP BY ${DIMS} HAVING sum(n) <> 0
  ON CONFLICT (${DIMS}) DO UPDATE SET n = order_counts.n + EXCLUDED.n;
  DELETE FROM order_counts WHERE n = 0;
END $$;

CREATE FUNCTION order_counts_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(${LOCK});
  PERFORM order_counts_fold_locked();
END $$;

-- From writers: only when no other transaction folds, and only under READ COMMITTED (a REPEATABLE
-- READ snapshot could predate another fold). Housekeeping: a failed fold leaves the deltas pending.
CREATE FUNCTION order_counts_note(lo bigint, hi bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF hi / 512 > (lo - 1) / 512 AND current_setting('transaction_isolation') = 'read committed'
     AND pg_try_advisory_xact_lock(${LOCK}) THEN
    BEGIN
      PERFORM order_counts_fold_locked();
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'order counts fold skipped: %', SQLERRM;
    END;
  END IF;
END $$;

CREATE FUNCTION order_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH ins AS (
    INSERT INTO order_count_deltas (${DIMS}, n)
    SELECT ${dimsOf('r')}, count(*) FROM new_rows r GROUP BY ${dimsOf('r')}
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM order_counts_note(lo, hi); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION order_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH ins AS (
    INSERT INTO order_count_deltas (${DIMS}, n)
    SELECT ${dimsOf('r')}, -count(*) FROM old_rows r GROUP BY ${dimsOf('r')}
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM order_counts_note(lo, hi); END IF;
  RETURN NULL;
END $$;

-- Only orders whose counted columns changed move: a tracking number or an invoice writes nothing.
CREATE FUNCTION order_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH moved AS (
    SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (${dimsOf('o')}) IS DISTINCT FROM (${dimsOf('n')})
  ), ins AS (
    INSERT INTO order_count_deltas (${DIMS}, n)
    SELECT ${DIMS}, sum(n) FROM (
      SELECT ${dimsOf('r')}, -1 AS n FROM old_rows r WHERE r.id IN (SELECT id FROM moved)
      UNION ALL
      SELECT ${dimsOf('r')}, 1 FROM new_rows r WHERE r.id IN (SELECT id FROM moved)
    ) c (${DIMS}, n)
    GROUP BY ${DIMS} HAVING sum(n) <> 0
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM order_counts_note(lo, hi); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION order_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM order_count_deltas;
  DELETE FROM order_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER orders_counts_ins AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_inserted();
CREATE TRIGGER orders_counts_upd AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_updated();
CREATE TRIGGER orders_counts_del AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_deleted();
CREATE TRIGGER orders_counts_trunc AFTER TRUNCATE ON orders
  FOR EACH STATEMENT EXECUTE FUNCTION order_counts_truncated();

-- The orders as they stand.
INSERT INTO order_counts (${DIMS}, n)
SELECT ${DIMS}, count(*) FROM orders GROUP BY ${DIMS};
ANALYZE order_counts;
`);
  }
}
