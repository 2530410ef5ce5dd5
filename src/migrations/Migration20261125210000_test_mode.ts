import { Migration } from '@mikro-orm/migrations';

/**
 * Test mode as a sandbox (docs/decisions.md, "Test mode"): a test key's orders, marketplace posts,
 * invoices, webhook subscriptions and events are rows of their own mode, never read by the other.
 * Test orders are numbered from their own sequence (`TEST-SL-…`) and invoiced from their own counter
 * (`TEST-INV-…`), so live numbering stays gapless whatever is tested.
 */
export class Migration20261125210000_test_mode extends Migration {
  override name = 'Migration20261125210000_test_mode';

  override up(): void {
    this.addSql(`
CREATE SEQUENCE test_order_number_seq START 100001;

ALTER TABLE orders ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE orders DROP CONSTRAINT orders_invoice_number_check;
ALTER TABLE orders ADD CONSTRAINT orders_invoice_number_check CHECK (invoice_number ~
  CASE WHEN livemode THEN '^INV-[0-9]{6}-[0-9]{6}$' ELSE '^TEST-INV-[0-9]{6}-[0-9]{6}$' END);
ALTER TABLE orders ADD CONSTRAINT orders_order_number_mode_check CHECK ((order_number ~ '^TEST-') = (NOT livemode));
DROP INDEX orders_external_key;
CREATE UNIQUE INDEX orders_external_key ON orders (store_id, livemode, marketplace, external_order_id)
  WHERE external_order_id IS NOT NULL;
-- A test key's reads of a store with many live orders: its few orders, without walking the live ones.
CREATE INDEX orders_store_test_idx ON orders (store_id, created_at DESC, id) WHERE NOT livemode;

ALTER TABLE external_orders ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE external_orders DROP CONSTRAINT external_orders_store_id_marketplace_external_order_id_key;
ALTER TABLE external_orders ADD CONSTRAINT external_orders_natural_key
  UNIQUE (store_id, livemode, marketplace, external_order_id);

ALTER TABLE invoice_counters ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE invoice_counters DROP CONSTRAINT invoice_counters_pkey;
ALTER TABLE invoice_counters ADD PRIMARY KEY (livemode, period);

ALTER TABLE webhook_subscriptions ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE domain_events ADD COLUMN livemode boolean NOT NULL DEFAULT true;
`);
  }
}
