import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { PRICE_BANDS } from './cells.ts';

/** A retail price range, min inclusive, max exclusive (undefined: open). */
export interface PriceRange {
  min: number;
  max?: number;
}

/**
 * A price filter with a bound off the band edges, split so no part reads the whole range
 * (docs/decisions.md, "Price ranges at any cents"): the bands it covers whole are counted from the
 * facet cells, and each band it covers in part is read through the price index, either the part
 * itself (`add`) or, when that is the larger side, the whole band from the cells less what lies
 * outside the range (`subtract`). A partial read is then at most half a band, whatever the range.
 */
export interface PriceSplit {
  /** The whole bands, as band-edge bounds the cells answer; undefined when none. */
  cells?: { price_min_cents?: number; price_max_cents?: number };
  add: PriceRange[];
  subtract: PriceRange[];
}

const isEdge = (cents: number | undefined) =>
  cents === undefined || (PRICE_BANDS as readonly number[]).includes(cents);

/**
 * The split of [min, max), or undefined when every bound is a band edge (the cells answer it).
 * `ceiling` is the highest catalogue price: the cents above it hold none of the catalogue's products,
 * so a part reaching past it is as wide as the cents below it (an open-ended band, or a "no maximum"
 * of 2^31 - 1, would otherwise always look wider than its other side).
 */
export function splitPrice(
  min: number | undefined,
  max: number | undefined,
  ceiling = Number.POSITIVE_INFINITY,
): PriceSplit | undefined {
  if (isEdge(min) && isEdge(max)) return undefined;
  const width = (r: PriceRange) =>
    Math.max(0, Math.min(r.max ?? Number.POSITIVE_INFINITY, ceiling + 1) - r.min);
  const lo = min ?? 0;
  const hi = max ?? Number.POSITIVE_INFINITY;
  const split: PriceSplit = { add: [], subtract: [] };
  // Whole bands, the end bands included when they are read as band less outside.
  let first: number | undefined;
  let last: number | undefined;
  for (const [i, start] of PRICE_BANDS.entries()) {
    const end = PRICE_BANDS[i + 1] ?? Number.POSITIVE_INFINITY;
    const a = Math.max(start, lo);
    const b = Math.min(end, hi);
    if (a >= b) continue;
    const band: PriceRange = { min: start, ...(end === Number.POSITIVE_INFINITY ? {} : { max: end }) };
    const part: PriceRange = { min: a, ...(b === Number.POSITIVE_INFINITY ? {} : { max: b }) };
    if (a > start || b < end) {
      const outside: PriceRange[] = [
        ...(a > start ? [{ min: start, max: a }] : []),
        ...(b < end ? [{ min: b, ...(band.max === undefined ? {} : { max: band.max }) }] : []),
      ];
      if (width(part) <= outside.reduce((sum, r) => sum + width(r), 0)) {
        split.add.push(part);
        continue;
      }
      split.subtract.push(...outside);
    }
    first ??= i;
    last = i;
  }
  if (first !== undefined && last !== undefined) {
    const upper = PRICE_BANDS[last + 1];
    split.cells = {
      ...(first > 0 ? { price_min_cents: PRICE_BANDS[first] } : {}),
      ...(upper === undefined ? {} : { price_max_cents: upper }),
    };
  }
  return split;
}

/** The split of the filters' price range (splitPrice), the catalogue's highest price read when needed. */
export async function priceSplitOf(
  em: EntityManager,
  f: { price_min_cents?: number; price_max_cents?: number },
): Promise<PriceSplit | undefined> {
  if (isEdge(f.price_min_cents) && isEdge(f.price_max_cents)) return undefined;
  // The end of `products_retail_idx`: one index entry.
  const [row] = await rows<{ ceiling: number | null }>(
    em,
    sql`SELECT max(retail_price_cents) AS ceiling FROM products`,
  );
  return splitPrice(f.price_min_cents, f.price_max_cents, row?.ceiling ?? 0);
}

/**
 * The products whose price in this store may lie in `r`, said so PostgreSQL can read them through
 * `products_retail_idx` and the store's re-priced listings: a superset of the exact condition on
 * EFFECTIVE_RETAIL, which the statement still applies (a re-priced product leaves or enters the range
 * by its listing's price).
 *
 * The re-priced listings' ids are read first and sent as a constant array, and the two sets are
 * read apart (disjoint, joined by UNION ALL in productsFrom): the price range through
 * `products_retail_idx`, the ids by primary key. As one condition, `range OR id = ANY(ARRAY(SELECT
 * ...))`, PostgreSQL read every product of the catalogue and tested each against the array one
 * element at a time (3,408 ids: 43 s at 2M); with the array constant, still every product (1.1 s).
 */
export async function priceReach(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  r: PriceRange,
): Promise<RawBuilder<unknown>[]> {
  const below = (column: RawBuilder<unknown>) =>
    r.max === undefined ? sql`true` : sql`${column} < ${r.max}`;
  const repriced = await rows<{ id: number }>(
    em,
    sql`SELECT r.product_id AS id FROM listings r
      WHERE r.store_id = ${ctx.storeId} AND r.deleted_at IS NULL
        AND r.custom_retail_price_cents >= ${r.min} AND ${below(sql`r.custom_retail_price_cents`)}`,
  );
  const ids = repriced.map((x) => x.id);
  return [
    sql`p.retail_price_cents >= ${r.min} AND ${below(sql`p.retail_price_cents`)} AND NOT (p.id = ANY(${ids}::integer[]))`,
    sql`p.id = ANY(${ids}::integer[])`,
  ];
}

/** The filters with the price bounds of `r` in place of any they had. */
export function withPrice<F extends object>(
  f: F,
  r: PriceRange,
): F & { price_min_cents: number; price_max_cents?: number } {
  const {
    price_min_cents: _min,
    price_max_cents: _max,
    ...rest
  } = f as F & {
    price_min_cents?: number;
    price_max_cents?: number;
  };
  return {
    ...(rest as F),
    price_min_cents: r.min,
    ...(r.max === undefined ? {} : { price_max_cents: r.max }),
  };
}
