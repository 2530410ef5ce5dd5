import { Migration } from '@mikro-orm/migrations';

/**
 * Domain events (a transactional outbox) and the indexes the store's listing reads need.
 */
export class Migration20261122010000_listings_events extends Migration {
  override name = 'Migration20261122010000_listings_events';

  override up(): void {
    this.addSql(`
CREATE TABLE domain_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  event text NOT NULL CHECK (event ~ '^[a-z_]+\\.[a-z_]+$'),
  entity_id bigint NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX domain_events_pending_idx ON domain_events (id) WHERE dispatched_at IS NULL;
CREATE INDEX domain_events_store_idx ON domain_events (store_id, id);

CREATE INDEX listings_store_live_idx ON listings (store_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
`);
  }
}
