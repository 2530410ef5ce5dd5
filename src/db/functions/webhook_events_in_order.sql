-- Marks an event log row in_order when its created_at provably follows its log position (to six minutes); a row
-- moved by an update is not. Story: Migration20261128010000_event_log_time_bounds.

CREATE OR REPLACE FUNCTION public.webhook_events_in_order()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE TRIGGER webhook_events_in_order BEFORE INSERT OR UPDATE OF created_at, xid, store_id, livemode ON public.webhook_events FOR EACH ROW EXECUTE FUNCTION webhook_events_in_order();
