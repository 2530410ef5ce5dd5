import { Migration } from '@mikro-orm/migrations';

/**
 * Every fold of the store cells ends by deleting the cells it brought to zero
 * (`DELETE FROM store_cells WHERE n = 0`). With no index to find them, that read every cell: 34M of
 * them at 10,000 stores, 7 s for a fold, and a fold runs every 512 listing changes. So a bulk add of
 * 1,000 listings took 7 s, and orders waited behind it. facet_cells has had this index from the start.
 */
export class Migration20261125110000_store_cells_empty extends Migration {
  override name = 'Migration20261125110000_store_cells_empty';

  override up(): void {
    this.addSql('CREATE INDEX store_cells_empty_idx ON store_cells (store_id) WHERE n = 0;');
  }
}
