import { Migration } from '@mikro-orm/migrations';

/**
 * Every call of a partner app writes its rate-limit row, and a logged write commits with a WAL
 * flush: one fsync per request, for state worth nothing after a crash (a limiter that forgets the
 * last minute lets at most one window's allowance through again). Unlogged, the write skips the WAL
 * and its commit the flush; PostgreSQL empties the table after a crash.
 */
export class Migration20261125050000_unlogged_rate_limits extends Migration {
  override name = 'Migration20261125050000_unlogged_rate_limits';

  override up(): void {
    this.addSql('ALTER TABLE rate_limits SET UNLOGGED;');
  }
}
