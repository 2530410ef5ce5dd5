import { isoTime, type RawBuilder, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { EARN_PER_SALE, EFFECTIVE_PURCHASE_MODE, minimumPrice } from './filters.ts';
import type { CatalogueProduct } from './schemas.ts';

/** The columns of a catalogue list item (get-product.ts itemColumns reads the same for one product). */
export function productColumns(ctx: StoreCatalogueContext): RawBuilder<unknown> {
  return sql`p.id, p.name, p.description, p.sku, p.wholesale_price_cents, p.retail_price_cents,
    l.custom_retail_price_cents, p.image_url, p.stock_quantity,
    COALESCE(c.name, p.category_raw) AS category, p.weight_oz::float8 AS weight_oz,
    ${EARN_PER_SALE} AS earn_per_sale_cents, ${minimumPrice(ctx)} AS minimum_price_cents,
    b.name AS brand, p.supplier_id, p.pricing_type, ${EFFECTIVE_PURCHASE_MODE} AS purchase_mode,
    (l.id IS NOT NULL) AS in_store, ${isoTime(sql`p.created_at`)} AS created_at,
    ${isoTime(sql`p.updated_at`)} AS updated_at`;
}

export interface ProductRow {
  id: number;
  name: string;
  description: string;
  sku: string;
  wholesale_price_cents: number;
  retail_price_cents: number;
  custom_retail_price_cents: number | null;
  image_url: string | null;
  stock_quantity: number;
  category: string | null;
  weight_oz: number | null;
  earn_per_sale_cents: number;
  minimum_price_cents: number;
  brand: string | null;
  supplier_id: number;
  pricing_type: 'wholesale' | 'commission';
  purchase_mode: 'buy_now' | 'enquiry';
  in_store: boolean;
  created_at: string;
  updated_at: string;
}

export function toCatalogueProduct(r: ProductRow): CatalogueProduct {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    sku: r.sku,
    wholesale_price_cents: r.wholesale_price_cents,
    retail_price_cents: r.retail_price_cents,
    custom_retail_price_cents: r.custom_retail_price_cents,
    image_url: r.image_url,
    in_stock: r.stock_quantity > 0,
    stock_quantity: r.stock_quantity,
    metadata: { category: r.category, weight_oz: r.weight_oz },
    earn_per_sale_cents: r.earn_per_sale_cents,
    minimum_price_cents: r.minimum_price_cents,
    brand: r.brand,
    supplier_id: r.supplier_id,
    pricing_type: r.pricing_type,
    purchase_mode: r.purchase_mode,
    in_store: r.in_store,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
