-- After a writer appends store-cell deltas: folds about every 512 delta ids.

CREATE OR REPLACE FUNCTION public.store_cells_note(lo bigint, hi bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF hi / 512 > (lo - 1) / 512 THEN PERFORM store_cells_try_fold(); END IF;
END $function$;
