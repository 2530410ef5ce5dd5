-- Facet cells: a statement's deleted active products appended as negative deltas (insert only, so writers never wait
-- on a shared counter row); folded now and then. Story: Migration20261122080000_facet_cells.

CREATE OR REPLACE FUNCTION public.facet_cells_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH ins AS (
    INSERT INTO facet_cell_deltas (owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    SELECT r.owner_store_id, r.brand_id, r.category_id, r.supplier_id,
  r.pricing_type, r.purchase_mode, r.stock_quantity > 0, r.ready_to_list,
  facet_price_band(r.retail_price_cents), r.complete_channels, -count(*) FROM old_rows r WHERE r.active GROUP BY r.owner_store_id, r.brand_id, r.category_id, r.supplier_id,
  r.pricing_type, r.purchase_mode, r.stock_quantity > 0, r.ready_to_list,
  facet_price_band(r.retail_price_cents), r.complete_channels
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM facet_cells_note(lo, hi); END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_facet_cells_del AFTER DELETE ON public.products REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_deleted();
