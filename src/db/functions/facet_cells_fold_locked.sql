-- Moves every visible facet delta into the cells, by band for the band grains and by slice for the slice grains
-- (grain | 1024). Callers hold the fold's advisory lock. Story: Migration20261128120000_price_slices.

CREATE OR REPLACE FUNCTION public.facet_cells_fold_locked()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH d AS (DELETE FROM facet_cell_deltas RETURNING *), bands AS (
    INSERT INTO facet_cells (grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    SELECT GROUPING(owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels), owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, sum(n)
    FROM (SELECT owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, facet_band_of_slice(price_band), complete_channels, n FROM d) b (owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    GROUP BY GROUPING SETS ((owner_store_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
      (owner_store_id, brand_id, pricing_type, purchase_mode, in_stock, ready_to_list),
      (owner_store_id, category_id, pricing_type, purchase_mode, in_stock, ready_to_list),
      (owner_store_id, supplier_id, pricing_type, purchase_mode, in_stock, ready_to_list),
      (owner_store_id, brand_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
      (owner_store_id, category_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
      (owner_store_id, supplier_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
      (owner_store_id, brand_id, category_id, pricing_type, purchase_mode, in_stock, ready_to_list),
      (owner_store_id, brand_id, supplier_id, pricing_type, purchase_mode, in_stock, ready_to_list),
      (owner_store_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock, ready_to_list))
    HAVING sum(n) <> 0
    ON CONFLICT (grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels) DO UPDATE SET n = facet_cells.n + EXCLUDED.n
  )
  INSERT INTO facet_cells (grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
  SELECT GROUPING(owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels) | 1024, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, sum(n)
  FROM d
  GROUP BY GROUPING SETS ((owner_store_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
    (owner_store_id, brand_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
    (owner_store_id, category_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
    (owner_store_id, supplier_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels))
  HAVING sum(n) <> 0
  ON CONFLICT (grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels) DO UPDATE SET n = facet_cells.n + EXCLUDED.n;
  DELETE FROM facet_cells WHERE n = 0;
END $function$;
