import { Migration } from '@mikro-orm/migrations';

/**
 * Read-your-writes on read replicas (src/auth/write-marks.ts): per credential (an API key, or a store's
 * OAuth client), the primary's WAL position after its last write. The credential's lookup reads it on
 * every request; a replica serves the credential only once it has replayed past it. Logged, not
 * UNLOGGED: a crash of the primary must not forget a mark that a standby promoted in its place still
 * has to honour. One row per credential, updated in place.
 */
export class Migration20261129150000_credential_write_marks extends Migration {
  override name = 'Migration20261129150000_credential_write_marks';

  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE credential_write_marks (
      credential text PRIMARY KEY,
      lsn pg_lsn NOT NULL,
      written_at timestamptz NOT NULL
    )`);
  }
}
