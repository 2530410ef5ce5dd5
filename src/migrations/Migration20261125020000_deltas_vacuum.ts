import { Migration } from '@mikro-orm/migrations';

/**
 * Every facet count reads `facet_cell_deltas` whole, and folds empty it by DELETE: after a bulk load
 * (a 2M-product seed) the table was 157 MB of dead rows, read by every count (about 100 ms each)
 * until autovacuum's default 20% threshold came round. Vacuum it after every 10,000 dead rows.
 */
export class Migration20261125020000_deltas_vacuum extends Migration {
  override name = 'Migration20261125020000_deltas_vacuum';

  override up(): void {
    this.addSql(`
ALTER TABLE facet_cell_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
  autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000);
`);
  }
}
