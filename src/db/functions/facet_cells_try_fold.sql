-- From writers: folds only when no other transaction is folding, and only under READ COMMITTED (a REPEATABLE READ
-- snapshot could predate another fold). Housekeeping: a failed fold is undone, the deltas stay pending, the write goes on.

CREATE OR REPLACE FUNCTION public.facet_cells_try_fold()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF current_setting('transaction_isolation') = 'read committed' AND pg_try_advisory_xact_lock(4207080) THEN
    BEGIN
      PERFORM facet_cells_fold_locked();
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'facet cells fold skipped: %', SQLERRM;
    END;
  END IF;
END $function$;
