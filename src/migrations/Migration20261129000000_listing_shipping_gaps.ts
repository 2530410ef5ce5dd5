import { Migration } from '@mikro-orm/migrations';

/**
 * `GET /my-products?missing=…` counted the store's listings whose product lacks a weight or a
 * dimension by joining every listing to its product: 0.7 s (a nested loop) to 2 s (the hash join
 * PostgreSQL chose, reading all 2M products) for a store of 50,000 listings, a 503 at the budget.
 * What a listing's product lacks is kept on the listing instead (`shipping_gaps`: 1 no weight,
 * 2 a dimension missing), with one partial index per filter, so the count is an index-only range of
 * the matches and a page is the first entries of that range.
 *
 * Kept by two triggers, ordered against each other by row locks on the product:
 * - a listing takes its product's gaps when inserted, after locking the product FOR KEY SHARE, the lock
 *   its foreign key takes anyway: it conflicts with no stock or other update of the product, so a bulk add
 *   blocks no order and no stock drain.
 * - an update of a product's weight or dimensions that changes its gaps first locks the product FOR
 *   UPDATE, which waits for every transaction still adding a listing of it (their KEY SHARE), then sets
 *   the gaps on every listing of it, removed ones too, so a restored listing needs nothing. A listing
 *   added after that lock waits for the update's commit and reads its result.
 *   Locking the product FOR SHARE from the listing side instead would have had each bulk add hold
 *   the stock drain and every order of those products, in an order of its own (a deadlock risk).
 * The inventory feed ignores a listing update that changes only its gaps: its items carry no shipping
 * data, and a product's new weight would otherwise move every store's listing of it to the feed's head.
 */
const GAPS = (p: string) =>
  `product_shipping_gaps(${p}.weight_oz, ${p}.width_cm, ${p}.depth_cm, ${p}.height_cm)`;

export class Migration20261129000000_listing_shipping_gaps extends Migration {
  override name = 'Migration20261129000000_listing_shipping_gaps';

  override up(): void {
    this.addSql(`CREATE FUNCTION product_shipping_gaps(weight_oz numeric, width_cm numeric, depth_cm numeric,
  height_cm numeric) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ((CASE WHEN weight_oz IS NULL THEN 1 ELSE 0 END)
    | (CASE WHEN width_cm IS NULL OR depth_cm IS NULL OR height_cm IS NULL THEN 2 ELSE 0 END))::smallint
$$;`);
    this.addSql('ALTER TABLE listings ADD COLUMN shipping_gaps smallint NOT NULL DEFAULT 0;');
    this.addSql(`CREATE FUNCTION listings_take_shipping_gaps() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE gaps smallint;
BEGIN
  -- Waits for a shipping-data update that holds the product FOR UPDATE. A KEY SHARE read returns the
  -- version its snapshot saw even past such an update, so the gaps are read by a statement of their
  -- own, whose fresh snapshot sees what that update committed.
  PERFORM FROM products WHERE id = NEW.product_id FOR KEY SHARE;
  SELECT ${GAPS('p')} INTO gaps FROM products p WHERE p.id = NEW.product_id;
  -- No product: the foreign key refuses the row after this trigger.
  NEW.shipping_gaps := COALESCE(gaps, 0);
  RETURN NEW;
END $$;`);
    this.addSql(`CREATE TRIGGER listings_take_shipping_gaps BEFORE INSERT ON listings
  FOR EACH ROW EXECUTE FUNCTION listings_take_shipping_gaps();`);
    this.addSql(`CREATE FUNCTION products_shipping_gaps_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM products WHERE id = NEW.id FOR UPDATE;
  UPDATE listings SET shipping_gaps = ${GAPS('NEW')}
  WHERE product_id = NEW.id AND shipping_gaps <> ${GAPS('NEW')};
  RETURN NULL;
END $$;`);
    this.addSql(`CREATE TRIGGER products_shipping_gaps_fanout
  AFTER UPDATE OF weight_oz, width_cm, depth_cm, height_cm ON products
  FOR EACH ROW WHEN (${GAPS('OLD')} IS DISTINCT FROM ${GAPS('NEW')})
  EXECUTE FUNCTION products_shipping_gaps_fanout();`);
    // The feed's update trigger as before, but blind to a change of the gaps alone.
    this.addSql(`CREATE FUNCTION listings_touch_feed_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO inventory_feed (store_id, product_id)
  SELECT DISTINCT n.store_id, n.product_id FROM changed n JOIN before o ON o.id = n.id
  WHERE o.shipping_gaps = n.shipping_gaps
    OR to_jsonb(o) - 'shipping_gaps' IS DISTINCT FROM to_jsonb(n) - 'shipping_gaps'
  ORDER BY 1, 2
  ON CONFLICT (store_id, product_id) DO UPDATE SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq');
  RETURN NULL;
END $$;`);
    this.addSql('DROP TRIGGER listings_feed_upd ON listings;');
    this.addSql(`CREATE TRIGGER listings_feed_upd AFTER UPDATE ON listings
  REFERENCING OLD TABLE AS before NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION listings_touch_feed_updated();`);
    // The existing listings, with the update triggers off: no listing moves between cells or into the
    // feed here, and each would read the 2M changed rows again to find that out.
    this.addSql(
      'ALTER TABLE listings DISABLE TRIGGER listings_store_cells_upd, DISABLE TRIGGER listings_feed_upd;',
    );
    this.addSql(`UPDATE listings l SET shipping_gaps = ${GAPS('p')} FROM products p
  WHERE p.id = l.product_id AND ${GAPS('p')} <> 0;`);
    this.addSql(
      'ALTER TABLE listings ENABLE TRIGGER listings_store_cells_upd, ENABLE TRIGGER listings_feed_upd;',
    );
    for (const [name, gap] of [
      ['listings_store_no_weight_idx', '(shipping_gaps & 1) <> 0'],
      ['listings_store_no_dimensions_idx', '(shipping_gaps & 2) <> 0'],
      ['listings_store_shipping_gaps_idx', 'shipping_gaps <> 0'],
    ])
      this.addSql(`CREATE INDEX ${name} ON listings (store_id, created_at DESC, id DESC)
  WHERE deleted_at IS NULL AND ${gap};`);
  }
}
