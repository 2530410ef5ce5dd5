-- A change of a product's weight or dimensions sets the shipping gaps of every listing of it, removed ones too, after
-- locking the product FOR UPDATE. Story: Migration20261129000000_listing_shipping_gaps.

CREATE OR REPLACE FUNCTION public.products_shipping_gaps_fanout()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM 1 FROM products WHERE id = NEW.id FOR UPDATE;
  UPDATE listings SET shipping_gaps = product_shipping_gaps(NEW.weight_oz, NEW.width_cm, NEW.depth_cm, NEW.height_cm)
  WHERE product_id = NEW.id AND shipping_gaps <> product_shipping_gaps(NEW.weight_oz, NEW.width_cm, NEW.depth_cm, NEW.height_cm);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_shipping_gaps_fanout AFTER UPDATE OF weight_oz, width_cm, depth_cm, height_cm ON public.products FOR EACH ROW WHEN ((product_shipping_gaps(old.weight_oz, old.width_cm, old.depth_cm, old.height_cm) IS DISTINCT FROM product_shipping_gaps(new.weight_oz, new.width_cm, new.depth_cm, new.height_cm))) EXECUTE FUNCTION products_shipping_gaps_fanout();
