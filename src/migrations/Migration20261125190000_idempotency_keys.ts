import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotent writes (docs/decisions.md, "Idempotency-Key"): the first request with a key claims its
 * row by inserting it, so of any number of concurrent retries exactly one runs; the row then keeps
 * that request's answer for 24 hours. Keyed per store and mode, as the key space belongs to the
 * store's credentials; `fingerprint` tells a retry from a different request under the same key.
 */
export class Migration20261125190000_idempotency_keys extends Migration {
  override name = 'Migration20261125190000_idempotency_keys';

  override up(): void {
    this.addSql(`
CREATE TABLE idempotency_keys (
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  livemode boolean NOT NULL DEFAULT true,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  fingerprint text NOT NULL,
  request_id text NOT NULL,
  status smallint,
  headers jsonb,
  body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (store_id, livemode, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
`);
  }
}
