-- A change of a product's pricing recomputes the earn per sale of its re-priced listings (row locks on them).
-- Story: Migration20261125100000_listing_earn.

CREATE OR REPLACE FUNCTION public.products_listing_earn()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE listings l SET custom_earn_cents = earn_at(n.pricing_type, n.commission_rate_bps, n.wholesale_price_cents,
      l.custom_retail_price_cents)
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE l.product_id = n.id AND l.custom_retail_price_cents IS NOT NULL
    AND (o.pricing_type, o.commission_rate_bps, o.wholesale_price_cents)
      IS DISTINCT FROM (n.pricing_type, n.commission_rate_bps, n.wholesale_price_cents);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_listing_earn AFTER UPDATE ON public.products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_listing_earn();
