-- Keeps a subscription's next_due_at at its earliest pending delivery, taking the subscription's lock in id order so
-- a claim or release cannot set it later than a new delivery needs. Story: Migration20261125140000_subscription_holds.

CREATE OR REPLACE FUNCTION public.webhook_deliveries_due()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM 1 FROM webhook_subscriptions
  WHERE id IN (SELECT subscription_id FROM changed WHERE status = 'pending')
  ORDER BY id FOR NO KEY UPDATE;
  UPDATE webhook_subscriptions s SET next_due_at = LEAST(s.next_due_at, m.due)
  FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM changed
        WHERE status = 'pending' GROUP BY subscription_id) m
  WHERE s.id = m.subscription_id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER webhook_deliveries_due_ins AFTER INSERT ON public.webhook_deliveries REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_due();

CREATE OR REPLACE TRIGGER webhook_deliveries_due_upd AFTER UPDATE ON public.webhook_deliveries REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_due();
