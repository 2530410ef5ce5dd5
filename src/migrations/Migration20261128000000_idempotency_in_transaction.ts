import { Migration } from '@mikro-orm/migrations';

/**
 * A key's answer now commits in the transaction of the write it answers (docs/decisions.md,
 * "Idempotency-Key"), and a running request holds the key by an advisory lock, not a row. Answers
 * are kept sealed (`answer`); answers kept in clear that hold a webhook signing secret go, and so do
 * claims left by requests that died under the old scheme (past its 5-minute takeover). The old
 * columns stay for one release, so processes of the previous release keep working during a rolling
 * deploy (they see the new rows as running: 409, never a second run).
 */
export class Migration20261128000000_idempotency_in_transaction extends Migration {
  override name = 'Migration20261128000000_idempotency_in_transaction';

  override up(): void {
    this.addSql(`
DELETE FROM idempotency_keys
  WHERE body LIKE '%whsec\\_%' OR (status IS NULL AND created_at < now() - interval '5 minutes');
ALTER TABLE idempotency_keys ADD COLUMN answer text;
`);
  }
}
