import { Migration } from '@mikro-orm/migrations';

/**
 * Stock changes waiting for their fan-out, one row per product. The stock trigger queued
 * `inventory_fanout` with an array payload, which Graphile concatenates under the job key while the
 * job waits: with the worker behind or stopped, every order rewrote a payload one item longer (a
 * hot product's reached 80 KB after 1,860 orders), and wholesale throughput fell run after run on the
 * API and the raw baseline alike (182 → 69 orders/s in two minutes at 2M). The variant the event may
 * name is the only thing the items carried, and it merges into one value: the single variant every
 * waiting change touched, or none. That value now lives here, upserted beside the job, whose payload
 * is a fixed `{ product_id }` that Graphile replaces instead of extending.
 *
 * No foreign key: the row is read once by the job and a check per order buys nothing (a deleted
 * product's fan-out reaches no store). Its one column is never indexed, so each upsert stays HOT.
 */
export class Migration20261128050000_inventory_fanout_pending extends Migration {
  override name = 'Migration20261128050000_inventory_fanout_pending';

  override up(): void {
    this.addSql(`
CREATE TABLE inventory_fanout_pending (
  product_id integer PRIMARY KEY,
  variant_id integer
);

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
      SET variant_id = CASE WHEN w.variant_id = EXCLUDED.variant_id THEN w.variant_id END
    RETURNING product_id
  )
  SELECT count(add_keyed_job('inventory_fanout', json_build_object('product_id', product_id),
    'inventory_fanout:' || product_id, 'replace'))
  INTO queued
  FROM (SELECT product_id FROM pending ORDER BY product_id) p;
  RETURN NULL;
END $$;
`);
  }
}
