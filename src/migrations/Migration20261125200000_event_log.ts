import { Migration } from '@mikro-orm/migrations';

/**
 * The event log (GET /api/v1/events): `webhook_events` becomes every event of every store, kept 30
 * days whether or not a subscription wants it, with the exact envelope bytes a delivery sends.
 *
 * - `xid`: the writing transaction, the log's position with `id` (as the inventory feed's `(xid, seq)`):
 *   a reader returns only positions below `pg_snapshot_xmin`, so an event whose transaction commits
 *   late never slips in behind a cursor.
 * - `livemode`: true until test mode exists; a credential reads the events of its own mode.
 * - `webhook_events_log_idx`: a page per (store, mode, event) in position order, `created_at` included
 *   so the time filters are read from the index. The retention job deletes in id order (ids follow
 *   creation), so no index on `created_at` alone: one the planner could pick for a time filter would
 *   read every store's events of that time.
 * - Stored envelopes gain `id` (`evt_<id>`) and `livemode`, in the order new ones are written.
 */
export class Migration20261125200000_event_log extends Migration {
  override name = 'Migration20261125200000_event_log';

  override up(): void {
    this.addSql(`
ALTER TABLE webhook_events
  ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  ADD COLUMN livemode boolean NOT NULL DEFAULT true;

UPDATE webhook_events SET body = '{"id":"evt_' || id || '",'
  || regexp_replace(substr(body, 2), ',"data":', ',"livemode":true,"data":');

CREATE INDEX webhook_events_log_idx ON webhook_events (store_id, livemode, event, xid, id) INCLUDE (created_at);
`);
  }
}
