-- Moves every visible store-cell delta into store_cells, by band and by slice as the facet cells.
-- Callers hold the fold's advisory lock. Story: Migration20261128120000_price_slices.

CREATE OR REPLACE FUNCTION public.store_cells_fold_locked()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH d AS (DELETE FROM store_cell_deltas RETURNING *), bands AS (
    INSERT INTO store_cells (store_id, kind, grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    SELECT store_id, kind, GROUPING(owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels), owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, sum(n)
    FROM (SELECT store_id, kind, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, facet_band_of_slice(price_band), complete_channels, n FROM d) b (store_id, kind, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
    GROUP BY store_id, kind, GROUPING SETS ((owner_store_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
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
    ON CONFLICT (store_id, kind, grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels) DO UPDATE SET n = store_cells.n + EXCLUDED.n
  )
  INSERT INTO store_cells (store_id, kind, grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, n)
  SELECT store_id, kind, GROUPING(owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels) | 1024, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels, sum(n)
  FROM d
  GROUP BY store_id, kind, GROUPING SETS ((owner_store_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
    (owner_store_id, brand_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
    (owner_store_id, category_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels),
    (owner_store_id, supplier_id, pricing_type, purchase_mode, in_stock, ready_to_list, price_band, complete_channels))
  HAVING sum(n) <> 0
  ON CONFLICT (store_id, kind, grain, owner_store_id, brand_id, category_id, supplier_id, pricing_type, purchase_mode, in_stock,
  ready_to_list, price_band, complete_channels) DO UPDATE SET n = store_cells.n + EXCLUDED.n;
  DELETE FROM store_cells WHERE n = 0;
END $function$;
