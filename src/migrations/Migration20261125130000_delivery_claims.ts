import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook delivery by row claims instead of one run per cluster (docs/decisions.md, "Webhook
 * delivery across workers"):
 * - a delivery is claimed with a lease (`claimed_until`, `claim_token`): no other worker takes it
 *   until the lease ends, which is longer than an attempt's deadline, so one delivery is never
 *   attempted twice at once, and a worker that dies loses its claims when their leases end;
 * - a subscription knows when it next has claimable work (`next_due_at`), so a claim visits
 *   subscriptions in that order, a few at a time with SKIP LOCKED, and takes from each only up to
 *   its in-flight cap: a subscription with a deep backlog or a hung receiver takes no more than its
 *   share, whatever is queued behind it. New and re-sent deliveries move `next_due_at` forward by
 *   trigger, whoever writes them.
 */
export class Migration20261125130000_delivery_claims extends Migration {
  override name = 'Migration20261125130000_delivery_claims';

  override up(): void {
    this.addSql(`
ALTER TABLE webhook_deliveries ADD COLUMN claimed_until timestamptz, ADD COLUMN claim_token uuid;
ALTER TABLE webhook_subscriptions ADD COLUMN next_due_at timestamptz, ADD COLUMN last_claimed_at timestamptz;

-- A subscription's pending deliveries in due order (its next claimable ones), and those out on a lease.
CREATE INDEX webhook_deliveries_subscription_due_idx ON webhook_deliveries (subscription_id, next_attempt_at, id)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_claimed_idx ON webhook_deliveries (subscription_id, claimed_until)
  WHERE status = 'pending' AND claimed_until IS NOT NULL;
CREATE INDEX webhook_subscriptions_due_idx ON webhook_subscriptions (next_due_at, id)
  WHERE active AND next_due_at IS NOT NULL;
-- Claims no longer walk the global due order: its index was one more write per claim and per result.
DROP INDEX webhook_deliveries_due_idx;

-- Always takes the subscription's row lock, even when next_due_at is already early enough: a claim
-- holding the lock (which cannot see these uncommitted rows) may be about to set it to NULL, and the
-- update must land after it. Locks are taken in id order, as every writer of subscriptions does.
CREATE FUNCTION webhook_deliveries_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM webhook_subscriptions
  WHERE id IN (SELECT subscription_id FROM changed WHERE status = 'pending' AND claimed_until IS NULL)
  ORDER BY id FOR NO KEY UPDATE;
  UPDATE webhook_subscriptions s SET next_due_at = LEAST(s.next_due_at, m.due)
  FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM changed
        WHERE status = 'pending' AND claimed_until IS NULL GROUP BY subscription_id) m
  WHERE s.id = m.subscription_id;
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_deliveries_due_ins AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_due();
CREATE TRIGGER webhook_deliveries_due_upd AFTER UPDATE ON webhook_deliveries
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_due();

-- What is pending now.
UPDATE webhook_subscriptions s SET next_due_at = m.due
FROM (SELECT subscription_id, min(next_attempt_at) AS due FROM webhook_deliveries
      WHERE status = 'pending' GROUP BY subscription_id) m
WHERE s.id = m.subscription_id;
`);
  }
}
