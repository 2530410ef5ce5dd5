import { Migration } from '@mikro-orm/migrations';

/** The sort keys (and the margin's operands) the filter and driver indexes did not carry. */
const SORT_KEYS =
  'wholesale_price_cents, updated_at, readiness_score, recommended_score, commission_rate_bps';

const FILTERS = `active, owner_store_id, stock_quantity, pricing_type, purchase_mode, ready_to_list, brand_id,
  category_id, supplier_id, complete_channels, retail_price_cents`;
const FACTS = `active, owner_store_id, id, brand_id, category_id, supplier_id, stock_quantity, retail_price_cents,
  pricing_type, purchase_mode, ready_to_list, complete_channels, created_at`;
const MARGIN = `((CASE pricing_type
  WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
  ELSE retail_price_cents - wholesale_price_cents END)::integer), id`;

/**
 * A list page that a bounded walk of its sort index does not fill reads the filters' matches through
 * the index of a brand, supplier or category, the stock or the price range, and sorts them
 * (src/catalogue/page-ids.ts). Those indexes lacked most sort keys, so PostgreSQL either fetched a
 * heap row per match or read another index whole: a category's page in the wholesale order read all
 * 2M entries of products_facts_idx (763 ms at 2M; 120 ms index-only through the category's 100,000),
 * `in_stock=false` in the recommended order fetched 229,000 heap rows (1.5 s; 0.5 s). The margin
 * index carried the margin but not its operands, so its walk fetched a heap row per entry passed
 * (1.97 s for a category under a price; 0.43 s). The text keys (name, sku) stay out: they would
 * grow each index by half.
 */
export class Migration20261128110000_sort_key_covers extends Migration {
  override name = 'Migration20261128110000_sort_key_covers';

  override up(): void {
    const rebuild = (name: string, key: string, include: string) => {
      this.addSql(`DROP INDEX IF EXISTS ${name};`);
      this.addSql(`CREATE INDEX ${name} ON products (${key}) INCLUDE (${include});`);
    };
    for (const [name, column] of [
      ['products_brand_idx', 'brand_id'],
      ['products_supplier_idx', 'supplier_id'],
      ['products_category_idx', 'category_id'],
    ] as const)
      rebuild(name, column, `${FACTS.replace(`${column}, `, '')}, ${SORT_KEYS}`);
    rebuild('products_category_raw_idx', 'lower(category_raw)', `category_raw, ${FACTS}, ${SORT_KEYS}`);
    rebuild('products_stock_idx', 'stock_quantity, id', `${FILTERS}, created_at, ${SORT_KEYS}`);
    rebuild('products_retail_idx', 'retail_price_cents, id', `${FILTERS}, created_at, ${SORT_KEYS}`);
    rebuild('products_margin_idx', MARGIN, `${FILTERS}, wholesale_price_cents, commission_rate_bps`);
  }
}
