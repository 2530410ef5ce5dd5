import type { EntityManager } from '@mikro-orm/postgresql';
import { ownedBy } from '../db/owned-by.ts';
import { type RawBuilder, rows, scanRows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { PRICE_BANDS, PRICE_SLICES } from './cells.ts';
import { type CatalogueQuery, catalogueFrom, customisedListing, productsFrom } from './filters.ts';

/** A retail price range, min inclusive, max exclusive (undefined: open). */
export interface PriceRange {
  min: number;
  max?: number;
}

/** A range counted with a sign: added, or taken back out. */
export interface SignedRange {
  range: PriceRange;
  sign: 1 | -1;
}

/**
 * A price filter with a bound off the band edges, split so no part reads the whole range
 * (docs/decisions.md, "Price ranges at any cents", "Price slices in the cells"), in three levels:
 * - the bands it covers whole are counted from the band cells;
 * - a band it covers in part is either that part (added) or, when the part is the larger side, the
 *   whole band from the cells less what lies outside the range; each such piece, at most half a band,
 *   is counted the same way one level down: its whole slices from the slice cells (cells.ts
 *   PRICE_SLICES), and each slice it covers in part, the part or the slice less the outside;
 * - those last pieces, at most half a slice each, are read through the price index.
 * The ranges are disjoint but for the ones taken back out, so the signed counts add up to the range's.
 */
export interface PriceSplit {
  /** Ranges on band or slice edges, which the cells count. */
  cells: SignedRange[];
  /** Ranges read through the price index. */
  reads: SignedRange[];
}

const onEdges = (edges: readonly number[], min: number | undefined, max: number | undefined) =>
  [min, max].every((cents) => cents === undefined || edges.includes(cents));

/**
 * Whether the cells count [min, max) as it is: both bounds on band edges, or on the slice edges of
 * one band (the slice runs a split counts from the cells are such ranges, so they are not split again).
 */
function cellsHold(min: number | undefined, max: number | undefined): boolean {
  if (onEdges(PRICE_BANDS, min, max)) return true;
  if (!onEdges(PRICE_SLICES, min, max)) return false;
  const next = PRICE_BANDS.find((edge) => edge > (min ?? 0)) ?? Number.POSITIVE_INFINITY;
  return (max ?? Number.POSITIVE_INFINITY) <= next;
}

/**
 * The split of [min, max), or undefined when the cells hold it as it is (cellsHold).
 * `ceiling` is the highest catalogue price: the cents above it hold none of the catalogue's products,
 * so a part reaching past it is as wide as the cents below it (an open-ended band, or a "no maximum"
 * of 2^31 - 1, would otherwise always look wider than its other side).
 */
export function splitPrice(
  min: number | undefined,
  max: number | undefined,
  ceiling = Number.POSITIVE_INFINITY,
): PriceSplit | undefined {
  if (cellsHold(min, max)) return undefined;
  const width = (r: PriceRange) =>
    Math.max(0, Math.min(r.max ?? Number.POSITIVE_INFINITY, ceiling + 1) - r.min);
  const split: PriceSplit = { cells: [], reads: [] };
  const range: PriceRange = { min: min ?? 0, ...(max === undefined ? {} : { max }) };
  cover(PRICE_BANDS, range, 1, width, split.cells, (piece, sign) =>
    cover(PRICE_SLICES, piece, sign, width, split.cells, (part, sign) => {
      split.reads.push({ range: part, sign });
    }),
  );
  return split;
}

/**
 * Covers `r` with the intervals between `edges`: each interval it holds whole joins one run counted
 * from the cells (pushed to `cells` with `sign`); each it holds in part goes to `partial`,
 * or, when the part is the larger side, the interval joins the run and what lies outside goes to
 * `partial` with the sign turned.
 */
function cover(
  edges: readonly number[],
  r: PriceRange,
  sign: 1 | -1,
  width: (r: PriceRange) => number,
  cells: SignedRange[],
  partial: (r: PriceRange, sign: 1 | -1) => void,
) {
  const lo = r.min;
  const hi = r.max ?? Number.POSITIVE_INFINITY;
  let first: number | undefined;
  let last: number | undefined;
  for (const [i, start] of edges.entries()) {
    const end = edges[i + 1] ?? Number.POSITIVE_INFINITY;
    const a = Math.max(start, lo);
    const b = Math.min(end, hi);
    if (a >= b) continue;
    if (a > start || b < end) {
      const part: PriceRange = { min: a, ...(b === Number.POSITIVE_INFINITY ? {} : { max: b }) };
      const outside: PriceRange[] = [
        ...(a > start ? [{ min: start, max: a }] : []),
        ...(b < end ? [{ min: b, ...(end === Number.POSITIVE_INFINITY ? {} : { max: end }) }] : []),
      ];
      if (width(part) <= outside.reduce((sum, o) => sum + width(o), 0)) {
        partial(part, sign);
        continue;
      }
      for (const o of outside) partial(o, sign === 1 ? -1 : 1);
    }
    first ??= i;
    last = i;
  }
  if (first === undefined || last === undefined) return;
  const upper = edges[last + 1];
  cells.push({
    range: { min: edges[first] as number, ...(upper === undefined ? {} : { max: upper }) },
    sign,
  });
}

/** The slice holding `r` (a split's read part lies within one), which the cells count. */
export function sliceAround(r: PriceRange): PriceRange {
  const start = PRICE_SLICES.findLast((edge) => edge <= r.min) ?? 0;
  const end = PRICE_SLICES.find((edge) => edge > start);
  return { min: start, ...(end === undefined ? {} : { max: end }) };
}

/** The split of the filters' price range (splitPrice), the catalogue's highest price read when needed. */
export async function priceSplitOf(
  em: EntityManager,
  f: { price_min_cents?: number; price_max_cents?: number },
): Promise<PriceSplit | undefined> {
  if (cellsHold(f.price_min_cents, f.price_max_cents)) return undefined;
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
      WHERE ${ownedBy(ctx, 'listings as r')} AND r.deleted_at IS NULL
        AND r.custom_retail_price_cents >= ${r.min} AND ${below(sql`r.custom_retail_price_cents`)}`,
  );
  const ids = repriced.map((x) => x.id);
  return [
    sql`p.retail_price_cents >= ${r.min} AND ${below(sql`p.retail_price_cents`)} AND NOT (p.id = ANY(${ids}::integer[]))`,
    sql`p.id = ANY(${ids}::integer[])`,
  ];
}

/** The rows a statement reads (`p`, and `l` for the store's listing) and the conditions they must meet. */
export interface PartSource {
  q: CatalogueQuery;
  from: RawBuilder<unknown>;
  /** How its statements run: `scanRows` (nested loops off), or `rows` for a few rows read by key. */
  read: typeof rows;
}

/**
 * The rows of a price range's part `r`, for `q` (built with `r` as its price bounds): two disjoint
 * sources when only the store's customisations make `q` read its listing (q.uncustomised).
 * - The products the store has not customised, on their own columns, their catalogue price in `r`:
 *   a range of `products_retail_idx` (or of a driver's index, `fence`) with no listing joined (`l`
 *   is a row of nulls, so every EFFECTIVE_* expression reads the product's own column), less the
 *   customised ones by an anti-join.
 * - The store's customised listings: those re-priced into `r` (a range of
 *   `listings_store_custom_price_idx`) and those that change only the selling mode (the product's
 *   own price then decides), joined to their products.
 * The range is a base condition of each, so it bounds what is read whatever facet leaves its own
 * filter out. Joined to every product of the range instead, the store's listing cost a second read
 * of each (0.93 s against 0.42 s for a grouped count of 435,000 products at 2M).
 * Otherwise (`exclude_in_store` reads every listing): the range read through priceReach.
 */
export async function partSources(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  r: PriceRange,
  fence?: RawBuilder<unknown>,
): Promise<PartSource[]> {
  const plain = q.uncustomised;
  const effective = q.facets.price_band;
  if (!plain?.price_band || !effective)
    return [{ q, from: catalogueFrom(ctx, await priceReach(em, ctx, r)), read: scanRows }];
  const { price_band: own, ...plainFacets } = plain;
  const { price_band: _effective, ...facets } = q.facets;
  const below = r.max === undefined ? sql`true` : sql`l.custom_retail_price_cents < ${r.max}`;
  const live = sql`${ownedBy(ctx, 'listings as l')} AND l.deleted_at IS NULL`;
  return [
    {
      q: { ...q, base: [...q.base, own, sql`NOT ${customisedListing(ctx, sql`p.id`)}`], facets: plainFacets },
      from: sql`${productsFrom(fence)} CROSS JOIN (SELECT NULL::integer AS custom_retail_price_cents, NULL::text AS purchase_mode) l`,
      read: scanRows,
    },
    {
      q: { ...q, base: [...q.base, effective], facets },
      from: sql`(SELECT l.* FROM listings l WHERE ${live} AND l.custom_retail_price_cents >= ${r.min} AND ${below}
          UNION ALL SELECT l.* FROM listings l
          WHERE ${live} AND l.custom_retail_price_cents IS NULL AND l.purchase_mode IS NOT NULL) l
        JOIN products p ON p.id = l.product_id`,
      read: rows,
    },
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
