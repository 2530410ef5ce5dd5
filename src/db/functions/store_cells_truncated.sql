-- Store cells: a truncated listings table leaves no cell and no pending delta.

CREATE OR REPLACE FUNCTION public.store_cells_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM store_cell_deltas;
  DELETE FROM store_cells;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER listings_store_cells_trunc AFTER TRUNCATE ON public.listings FOR EACH STATEMENT EXECUTE FUNCTION store_cells_truncated();
