import { Migration } from '@mikro-orm/migrations';

/**
 * Rate limits as GCRA (a token bucket kept as one timestamp): fixed one-minute windows let a burst
 * straddling a window's end through twice over. One row per key holds its theoretical arrival time
 * (`tat`): the moment the key's allowance is whole again. A row whose `tat` has passed says nothing
 * a missing row would not, so the hourly prune drops it.
 */
export class Migration20261125000000_gcra_limits extends Migration {
  override name = 'Migration20261125000000_gcra_limits';

  override up(): void {
    this.addSql(`
CREATE TABLE rate_limits (
  key text PRIMARY KEY,
  tat timestamptz NOT NULL
);
DROP TABLE rate_limit_windows;
`);
  }
}
