-- Facet cells: only products whose dimensions (or active flag) changed move between cells: a stock change that stays
-- above zero, a rename or a price change within its slice writes nothing.

CREATE OR REPLACE FUNCTION public.facet_cells_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH moved AS (
    SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.active, o.owner_store_id, o.brand_id, o.category_id, o.supplier_id,
  o.pricing_type, o.purchase_mode, o.stock_quantity > 0, o.ready_to_list,
  facet_price_band(o.retail_price_cents), o.complete_channels) IS DISTINCT FROM (n.active, n.owner_store_id, n.brand_id, n.category_id, n.supplier_id,
  n.pricing_type, n.purchase_mode, n.stock_quantity > 0, n.ready_to_list,
  facet_price_band(n.retail_price_cents), n.complete_channels)
  ), ins AS (
    INSERT INTO facet_cell_deltas (owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    SELECT owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, sum(n) FROM (
      SELECT r.owner_store_id, r.brand_id, r.category_id, r.supplier_id,
  r.pricing_type, r.purchase_mode, r.stock_quantity > 0, r.ready_to_list,
  facet_price_band(r.retail_price_cents), r.complete_channels, -1 AS n FROM old_rows r WHERE r.active AND r.id IN (SELECT id FROM moved)
      UNION ALL
      SELECT r.owner_store_id, r.brand_id, r.category_id, r.supplier_id,
  r.pricing_type, r.purchase_mode, r.stock_quantity > 0, r.ready_to_list,
  facet_price_band(r.retail_price_cents), r.complete_channels, 1 FROM new_rows r WHERE r.active AND r.id IN (SELECT id FROM moved)
    ) c (owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    GROUP BY owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels HAVING sum(n) <> 0
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM facet_cells_note(lo, hi); END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_facet_cells_upd AFTER UPDATE ON public.products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facet_cells_updated();
