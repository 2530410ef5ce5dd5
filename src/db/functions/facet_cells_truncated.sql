-- Facet cells: a truncated products table leaves no cell and no pending delta.

CREATE OR REPLACE FUNCTION public.facet_cells_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM facet_cell_deltas;
  DELETE FROM facet_cells;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_facet_cells_trunc AFTER TRUNCATE ON public.products FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_truncated();
