-- What a product lacks for shipping, as bits: 1 no weight, 2 a dimension missing (a listing's shipping_gaps).
-- Story: Migration20261129000000_listing_shipping_gaps.

CREATE OR REPLACE FUNCTION public.product_shipping_gaps(weight_oz numeric, width_cm numeric, depth_cm numeric, height_cm numeric)
 RETURNS smallint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT ((CASE WHEN weight_oz IS NULL THEN 1 ELSE 0 END)
    | (CASE WHEN width_cm IS NULL OR depth_cm IS NULL OR height_cm IS NULL THEN 2 ELSE 0 END))::smallint
$function$;
