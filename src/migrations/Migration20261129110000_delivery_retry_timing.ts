import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook retry timing in one place (docs/decisions.md, "Webhook retry timing, one place (issue 29)"):
 * the code decides when a delivery is retried (src/webhooks/delivery/backoff.ts), and a subscription
 * is made due again for its retries by its hold's release alone, which derives `next_due_at` from all
 * its pending deliveries. The deliveries' trigger now reacts only to new work: a delivery inserted, or
 * re-sent by hand, starts a round (`round_attempts = 0`); a retry (`round_attempts >= 1`, written by
 * the worker that holds the subscription) is left to the release. Before, a retry's write also ran
 * the trigger, which locked the subscription again and rewrote its row to the same hold end: while a
 * subscription is held, it is due for others only when its hold ends, whatever its retries.
 */
export class Migration20261129110000_delivery_retry_timing extends Migration {
  override name = 'Migration20261129110000_delivery_retry_timing';

  override up(): void {
    this.addSql(`
CREATE OR REPLACE FUNCTION webhook_deliveries_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- New work only (a new round); takes the subscription's lock first, in id order: a claim or a
  -- release holding it cannot see these uncommitted rows and may be about to set next_due_at later
  -- than they need; this update lands after it.
  PERFORM 1 FROM webhook_subscriptions
  WHERE id IN (SELECT subscription_id FROM changed WHERE status = 'pending' AND round_attempts = 0)
  ORDER BY id FOR NO KEY UPDATE;
  UPDATE webhook_subscriptions s SET next_due_at = LEAST(s.next_due_at, m.due)
  FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM changed
        WHERE status = 'pending' AND round_attempts = 0 GROUP BY subscription_id) m
  WHERE s.id = m.subscription_id;
  RETURN NULL;
END $$;
`);
  }
}
