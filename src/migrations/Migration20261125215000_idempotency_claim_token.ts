import { Migration } from '@mikro-orm/migrations';

/**
 * A key's claim is owned by a token of its own: request ids may now come from the client (its
 * `X-Request-Id`), so two requests can share one, and a takeover must never be settled by the
 * request it took over from.
 */
export class Migration20261125215000_idempotency_claim_token extends Migration {
  override name = 'Migration20261125215000_idempotency_claim_token';

  override up(): void {
    this.addSql(`ALTER TABLE idempotency_keys ADD COLUMN claim_token uuid;`);
  }
}
