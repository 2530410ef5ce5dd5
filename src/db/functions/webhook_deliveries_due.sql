-- Makes a subscription due for new work (a delivery inserted, or re-sent by hand: round_attempts = 0), taking its lock
-- in id order so a claim or release cannot set it later than the new delivery needs. Retries are the code's: the
-- hold's release derives next_due_at (docs/decisions.md, "Webhook retry timing, one place"). Story: Migration20261125140000_subscription_holds.

CREATE OR REPLACE FUNCTION public.webhook_deliveries_due()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM 1 FROM webhook_subscriptions
  WHERE id IN (SELECT subscription_id FROM changed WHERE status = 'pending' AND round_attempts = 0)
  ORDER BY id FOR NO KEY UPDATE;
  UPDATE webhook_subscriptions s SET next_due_at = LEAST(s.next_due_at, m.due)
  FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM changed
        WHERE status = 'pending' AND round_attempts = 0 GROUP BY subscription_id) m
  WHERE s.id = m.subscription_id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER webhook_deliveries_due_ins AFTER INSERT ON public.webhook_deliveries REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_due();

CREATE OR REPLACE TRIGGER webhook_deliveries_due_upd AFTER UPDATE ON public.webhook_deliveries REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_due();
