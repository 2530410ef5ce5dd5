import { Migration } from '@mikro-orm/migrations';

/**
 * A list page under a price range in the wholesale or margin order walked its sort index from one
 * end, past every product whose own price lies outside the range (the matches bunch where the
 * wholesale price follows the retail one): `price_max_cents=66571&sort_by=wholesale_price_cents&
 * order=desc&page=46` ran into the 2 s budget at 2M, other pages took 0.6–0.9 s.
 *
 * `price_slice_bounds` keeps, for each price slice of the cells (facet_price_band(), 101 slices), the
 * least and greatest wholesale price and catalogue earn per sale of the products whose retail price
 * lies in it. Under a price range those bound where its matches can sit in either order, and the walk
 * starts at the bound (src/catalogue/slice-bounds.ts).
 *
 * A bound only ever widens: a product inserted or re-priced beyond it widens it in the same
 * statement (a trigger on the transition table); a product deleted or moved leaves it wider than
 * needed, which costs a longer walk, never a wrong page. A writer locks the slices it widens, in slice
 * order, and only those: a write that moves no bound takes no lock.
 */
const EARN = `(CASE pricing_type WHEN 'commission' THEN (retail_price_cents::bigint * commission_rate_bps + 5000) / 10000
    ELSE retail_price_cents - wholesale_price_cents END)::integer`;
const SPREAD = (from: string) => `SELECT facet_price_band(retail_price_cents) AS slice,
    min(wholesale_price_cents) AS w_lo, max(wholesale_price_cents) AS w_hi, min(${EARN}) AS e_lo, max(${EARN}) AS e_hi
    FROM ${from} GROUP BY 1`;
const WIDER =
  'n.w_lo < b.wholesale_min OR n.w_hi > b.wholesale_max OR n.e_lo < b.earn_min OR n.e_hi > b.earn_max';
const WIDEN = `wholesale_min = LEAST(b.wholesale_min, n.w_lo), wholesale_max = GREATEST(b.wholesale_max, n.w_hi),
    earn_min = LEAST(b.earn_min, n.e_lo), earn_max = GREATEST(b.earn_max, n.e_hi)`;

export class Migration20261129010000_price_slice_bounds extends Migration {
  override name = 'Migration20261129010000_price_slice_bounds';

  override up(): void {
    this.addSql(`CREATE TABLE price_slice_bounds (
  slice smallint PRIMARY KEY,
  wholesale_min integer NOT NULL,
  wholesale_max integer NOT NULL,
  earn_min integer NOT NULL,
  earn_max integer NOT NULL
);`);
    // Every slice a price can fall in (-1 for none, never at a retail price >= 0), empty to begin with.
    this.addSql(`INSERT INTO price_slice_bounds
  SELECT s, 2147483647, -2147483648, 2147483647, -2147483648 FROM generate_series(-1, 100) s;`);
    this.addSql(
      `UPDATE price_slice_bounds b SET ${WIDEN} FROM (${SPREAD('products')}) n WHERE b.slice = n.slice;`,
    );
    this.addSql(`CREATE FUNCTION price_slice_bounds_widen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM price_slice_bounds b JOIN (${SPREAD('changed')}) n ON n.slice = b.slice
    WHERE ${WIDER} ORDER BY b.slice FOR UPDATE OF b;
  UPDATE price_slice_bounds b SET ${WIDEN} FROM (${SPREAD('changed')}) n WHERE b.slice = n.slice AND (${WIDER});
  RETURN NULL;
END $$;`);
    this.addSql(`CREATE TRIGGER products_price_slice_bounds_ins AFTER INSERT ON products
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_slice_bounds_widen();`);
    this.addSql(`CREATE TRIGGER products_price_slice_bounds_upd AFTER UPDATE ON products
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_slice_bounds_widen();`);
  }
}
