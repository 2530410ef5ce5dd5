import { Migration } from '@mikro-orm/migrations';

/**
 * What the catalogue's maintenance needs to record (docs/decisions.md, "Catalogue maintenance"):
 * - a withdrawal (`withdrawn_at`, with `active` false): the product leaves the catalogue and every
 *   store, but listing rows stay so their history, orders and settings survive a reinstatement;
 * - a retired variant (`retired_at`): order lines reference variants, so retiring keeps the row; a
 *   retired variant holds no stock, so the product's stock (the sum of its variants) stays right;
 * - channel visibility: the channels a supplier keeps a product off (`products.hidden_channels`) and
 *   those a store hides its listing from (`listings.hidden_channels`);
 * - a listing's own title (`listings.custom_title`).
 * Columns without a volatile default are catalogue-only changes for PostgreSQL: nothing is rewritten.
 */
export class Migration20261125120000_catalogue_maintenance extends Migration {
  override name = 'Migration20261125120000_catalogue_maintenance';

  override up(): void {
    this.addSql(`
ALTER TABLE products ADD COLUMN withdrawn_at timestamptz,
  ADD COLUMN hidden_channels text[] NOT NULL DEFAULT '{}';
ALTER TABLE product_variants ADD COLUMN retired_at timestamptz,
  ADD CONSTRAINT product_variants_retired_empty CHECK (retired_at IS NULL OR stock_quantity = 0) NOT VALID;
ALTER TABLE product_variants VALIDATE CONSTRAINT product_variants_retired_empty;
ALTER TABLE listings ADD COLUMN custom_title text CHECK (length(custom_title) BETWEEN 1 AND 200),
  ADD COLUMN hidden_channels text[] NOT NULL DEFAULT '{}';
`);
  }
}
