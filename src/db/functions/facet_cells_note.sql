-- After a writer appends facet deltas: folds about every 512 delta ids, except under stockless.bulk_load, whose
-- load folds once at its end. Story: Migration20261125090000_bulk_load_folds.

CREATE OR REPLACE FUNCTION public.facet_cells_note(lo bigint, hi bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF current_setting('stockless.bulk_load', true) = 'on' THEN RETURN; END IF;
  IF hi / 512 > (lo - 1) / 512 THEN PERFORM facet_cells_try_fold(); END IF;
END $function$;
