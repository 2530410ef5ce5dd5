import { Migration } from '@mikro-orm/migrations';

/**
 * Under `stockless.bulk_load` (a bulk load's own batches: Migration20261125060000_bulk_load_stock),
 * writers leave the facet deltas unfolded: each batch of a 2M-product seed otherwise folded every
 * delta pending, ~0.06 ms a product, a sixth of the load. The load folds once at its end; readers
 * meanwhile add the pending deltas as always, so counts stay exact.
 */
export class Migration20261125090000_bulk_load_folds extends Migration {
  override name = 'Migration20261125090000_bulk_load_folds';

  override up(): void {
    this.addSql(`
CREATE OR REPLACE FUNCTION facet_cells_note(lo bigint, hi bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('stockless.bulk_load', true) = 'on' THEN RETURN; END IF;
  IF hi / 512 > (lo - 1) / 512 THEN PERFORM facet_cells_try_fold(); END IF;
END $$;
`);
  }
}
