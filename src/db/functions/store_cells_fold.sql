-- Folds the pending store-cell deltas, waiting for the fold lock: for maintenance and tests.

CREATE OR REPLACE FUNCTION public.store_cells_fold()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_advisory_xact_lock(4207081);
  PERFORM store_cells_fold_locked();
END $function$;
