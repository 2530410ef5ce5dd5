import { Migration } from '@mikro-orm/migrations';

/** Marketplace orders posted by partner apps: SKU mappings, the posts themselves, draft purchase orders. */
export class Migration20261122050000_external_orders extends Migration {
  override name = 'Migration20261122050000_external_orders';

  override up(): void {
    this.addSql(`
CREATE TABLE sku_mappings (
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  sku text NOT NULL,
  product_id integer NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  variant_id integer NOT NULL REFERENCES product_variants(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, sku)
);

ALTER TABLE orders ADD COLUMN marketplace text, ADD COLUMN external_order_id text;
CREATE UNIQUE INDEX orders_external_key ON orders (store_id, marketplace, external_order_id)
  WHERE external_order_id IS NOT NULL;

-- One row per (store, marketplace, external order): the natural key that makes posting idempotent.
CREATE TABLE external_orders (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  marketplace text NOT NULL,
  external_order_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'created', 'held')),
  order_id integer REFERENCES orders(id),
  hold_reason text,
  hold_lines jsonb,
  payload jsonb NOT NULL,
  credential text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (store_id, marketplace, external_order_id)
);
CREATE INDEX external_orders_held_idx ON external_orders (store_id) WHERE status = 'held';

CREATE TABLE purchase_orders (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  supplier_id integer NOT NULL REFERENCES suppliers(id),
  order_id integer NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'cancelled')),
  lines jsonb NOT NULL,
  total_cents integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purchase_orders_order_idx ON purchase_orders (order_id);
`);
  }
}
