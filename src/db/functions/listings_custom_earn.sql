-- Keeps a re-priced listing's earn per sale (custom_earn_cents) for sort_by=margin, reading its product with a fresh
-- snapshot after its row lock. Story: Migration20261125100000_listing_earn.

CREATE OR REPLACE FUNCTION public.listings_custom_earn()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  NEW.custom_earn_cents := (SELECT earn_at(p.pricing_type, p.commission_rate_bps, p.wholesale_price_cents,
    NEW.custom_retail_price_cents) FROM products p WHERE p.id = NEW.product_id);
  RETURN NEW;
END $function$;

CREATE OR REPLACE TRIGGER listings_custom_earn BEFORE INSERT OR UPDATE OF custom_retail_price_cents, product_id ON public.listings FOR EACH ROW WHEN (((new.custom_retail_price_cents IS NOT NULL) OR (new.custom_earn_cents IS NOT NULL))) EXECUTE FUNCTION listings_custom_earn();
