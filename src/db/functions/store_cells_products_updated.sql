-- Store cells: a product that changed cell or activity is recounted in every store listing it.

CREATE OR REPLACE FUNCTION public.store_cells_products_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE lo bigint; hi bigint;
BEGIN
  
  WITH s AS (WITH moved AS (
      SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.active, o.owner_store_id, o.brand_id, o.category_id, o.supplier_id,
  o.pricing_type, o.purchase_mode, o.stock_quantity > 0, o.ready_to_list,
  facet_price_band(o.retail_price_cents), o.complete_channels) IS DISTINCT FROM (n.active, n.owner_store_id, n.brand_id, n.category_id, n.supplier_id,
  n.pricing_type, n.purchase_mode, n.stock_quantity > 0, n.ready_to_list,
  facet_price_band(n.retail_price_cents), n.complete_channels)
    ), held AS (
      SELECT l.store_id, l.product_id, l.custom_retail_price_cents, l.purchase_mode FROM listings l
      WHERE l.product_id IN (SELECT id FROM moved) AND l.deleted_at IS NULL
      FOR SHARE OF l
    )
    SELECT l.store_id, l.custom_retail_price_cents AS l_price, l.purchase_mode AS l_mode,
    p.owner_store_id, p.brand_id, p.category_id, p.supplier_id,
    p.pricing_type, p.purchase_mode, p.stock_quantity, p.ready_to_list,
    p.retail_price_cents, p.complete_channels, -1 AS sign FROM held l JOIN old_rows p ON p.id = l.product_id WHERE p.active
    UNION ALL
    SELECT l.store_id, l.custom_retail_price_cents AS l_price, l.purchase_mode AS l_mode,
    p.owner_store_id, p.brand_id, p.category_id, p.supplier_id,
    p.pricing_type, p.purchase_mode, p.stock_quantity, p.ready_to_list,
    p.retail_price_cents, p.complete_channels, 1 AS sign FROM held l JOIN new_rows p ON p.id = l.product_id WHERE p.active), ins AS (
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

CREATE OR REPLACE TRIGGER products_store_cells_upd AFTER UPDATE ON public.products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_cells_products_updated();
