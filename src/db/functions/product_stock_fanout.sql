-- A variant's stock change waits in inventory_fanout_pending (its version bumped) and, when it is the product's first
-- change waiting, queues a drain job for its shard. Story: Migration20261128070000_inventory_fanout_versions.

CREATE OR REPLACE FUNCTION public.product_stock_fanout()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE TRIGGER product_variants_stock_fanout AFTER UPDATE ON public.product_variants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_fanout();
