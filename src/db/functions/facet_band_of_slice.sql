-- The contract's price band a price slice lies in, for the cells kept by band (the deltas carry the slice).
-- Story: Migration20261128120000_price_slices.

CREATE OR REPLACE FUNCTION public.facet_band_of_slice(slice smallint)
 RETURNS smallint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((width_bucket((slice)::integer, ARRAY[0, 1, 2, 4, 10, 20, 40]) - 1))::smallint;
