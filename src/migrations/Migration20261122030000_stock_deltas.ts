import { Migration } from '@mikro-orm/migrations';

/**
 * Product stock follows its variants by adding each statement's change, instead of writing a SUM
 * read from the statement's snapshot: two transactions changing different variants of one product
 * otherwise both write their own total, and the second overwrites the first's decrement.
 * `stock_quantity + delta` is re-evaluated on the latest row version after a lock wait, so it holds
 * under any concurrency. Products are locked in id order, so concurrent statements never deadlock.
 */
export class Migration20261122030000_stock_deltas extends Migration {
  override name = 'Migration20261122030000_stock_deltas';

  override up(): void {
    // Products are locked in id order first: an UPDATE … FROM locks in join order, which is not
    // guaranteed to be sorted.
    const apply = (source: string) => `
  PERFORM 1 FROM products WHERE id IN (SELECT product_id FROM (${source}) c) ORDER BY id FOR UPDATE;
  UPDATE products p SET stock_quantity = p.stock_quantity + d.delta, updated_at = now()
  FROM (SELECT product_id, sum(delta)::integer AS delta FROM (${source}) c
        GROUP BY product_id HAVING sum(delta) <> 0 ORDER BY product_id) d
  WHERE p.id = d.product_id;
  RETURN NULL;`;
    this.addSql(`
DROP TRIGGER product_variants_stock_ins ON product_variants;
DROP TRIGGER product_variants_stock_upd ON product_variants;
DROP TRIGGER product_variants_stock_del ON product_variants;
DROP FUNCTION product_stock_resum();

CREATE FUNCTION product_stock_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${apply('SELECT product_id, stock_quantity AS delta FROM new_rows')}
END $$;
CREATE FUNCTION product_stock_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${apply('SELECT product_id, -stock_quantity AS delta FROM old_rows')}
END $$;
CREATE FUNCTION product_stock_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${apply('SELECT product_id, stock_quantity AS delta FROM new_rows UNION ALL SELECT product_id, -stock_quantity FROM old_rows')}
END $$;

CREATE TRIGGER product_variants_stock_ins AFTER INSERT ON product_variants
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_added();
CREATE TRIGGER product_variants_stock_del AFTER DELETE ON product_variants
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_removed();
CREATE TRIGGER product_variants_stock_upd AFTER UPDATE ON product_variants
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_changed();
`);
  }
}
