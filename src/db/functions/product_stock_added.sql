-- A product's stock follows its inserted variants by adding the statement's change (never a re-read sum, which
-- would lose a concurrent writer's), products locked in id order. Skipped under stockless.bulk_load.

CREATE OR REPLACE FUNCTION public.product_stock_added()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF current_setting('stockless.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM 1 FROM products WHERE id IN (SELECT product_id FROM new_rows) ORDER BY id FOR UPDATE;
  UPDATE products p SET stock_quantity = p.stock_quantity + d.delta, updated_at = now()
  FROM (SELECT product_id, sum(stock_quantity)::integer AS delta FROM new_rows
        GROUP BY product_id HAVING sum(stock_quantity) <> 0 ORDER BY product_id) d
  WHERE p.id = d.product_id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER product_variants_stock_ins AFTER INSERT ON public.product_variants REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_added();
