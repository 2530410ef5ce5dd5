-- From writers: folds about every 512 delta ids, only when no other transaction folds and only under READ COMMITTED.
-- Housekeeping: a failed fold leaves the deltas pending.

CREATE OR REPLACE FUNCTION public.order_counts_note(lo bigint, hi bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF hi / 512 > (lo - 1) / 512 AND current_setting('transaction_isolation') = 'read committed'
     AND pg_try_advisory_xact_lock(27090001) THEN
    BEGIN
      PERFORM order_counts_fold_locked();
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'order counts fold skipped: %', SQLERRM;
    END;
  END IF;
END $function$;
