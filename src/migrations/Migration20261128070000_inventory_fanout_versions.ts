import { Migration } from '@mikro-orm/migrations';

/**
 * The stock fan-out drains the waiting changes of many products per transaction
 * (src/inventory/fanout-drain.ts) instead of one job's transactions per product: at 2M products, 10
 * connections of two-line orders on distinct products queued ~150 changes a second and the worker,
 * one product at a time, fanned out ~50 (the backlog reached 129,000 products in 13 minutes).
 *
 * - A drain reads the rows without locking them, so an order changing the same product is never held
 *   behind a drain; `version` tells the drain's delete whether the row it read is still the one
 *   waiting (a change committed after the read leaves it for the next drain, which it queues).
 * - Only a change that inserts the waiting row queues a job: while a row waits, a drain is already
 *   owed. Jobs are keyed by one of 64 shards of the product id, not by product: a job drains every
 *   waiting product, so one per product was a job run per change (Graphile's own cost per job then
 *   bounded the rate), while one key for all would make every order wait on the same job row.
 */
export class Migration20261128070000_inventory_fanout_versions extends Migration {
  override name = 'Migration20261128070000_inventory_fanout_versions';

  override up(): void {
    this.addSql(`
ALTER TABLE inventory_fanout_pending ADD COLUMN version integer NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION product_stock_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  queued integer;
BEGIN
  -- In product order, so concurrent statements take the pending rows (and then the job rows) in one order.
  WITH changed AS (
    SELECT n.product_id, CASE WHEN count(DISTINCT n.id) = 1 THEN min(n.id) END AS variant_id
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.stock_quantity IS DISTINCT FROM o.stock_quantity
    GROUP BY n.product_id
    ORDER BY n.product_id
  ), pending AS (
    INSERT INTO inventory_fanout_pending AS w (product_id, variant_id)
    SELECT product_id, variant_id FROM changed
    ON CONFLICT (product_id) DO UPDATE
      SET variant_id = CASE WHEN w.variant_id = EXCLUDED.variant_id THEN w.variant_id END,
          version = w.version + 1
    RETURNING product_id, xmax = 0 AS inserted
  )
  SELECT count(add_keyed_job('inventory_fanout', json_build_object('product_id', s.product_id),
    'inventory_fanout:shard:' || s.shard, 'replace'))
  INTO queued
  FROM (SELECT product_id % 64 AS shard, min(product_id) AS product_id FROM pending WHERE inserted
        GROUP BY 1 ORDER BY 1) s;
  RETURN NULL;
END $$;
`);
  }
}
