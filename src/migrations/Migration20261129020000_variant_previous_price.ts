import { Migration } from '@mikro-orm/migrations';

/**
 * A wholesale order line whose `price_cents` is not today's price was answered 409 `PRICE_CHANGED`
 * even when the price had never been that: a client's mistake read as a price change. A variant now
 * keeps the wholesale price it had before its last change, and when that change was, so an order can
 * tell a price that changed (409 `PRICE_CHANGED`) from one that never was (400 `PRICE_MISMATCH`).
 * Written by the catalogue's own price writes (src/catalogue/product-writes.ts), not by a trigger.
 * Nullable with no default: adding them rewrites nothing, at any catalogue size.
 */
export class Migration20261129020000_variant_previous_price extends Migration {
  override name = 'Migration20261129020000_variant_previous_price';

  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE product_variants
      ADD COLUMN previous_wholesale_price_cents integer CHECK (previous_wholesale_price_cents >= 0),
      ADD COLUMN wholesale_price_changed_at timestamptz`);
  }
}
