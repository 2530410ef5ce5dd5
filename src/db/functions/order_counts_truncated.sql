-- Order counts: a truncated orders table leaves no count and no pending delta.

CREATE OR REPLACE FUNCTION public.order_counts_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM order_count_deltas;
  DELETE FROM order_counts;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER orders_counts_trunc AFTER TRUNCATE ON public.orders FOR EACH STATEMENT EXECUTE FUNCTION order_counts_truncated();
