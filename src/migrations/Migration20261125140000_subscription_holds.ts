import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook delivery by subscription holds instead of per-delivery leases (docs/decisions.md, "Webhook
 * delivery across workers"): a worker holds a subscription (`held_by`, `held_until`) and is the only
 * one that sends its deliveries while the hold lasts, so it can read ahead and keep the
 * subscription's slots full without writing a lease on every delivery. Measured: the lease's UPDATE
 * and its index entries were a third of PostgreSQL's time per delivery, and a slot freed only once
 * the attempt's write had committed.
 */
export class Migration20261125140000_subscription_holds extends Migration {
  override name = 'Migration20261125140000_subscription_holds';

  override up(): void {
    this.addSql(`
ALTER TABLE webhook_subscriptions ADD COLUMN held_by uuid, ADD COLUMN held_until timestamptz;
DROP INDEX webhook_deliveries_claimed_idx;
ALTER TABLE webhook_deliveries DROP COLUMN claimed_until, DROP COLUMN claim_token;

-- Still takes the subscription's lock for every new or re-sent pending delivery, in id order: a claim
-- or a release holding the lock cannot see these uncommitted rows and may be about to set
-- next_due_at later than they need; this update lands after it.
CREATE OR REPLACE FUNCTION webhook_deliveries_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM webhook_subscriptions
  WHERE id IN (SELECT subscription_id FROM changed WHERE status = 'pending')
  ORDER BY id FOR NO KEY UPDATE;
  UPDATE webhook_subscriptions s SET next_due_at = LEAST(s.next_due_at, m.due)
  FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM changed
        WHERE status = 'pending' GROUP BY subscription_id) m
  WHERE s.id = m.subscription_id;
  RETURN NULL;
END $$;

-- What is pending now (leases of the old scheme are gone with their columns).
UPDATE webhook_subscriptions s SET next_due_at = m.due
FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM webhook_deliveries
      WHERE status = 'pending' GROUP BY subscription_id) m
WHERE s.id = m.subscription_id;
`);
  }
}
