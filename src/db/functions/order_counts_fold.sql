-- Folds the pending order-count deltas, waiting for the fold lock: for maintenance and tests.

CREATE OR REPLACE FUNCTION public.order_counts_fold()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_advisory_xact_lock(27090001);
  PERFORM order_counts_fold_locked();
END $function$;
