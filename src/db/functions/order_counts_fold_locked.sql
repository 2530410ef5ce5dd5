-- Moves every visible order-count delta into order_counts. Callers hold the fold's advisory lock.

CREATE OR REPLACE FUNCTION public.order_counts_fold_locked()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH d AS (DELETE FROM order_count_deltas RETURNING *)
  INSERT INTO order_counts (store_id, livemode, status, channel, needs_attention, n)
  SELECT store_id, livemode, status, channel, needs_attention, sum(n) FROM d GROUP BY store_id, livemode, status, channel, needs_attention HAVING sum(n) <> 0
  ON CONFLICT (store_id, livemode, status, channel, needs_attention) DO UPDATE SET n = order_counts.n + EXCLUDED.n;
  DELETE FROM order_counts WHERE n = 0;
END $function$;
