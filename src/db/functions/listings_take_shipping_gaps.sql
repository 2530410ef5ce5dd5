-- A new listing takes what its product lacks for shipping (shipping_gaps), after locking the product FOR KEY SHARE
-- (the lock its foreign key takes anyway). Story: Migration20261129000000_listing_shipping_gaps.

CREATE OR REPLACE FUNCTION public.listings_take_shipping_gaps()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE gaps smallint;
BEGIN
  -- Waits for a shipping-data update that holds the product FOR UPDATE. A KEY SHARE read returns the
  -- version its snapshot saw even past such an update, so the gaps are read by a statement of their
  -- own, whose fresh snapshot sees what that update committed.
  PERFORM FROM products WHERE id = NEW.product_id FOR KEY SHARE;
  SELECT product_shipping_gaps(p.weight_oz, p.width_cm, p.depth_cm, p.height_cm) INTO gaps FROM products p WHERE p.id = NEW.product_id;
  -- No product: the foreign key refuses the row after this trigger.
  NEW.shipping_gaps := COALESCE(gaps, 0);
  RETURN NEW;
END $function$;

CREATE OR REPLACE TRIGGER listings_take_shipping_gaps BEFORE INSERT ON public.listings FOR EACH ROW EXECUTE FUNCTION listings_take_shipping_gaps();
