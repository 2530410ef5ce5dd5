-- Judges the rows already in the event log for in_order, per store and mode, locking out writers while it reads;
-- a backfill may call it again. Story: Migration20261128010000_event_log_time_bounds.

CREATE OR REPLACE FUNCTION public.webhook_events_reclassify()
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
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
END $function$;
