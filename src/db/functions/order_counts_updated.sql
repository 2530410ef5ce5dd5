-- Order counts: only orders whose counted columns changed move: a tracking number or an invoice writes nothing.

CREATE OR REPLACE FUNCTION public.order_counts_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH moved AS (
    SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.store_id, o.livemode, o.status, o.channel, o.needs_attention) IS DISTINCT FROM (n.store_id, n.livemode, n.status, n.channel, n.needs_attention)
  ), ins AS (
    INSERT INTO order_count_deltas (store_id, livemode, status, channel, needs_attention, n)
    SELECT store_id, livemode, status, channel, needs_attention, sum(n) FROM (
      SELECT r.store_id, r.livemode, r.status, r.channel, r.needs_attention, -1 AS n FROM old_rows r WHERE r.id IN (SELECT id FROM moved)
      UNION ALL
      SELECT r.store_id, r.livemode, r.status, r.channel, r.needs_attention, 1 FROM new_rows r WHERE r.id IN (SELECT id FROM moved)
    ) c (store_id, livemode, status, channel, needs_attention, n)
    GROUP BY store_id, livemode, status, channel, needs_attention HAVING sum(n) <> 0
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM order_counts_note(lo, hi); END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER orders_counts_upd AFTER UPDATE ON public.orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_updated();
