-- As facet_cells_try_fold: housekeeping that never fails the write.

CREATE OR REPLACE FUNCTION public.store_cells_try_fold()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF current_setting('transaction_isolation') = 'read committed' AND pg_try_advisory_xact_lock(4207081) THEN
    BEGIN
      PERFORM store_cells_fold_locked();
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'store cells fold skipped: %', SQLERRM;
    END;
  END IF;
END $function$;
