import { Migration } from '@mikro-orm/migrations';

/**
 * The ledger of the function files (src/db/functions/*.sql): the sha256 of each file as it last ran.
 * From here on the current definition of every function and trigger of ours is its file, which
 * `migrate()` runs again whenever it changes; a versioned migration only drops one (and the file
 * goes) or changes the tables under it. On a database migrated before this, every file runs once,
 * redefining each function as it already is.
 */
export class Migration20261129031000_schema_functions extends Migration {
  override name = 'Migration20261129031000_schema_functions';

  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE schema_functions (
      name text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  }
}
