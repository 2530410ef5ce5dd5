import { Migration } from '@mikro-orm/migrations';

/**
 * Every delivery attempt updates its delivery and appends to the log, so each index on those two
 * tables is written per attempt. Three guarded nothing the code does not already guarantee:
 * - (subscription, event) uniqueness: a delivery row is created once, when its event is stored, and a
 *   resend reuses it;
 * - deliveries → events and attempts → deliveries foreign keys (with the indexes their cascades need):
 *   deliveries and attempts already go with their subscription, and events, deliveries and
 *   subscriptions all go with their store.
 */
export class Migration20261122090000_lean_webhook_log extends Migration {
  override name = 'Migration20261122090000_lean_webhook_log';

  override up(): void {
    this.addSql(`
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_subscription_id_event_id_key;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
DROP INDEX webhook_deliveries_event_idx;
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;
DROP INDEX webhook_attempts_delivery_idx;
`);
  }
}
