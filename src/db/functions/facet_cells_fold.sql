-- Folds the pending facet deltas into the cells, waiting for the fold lock: for maintenance (the readiness pass,
-- a bulk load's end, tests). Writers use facet_cells_try_fold instead.

CREATE OR REPLACE FUNCTION public.facet_cells_fold()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_advisory_xact_lock(4207080);
  PERFORM facet_cells_fold_locked();
END $function$;
