import { Migration } from '@mikro-orm/migrations';

/**
 * A bulk load (the operator's `seed`, the bench's build) inserts products with their stock already
 * summed from the variants it inserts next, so the variants' insert trigger would only rewrite every
 * product it just wrote (one more row version, in every product index). Under the transaction
 * setting `stockless.bulk_load = on`, set only by that code path for its own batch, new variants do
 * not add their stock to their product. Updates and deletes of variants always do.
 */
export class Migration20261125060000_bulk_load_stock extends Migration {
  override name = 'Migration20261125060000_bulk_load_stock';

  override up(): void {
    this.addSql(`
CREATE OR REPLACE FUNCTION product_stock_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('stockless.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM 1 FROM products WHERE id IN (SELECT product_id FROM new_rows) ORDER BY id FOR UPDATE;
  UPDATE products p SET stock_quantity = p.stock_quantity + d.delta, updated_at = now()
  FROM (SELECT product_id, sum(stock_quantity)::integer AS delta FROM new_rows
        GROUP BY product_id HAVING sum(stock_quantity) <> 0 ORDER BY product_id) d
  WHERE p.id = d.product_id;
  RETURN NULL;
END $$;
`);
  }
}
