import { Migration } from '@mikro-orm/migrations';

/**
 * Time filters of the event log (`created_gte`, `created_lt`) read what the page returns, not the log
 * (docs/decisions.md, "Event log time filters"). The log is in position order `(xid, id)`; an event's
 * `created_at` is nearly in that order, and `in_order` marks the events for which it provably is, to
 * within six minutes:
 *
 * - A row is `in_order` when it was written by its own transaction (`xid` is the writer's) no more than
 *   five minutes after it was created, and created no more than one minute after that transaction
 *   began. The transaction took its xid between its start (`now()`) and this write
 *   (`clock_timestamp()`), and xids are handed out in time order; so of two such rows, the one earlier
 *   in the log was created at most 5 + 1 minutes after the later one. Anything else (an event logged
 *   late after a dispatcher backlog, a row whose time or position is changed by an UPDATE) is
 *   `in_order = false` and is read through its own small index.
 * - So an `in_order` event created before `T - 6 min` lies in the log before every `in_order` event
 *   created at `T` or later, and one created at `U + 6 min` or later after every one created before
 *   `U`: two seeks of `webhook_events_order_time_idx` turn a time window into a range of positions,
 *   the range a page reads on `webhook_events_log_idx` (src/event-log/queries.ts, with margin).
 * - Rows already in the log are judged by `webhook_events_reclassify()`, per store and mode in position
 *   order, by one of two rules that each keep the bound: a row stays `in_order` when no later row was
 *   created more than six minutes before it, or (the other rule) when no earlier row was created more
 *   than six minutes after it. The first flags rows stamped ahead and the second rows logged late, and
 *   each also flags the neighbours an outlier of the other kind overlaps; a store takes the rule that
 *   leaves more rows in order. A row must also be below every running transaction and not created after
 *   now (plus a minute), which keeps the bound with every row the trigger stamps later. The function
 *   locks out writers while it reads, so every row it judges is committed; a backfill may call it again.
 */
export class Migration20261128010000_event_log_time_bounds extends Migration {
  override name = 'Migration20261128010000_event_log_time_bounds';

  override up(): void {
    this.addSql(`
-- A fast default (no rewrite): the existing rows start in order; the reclassification below flips the
-- ones that are not. New rows are stamped by the trigger.
ALTER TABLE webhook_events ADD COLUMN in_order boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_events ALTER COLUMN in_order SET DEFAULT false;

CREATE FUNCTION webhook_events_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.in_order := COALESCE(NEW.xid = pg_current_xact_id()
      AND NEW.created_at >= clock_timestamp() - interval '5 minutes'
      AND NEW.created_at <= now() + interval '1 minute', false);
  ELSIF (NEW.created_at, NEW.xid, NEW.store_id, NEW.livemode)
      IS DISTINCT FROM (OLD.created_at, OLD.xid, OLD.store_id, OLD.livemode) THEN
    NEW.in_order := false;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER webhook_events_in_order BEFORE INSERT OR UPDATE OF created_at, xid, store_id, livemode
  ON webhook_events FOR EACH ROW EXECUTE FUNCTION webhook_events_in_order();

CREATE FUNCTION webhook_events_reclassify() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  changed bigint;
BEGIN
  -- Writers wait (readers do not): every row read here is committed, and every row written later is
  -- stamped by the trigger with a clock after this transaction began.
  LOCK TABLE webhook_events IN SHARE ROW EXCLUSIVE MODE;
  WITH judged AS (
    SELECT id, store_id, livemode,
      xid < pg_snapshot_xmin(pg_current_snapshot()) AND created_at <= now() + interval '1 minute' AS settled,
      created_at <= COALESCE(min(created_at) OVER later, 'infinity') + interval '6 minutes' AS by_later,
      created_at >= COALESCE(max(created_at) OVER earlier, '-infinity') - interval '6 minutes' AS by_earlier
    FROM webhook_events
    WINDOW later AS (PARTITION BY store_id, livemode ORDER BY xid DESC, id DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
      earlier AS (PARTITION BY store_id, livemode ORDER BY xid, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
  ), rule AS (
    SELECT store_id, livemode, count(*) FILTER (WHERE by_later) >= count(*) FILTER (WHERE by_earlier) AS later
    FROM judged GROUP BY store_id, livemode
  )
  UPDATE webhook_events e SET in_order = j.ok
  FROM (SELECT j.id, j.settled AND CASE WHEN r.later THEN j.by_later ELSE j.by_earlier END AS ok
        FROM judged j JOIN rule r USING (store_id, livemode)) j
  WHERE e.id = j.id AND e.in_order <> j.ok;
  GET DIAGNOSTICS changed = ROW_COUNT;
  RETURN changed;
END $$;
SELECT webhook_events_reclassify();

-- The seeks that bound a window, and the rows read outside them.
CREATE INDEX webhook_events_order_time_idx ON webhook_events (store_id, livemode, created_at) INCLUDE (xid, id)
  WHERE in_order;
CREATE INDEX webhook_events_late_time_idx ON webhook_events (store_id, livemode, created_at) INCLUDE (event, xid, id)
  WHERE NOT in_order;
`);
  }
}
