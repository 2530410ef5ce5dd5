import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import type { ListInput } from './schemas.ts';

/** Where a sort key can lie among the products whose own retail price is in a range, inclusive. */
export interface KeyBound {
  lo: number;
  hi: number;
}

/** The sort keys that follow the retail price, and the columns of price_slice_bounds that bound them. */
const BOUNDED = {
  wholesale_price_cents: sql`min(wholesale_min) AS lo, max(wholesale_max) AS hi`,
  margin: sql`min(earn_min) AS lo, max(earn_max) AS hi`,
} as const;

/**
 * Under a price range in the wholesale or margin order, where that key can lie for a product read at
 * its own retail price: the spread kept for every price slice the range touches
 * (Migration20261129010000_price_slice_bounds). A page's walk starts at the bound instead of passing
 * every product priced outside the range. Undefined for other orders, without a price range, or when
 * no product lies in it.
 */
export async function sortKeyBound(em: EntityManager, input: ListInput): Promise<KeyBound | undefined> {
  const min = input.price_min_cents;
  const max = input.price_max_cents;
  const key = input.sort_by;
  if ((key !== 'wholesale_price_cents' && key !== 'margin') || (min === undefined && max === undefined))
    return undefined;
  // The range's upper bound is exclusive: its last slice is the one holding max - 1.
  const [row] = await rows<{ lo: number | null; hi: number | null }>(
    em,
    sql`SELECT ${BOUNDED[key]} FROM price_slice_bounds
      WHERE slice BETWEEN facet_price_band(${min ?? 0}) AND facet_price_band(${max === undefined ? 2147483647 : max - 1})`,
  );
  if (row?.lo == null || row.hi == null || row.lo > row.hi) return undefined;
  return { lo: row.lo, hi: row.hi };
}
