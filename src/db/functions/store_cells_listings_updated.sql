-- Store cells: only listings whose store, product, price, mode or liveness changed are recounted.

CREATE OR REPLACE FUNCTION public.store_cells_listings_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE lo bigint; hi bigint;
BEGIN
  
  WITH s AS (WITH moved AS (
      SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.store_id, o.product_id, o.custom_retail_price_cents, o.purchase_mode, o.deleted_at IS NULL)
        IS DISTINCT FROM (n.store_id, n.product_id, n.custom_retail_price_cents, n.purchase_mode, n.deleted_at IS NULL))
    SELECT r.store_id, r.custom_retail_price_cents AS l_price, r.purchase_mode AS l_mode,
    p.owner_store_id, p.brand_id, p.category_id, p.supplier_id,
    p.pricing_type, p.purchase_mode, p.stock_quantity, p.ready_to_list,
    p.retail_price_cents, p.complete_channels, -1 AS sign FROM old_rows r JOIN products p ON p.id = r.product_id
      WHERE r.deleted_at IS NULL AND p.active AND r.id IN (SELECT id FROM moved)
    UNION ALL
    SELECT r.store_id, r.custom_retail_price_cents AS l_price, r.purchase_mode AS l_mode,
    p.owner_store_id, p.brand_id, p.category_id, p.supplier_id,
    p.pricing_type, p.purchase_mode, p.stock_quantity, p.ready_to_list,
    p.retail_price_cents, p.complete_channels, 1 AS sign FROM new_rows r JOIN products p ON p.id = r.product_id
      WHERE r.deleted_at IS NULL AND p.active AND r.id IN (SELECT id FROM moved)), ins AS (
    INSERT INTO store_cell_deltas (store_id, kind, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    SELECT store_id, kind, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, sum(n) FROM (
      SELECT s.store_id, 0::smallint, s.owner_store_id, s.brand_id, s.category_id, s.supplier_id,
  s.pricing_type, s.purchase_mode, s.stock_quantity > 0, s.ready_to_list,
  facet_price_band(s.retail_price_cents), s.complete_channels, -s.sign FROM s
      UNION ALL
      SELECT s.store_id, 1::smallint, s.owner_store_id, s.brand_id, s.category_id, s.supplier_id,
  s.pricing_type, s.purchase_mode, s.stock_quantity > 0, s.ready_to_list,
  facet_price_band(s.retail_price_cents), s.complete_channels, -s.sign FROM s WHERE facet_price_band(COALESCE(s.l_price, s.retail_price_cents)) <> facet_price_band(s.retail_price_cents) OR CASE WHEN s.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(s.l_mode, s.purchase_mode) END <> s.purchase_mode
      UNION ALL
      SELECT s.store_id, 1::smallint, s.owner_store_id, s.brand_id, s.category_id, s.supplier_id, s.pricing_type, CASE WHEN s.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(s.l_mode, s.purchase_mode) END,
  s.stock_quantity > 0, s.ready_to_list, facet_price_band(COALESCE(s.l_price, s.retail_price_cents)), s.complete_channels, s.sign FROM s WHERE facet_price_band(COALESCE(s.l_price, s.retail_price_cents)) <> facet_price_band(s.retail_price_cents) OR CASE WHEN s.purchase_mode = 'enquiry' THEN 'enquiry' ELSE COALESCE(s.l_mode, s.purchase_mode) END <> s.purchase_mode
    ) c (store_id, kind, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    GROUP BY store_id, kind, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels HAVING sum(n) <> 0
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM store_cells_note(lo, hi); END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER listings_store_cells_upd AFTER UPDATE ON public.listings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_cells_listings_updated();
