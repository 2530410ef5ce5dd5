import { Migration } from '@mikro-orm/migrations';

/** The columns the facet statements read, so a filter's range of these indexes is read index-only. */
const FACTS = `active, owner_store_id, id, brand_id, category_id, supplier_id, stock_quantity, retail_price_cents,
  pricing_type, purchase_mode, ready_to_list, complete_channels, created_at`;

/**
 * Facets under a brand, a supplier or a taxonomy category that no cell grain holds with the other
 * filters (brand with category, supplier with a price bound...) scanned every product failing at
 * most one filter: 0.7–1.4 s at 2M. They now read only the products of the most selective of those
 * filters (docs/decisions.md, "Facets read through their most selective filter"), as a raw category
 * already did (Migration20261128020000_raw_category_cover); carrying the columns the counts read,
 * these indexes answer that read index-only (a brand of 25,000 products at 2M: ~300 pages, where
 * its heap rows are ~25,000).
 */
export class Migration20261128040000_taxonomy_covers extends Migration {
  override name = 'Migration20261128040000_taxonomy_covers';

  override up(): void {
    for (const [name, column] of [
      ['products_brand_idx', 'brand_id'],
      ['products_supplier_idx', 'supplier_id'],
      ['products_category_idx', 'category_id'],
    ]) {
      this.addSql(`DROP INDEX IF EXISTS ${name};`);
      this.addSql(
        `CREATE INDEX ${name} ON products (${column}) INCLUDE (${FACTS.replace(`${column}, `, '')});`,
      );
    }
  }
}
