import { Migration } from '@mikro-orm/migrations';

/**
 * The inventory change feed, the shared rate limiter and the platform secret.
 *
 * Feed positions are (xid, seq): the writing transaction's id and a sequence number. Readers only
 * return rows whose transaction id is below the oldest transaction still running
 * (`pg_snapshot_xmin`), so a transaction that commits late can never slip in behind a cursor.
 */
export class Migration20261122040000_inventory_feed extends Migration {
  override name = 'Migration20261122040000_inventory_feed';

  override up(): void {
    this.addSql(`
CREATE SEQUENCE inventory_feed_seq;
CREATE TABLE inventory_feed (
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  product_id integer NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq bigint NOT NULL DEFAULT nextval('inventory_feed_seq'),
  PRIMARY KEY (store_id, product_id)
);
CREATE INDEX inventory_feed_position_idx ON inventory_feed (store_id, xid, seq);

-- Every stock change of a variant wakes one fan-out job per product (job key: repeated changes
-- within a run coalesce). Inserts are new variants of new products: nothing lists them yet.
CREATE FUNCTION product_stock_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_job('inventory_fanout', json_build_object('product_id', c.product_id),
    job_key => 'inventory_fanout:' || c.product_id, job_key_mode => 'replace')
  FROM (SELECT DISTINCT n.product_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.stock_quantity IS DISTINCT FROM o.stock_quantity) c;
  RETURN NULL;
END $$;
CREATE TRIGGER product_variants_stock_fanout AFTER UPDATE ON product_variants
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_stock_fanout();

-- Any change to a listing (added, restored, removed, repriced, re-moded) puts its product at the head
-- of that store's feed, in the same transaction, whatever wrote it.
CREATE FUNCTION listings_touch_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO inventory_feed (store_id, product_id)
  SELECT DISTINCT store_id, product_id FROM changed ORDER BY store_id, product_id
  ON CONFLICT (store_id, product_id) DO UPDATE SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq');
  RETURN NULL;
END $$;
CREATE TRIGGER listings_feed_ins AFTER INSERT ON listings
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION listings_touch_feed();
CREATE TRIGGER listings_feed_upd AFTER UPDATE ON listings
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION listings_touch_feed();
-- Listings that existed before the feed start in it.
INSERT INTO inventory_feed (store_id, product_id) SELECT store_id, product_id FROM listings ORDER BY id;

CREATE TABLE rate_limit_windows (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (key, window_start)
);

CREATE TABLE platform_secrets (
  name text PRIMARY KEY,
  value bytea NOT NULL
);
`);
    // Signs feed cursors so a cursor from another store, or an edited one, is refused.
    const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
    this.addSql(`INSERT INTO platform_secrets (name, value) VALUES ('cursor_hmac', '\\x${key}'::bytea);`);
  }
}
