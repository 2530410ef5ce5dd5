-- A product's stock follows its deleted variants by subtracting their stock, products locked in id order.
-- Story: Migration20261122030000_stock_deltas.

CREATE OR REPLACE FUNCTION public.product_stock_removed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM 1 FROM products WHERE id IN (SELECT product_id FROM (SELECT product_id, -stock_quantity AS delta FROM old_rows) c) ORDER BY id FOR UPDATE;
  UPDATE products p SET stock_quantity = p.stock_quantity + d.delta, updated_at = now()
  FROM (SELECT product_id, sum(delta)::integer AS delta FROM (SELECT product_id, -stock_quantity AS delta FROM old_rows) c
        GROUP BY product_id HAVING sum(delta) <> 0 ORDER BY product_id) d
  WHERE p.id = d.product_id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER product_variants_stock_del AFTER DELETE ON public.product_variants REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_removed();
