import { Migration } from '@mikro-orm/migrations';

/**
 * Every catalogue filter a page is chosen on alone (without the store's listings) reads these
 * columns; carried in each sort index, a page is an index-only range, and a deep page skips index
 * entries instead of fetching a heap row for each product it passes (page 5,000 of 2M products:
 * 1.6 s of heap reads became ~25 ms). Price and selling mode ride along for the listing-dependent
 * filters, which then read the heap only for the store's listings.
 */
const FILTER_COLUMNS = `active, owner_store_id, stock_quantity, pricing_type, purchase_mode,
  ready_to_list, brand_id, category_id, supplier_id, complete_channels, retail_price_cents`;

const SORT_INDEXES: [name: string, key: string][] = [
  ['products_created_idx', 'created_at, id'],
  ['products_updated_idx', 'updated_at, id'],
  ['products_name_idx', 'name, id'],
  ['products_retail_idx', 'retail_price_cents, id'],
  ['products_wholesale_idx', 'wholesale_price_cents, id'],
  ['products_stock_idx', 'stock_quantity, id'],
  ['products_readiness_idx', 'readiness_score, id'],
  ['products_recommended_idx', 'recommended_score, id'],
  ['products_sku_sort_idx', 'sku, id'],
  [
    'products_margin_idx',
    `((CASE pricing_type
      WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
      ELSE retail_price_cents - wholesale_price_cents END)::integer), id`,
  ],
];

export class Migration20261125030000_covering_sort_indexes extends Migration {
  override name = 'Migration20261125030000_covering_sort_indexes';

  override up(): void {
    for (const [name, key] of SORT_INDEXES) {
      this.addSql(`DROP INDEX IF EXISTS ${name};`);
      this.addSql(`CREATE INDEX ${name} ON products (${key}) INCLUDE (${FILTER_COLUMNS});`);
    }
  }
}
