import { Migration } from '@mikro-orm/migrations';

/**
 * `sort_by=margin` reads products in the order of their earn per sale at the suggested retail
 * price (src/catalogue/filters.ts, CATALOGUE_EARN_PER_SALE: the expression here must stay that
 * one), so a page is an index range instead of a sort of the whole catalogue.
 */
export class Migration20261125010000_margin_index extends Migration {
  override name = 'Migration20261125010000_margin_index';

  override up(): void {
    this.addSql(`
CREATE INDEX products_margin_idx ON products (((CASE pricing_type
  WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
  ELSE retail_price_cents - wholesale_price_cents END)::integer), id);
`);
  }
}
