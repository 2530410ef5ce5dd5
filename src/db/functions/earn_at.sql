-- A product's earn per sale at a retail price: commission share, or retail minus wholesale. Must stay the expression
-- of earnAt in src/catalogue/filters.ts (a test compares them). Story: Migration20261125100000_listing_earn.

CREATE OR REPLACE FUNCTION public.earn_at(pricing_type text, commission_rate_bps integer, wholesale_price_cents integer, retail integer)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN (CASE pricing_type WHEN 'commission'::text THEN ((((retail)::bigint * commission_rate_bps) + 5000) / 10000) ELSE ((retail - wholesale_price_cents))::bigint END)::integer;
