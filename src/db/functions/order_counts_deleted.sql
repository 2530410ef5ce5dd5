-- Order counts: a statement's deleted orders appended as negative deltas (insert only, so two writers never wait on
-- a shared counter row). Story: Migration20261128090000_order_counts.

CREATE OR REPLACE FUNCTION public.order_counts_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE lo bigint; hi bigint;
BEGIN
  WITH ins AS (
    INSERT INTO order_count_deltas (store_id, livemode, status, channel, needs_attention, n)
    SELECT r.store_id, r.livemode, r.status, r.channel, r.needs_attention, -count(*) FROM old_rows r GROUP BY r.store_id, r.livemode, r.status, r.channel, r.needs_attention
    RETURNING id
  ) SELECT min(id), max(id) INTO lo, hi FROM ins;
  IF hi IS NOT NULL THEN PERFORM order_counts_note(lo, hi); END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER orders_counts_del AFTER DELETE ON public.orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_deleted();
