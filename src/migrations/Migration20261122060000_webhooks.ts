import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks: subscriptions (secrets encrypted), the events they were sent, one delivery per
 * (subscription, event) with its retry state, and the attempt log. Also the storefront's
 * published flag behind `site.published` / `site.unpublished`.
 */
export class Migration20261122060000_webhooks extends Migration {
  override name = 'Migration20261122060000_webhooks';

  override up(): void {
    this.addSql(`
ALTER TABLE stores ADD COLUMN published_at timestamptz;

CREATE TABLE webhook_subscriptions (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  url text NOT NULL CHECK (url LIKE 'https://%' AND length(url) <= 2048),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  active boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('manual', 'gone', 'dead_letters')),
  -- AES-256-GCM: base64 of nonce || ciphertext || tag. The plain secret is never stored.
  secret_encrypted text NOT NULL,
  dead_letter_streak integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_store_idx ON webhook_subscriptions (store_id);

CREATE TABLE webhook_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  event text NOT NULL,
  event_key text NOT NULL,
  -- The exact envelope bytes every attempt sends and signs.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscription_id integer NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  event_id bigint NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'dead', 'discarded')),
  -- Attempts made so far, and how many of them belong to the current round (a resend starts a new one).
  attempts integer NOT NULL DEFAULT 0,
  round_attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  subscription_id integer NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'gone', 'refused')),
  response_status integer,
  error text,
  duration_ms integer NOT NULL,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_subscription_idx ON webhook_attempts (subscription_id, id DESC);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id);

-- The stock fan-out job now learns which variants changed (array payloads of pending jobs are
-- concatenated by Graphile), so inventory.updated can name the variant when only one changed.
CREATE OR REPLACE FUNCTION product_stock_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_job('inventory_fanout',
    json_build_array(json_build_object('product_id', c.product_id, 'variant_ids', c.variant_ids)),
    job_key => 'inventory_fanout:' || c.product_id, job_key_mode => 'replace')
  FROM (SELECT n.product_id, array_agg(DISTINCT n.id) AS variant_ids
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.stock_quantity IS DISTINCT FROM o.stock_quantity
        GROUP BY n.product_id) c;
  RETURN NULL;
END $$;
`);
  }
}
