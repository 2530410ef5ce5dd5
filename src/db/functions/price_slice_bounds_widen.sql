-- Widens a price slice's wholesale and earn bounds in the statement that puts a product beyond them, locking only the
-- slices it widens, in slice order. Bounds never narrow. Story: Migration20261129010000_price_slice_bounds.

CREATE OR REPLACE FUNCTION public.price_slice_bounds_widen()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM FROM price_slice_bounds b JOIN (SELECT facet_price_band(retail_price_cents) AS slice,
    min(wholesale_price_cents) AS w_lo, max(wholesale_price_cents) AS w_hi, min((CASE pricing_type WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
    ELSE retail_price_cents - wholesale_price_cents END)::integer) AS e_lo, max((CASE pricing_type WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
    ELSE retail_price_cents - wholesale_price_cents END)::integer) AS e_hi
    FROM changed GROUP BY 1) n ON n.slice = b.slice
    WHERE n.w_lo < b.wholesale_min OR n.w_hi > b.wholesale_max OR n.e_lo < b.earn_min OR n.e_hi > b.earn_max ORDER BY b.slice FOR UPDATE OF b;
  UPDATE price_slice_bounds b SET wholesale_min = LEAST(b.wholesale_min, n.w_lo), wholesale_max = GREATEST(b.wholesale_max, n.w_hi),
    earn_min = LEAST(b.earn_min, n.e_lo), earn_max = GREATEST(b.earn_max, n.e_hi) FROM (SELECT facet_price_band(retail_price_cents) AS slice,
    min(wholesale_price_cents) AS w_lo, max(wholesale_price_cents) AS w_hi, min((CASE pricing_type WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
    ELSE retail_price_cents - wholesale_price_cents END)::integer) AS e_lo, max((CASE pricing_type WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
    ELSE retail_price_cents - wholesale_price_cents END)::integer) AS e_hi
    FROM changed GROUP BY 1) n WHERE b.slice = n.slice AND (n.w_lo < b.wholesale_min OR n.w_hi > b.wholesale_max OR n.e_lo < b.earn_min OR n.e_hi > b.earn_max);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_price_slice_bounds_ins AFTER INSERT ON public.products REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_slice_bounds_widen();

CREATE OR REPLACE TRIGGER products_price_slice_bounds_upd AFTER UPDATE ON public.products REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_slice_bounds_widen();
