import { Migration } from '@mikro-orm/migrations';

/**
 * `sort_by=margin` merges the products a store has not re-priced (in the order of the catalogue's
 * margin index) with its re-priced listings, which it sorted by their own earn per sale on every
 * request: 50,000 listings joined to their products, ~0.5 s. The earn per sale at the custom price
 * is now kept on the listing (`custom_earn_cents`, null without a custom price) and indexed per
 * store, so the re-priced stream is an index range too.
 *
 * `earn_at` must stay the expression of `earnAt` in src/catalogue/filters.ts (a test compares them
 * on every listing). Kept by a row trigger on the listing's price and product, and by a statement
 * trigger on the product's pricing fields. Both sides lock what they read against the other, as the
 * store cells do (Migration20261125040000_store_cells): the product side updates the listings (row
 * locks), the listing side runs after its row lock and reads the product with a fresh READ
 * COMMITTED snapshot. Recomputing the earn does not touch the listing's price or liveness, so the
 * store cells ignore it; the inventory feed sees it as a change of the listing.
 */
export class Migration20261125100000_listing_earn extends Migration {
  override name = 'Migration20261125100000_listing_earn';

  override up(): void {
    this.addSql(`
CREATE FUNCTION earn_at(pricing_type text, commission_rate_bps integer, wholesale_price_cents integer, retail integer)
  RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (CASE pricing_type WHEN 'commission' THEN (retail::bigint * commission_rate_bps + 5000) / 10000
    ELSE retail - wholesale_price_cents END)::integer;

ALTER TABLE listings ADD COLUMN custom_earn_cents integer;

CREATE FUNCTION listings_custom_earn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.custom_earn_cents := (SELECT earn_at(p.pricing_type, p.commission_rate_bps, p.wholesale_price_cents,
    NEW.custom_retail_price_cents) FROM products p WHERE p.id = NEW.product_id);
  RETURN NEW;
END $$;
CREATE TRIGGER listings_custom_earn BEFORE INSERT OR UPDATE OF custom_retail_price_cents, product_id ON listings
  FOR EACH ROW WHEN (NEW.custom_retail_price_cents IS NOT NULL OR NEW.custom_earn_cents IS NOT NULL)
  EXECUTE FUNCTION listings_custom_earn();

CREATE FUNCTION products_listing_earn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE listings l SET custom_earn_cents = earn_at(n.pricing_type, n.commission_rate_bps, n.wholesale_price_cents,
      l.custom_retail_price_cents)
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE l.product_id = n.id AND l.custom_retail_price_cents IS NOT NULL
    AND (o.pricing_type, o.commission_rate_bps, o.wholesale_price_cents)
      IS DISTINCT FROM (n.pricing_type, n.commission_rate_bps, n.wholesale_price_cents);
  RETURN NULL;
END $$;
CREATE TRIGGER products_listing_earn AFTER UPDATE ON products
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_listing_earn();

-- The listings as they stand, without waking the listings' own triggers (nothing a partner sees moved).
ALTER TABLE listings DISABLE TRIGGER USER;
UPDATE listings l SET custom_earn_cents = earn_at(p.pricing_type, p.commission_rate_bps, p.wholesale_price_cents,
    l.custom_retail_price_cents)
FROM products p WHERE p.id = l.product_id AND l.custom_retail_price_cents IS NOT NULL;
ALTER TABLE listings ENABLE TRIGGER USER;

CREATE INDEX listings_store_earn_idx ON listings (store_id, custom_earn_cents, product_id)
  WHERE deleted_at IS NULL AND custom_retail_price_cents IS NOT NULL;
`);
  }
}
