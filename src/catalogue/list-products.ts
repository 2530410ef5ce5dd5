import type { EntityManager } from '@mikro-orm/postgresql';
import { ownedBy } from '../db/owned-by.ts';
import { pageOffset, pagination, type RawBuilder, rows, scanRows, sql } from '../db/sql.ts';
import { loadCatalogueContext, type StoreCatalogueContext } from '../store/catalogue-context.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { productsEstimate } from './catalogue-size.ts';
import { cellsHoldTotal, cellTotal } from './cells.ts';
import { driverChoice } from './drivers.ts';
import {
  buildCatalogueQuery,
  type CatalogueQuery,
  catalogueFrom,
  emptyPriceRange,
  matchesNothing,
  needsTaxonomy,
  ownershipOf,
  queryFrom,
  resolveTaxonomy,
  SEARCH_RANKED,
  type Taxonomy,
  whereAll,
} from './filters.ts';
import {
  marginPageIds,
  PAGE_WALK,
  type PageMode,
  plainPageIds,
  walkAgain,
  walkable,
  walkedPageIds,
  walkLength,
} from './page-ids.ts';
import {
  type PartSource,
  type PriceRange,
  type PriceSplit,
  partSources,
  priceSplitOf,
  sliceAround,
  withPrice,
} from './price-ranges.ts';
import { type ProductRow, productColumns, toCatalogueProduct } from './product-item.ts';
import type { ListInput } from './schemas.ts';
import { inStaticOrder } from './search-terms.ts';
import { type KeyBound, sortKeyBound } from './slice-bounds.ts';
import { orderBy } from './sort-order.ts';

/** From this offset on, a page waits for the total and is not read past the last match. */
const DEEP_OFFSET = 10_000n;

/**
 * A search page in relevance order, read in one statement with the search's matches (counted up to
 * one past SEARCH_RANKED). The best SEARCH_RANKED matches by static quality are ranked by relevance
 * (ties by id, as before the bound); matches past them follow in the static order, so every match
 * still has one place in the list. Each way the term can match is tried in turn until one matches.
 */
async function rankedPage(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  offset: string,
): Promise<{ matches: number; rows: ProductRow[] }> {
  const source = queryFrom(ctx, q);
  const reach = BigInt(offset) + BigInt(input.limit);
  const rank = input.order === 'asc' ? sql`rank ASC` : sql`rank DESC`;
  const modes = q.searchModes ?? [];
  for (const [i, mode] of modes.entries()) {
    const where = sql`${mode.where} AND ${whereAll(q)}`;
    const ranked = sql`SELECT * FROM (SELECT product_id, 0 AS part, rank, static FROM m
      ORDER BY static DESC, product_id DESC LIMIT ${SEARCH_RANKED}) r`;
    const rest = sql`SELECT product_id, 1 AS part, 0::real AS rank, static FROM (${inStaticOrder({
      source,
      columns: sql`p.id AS product_id`,
      where,
      limit: reach - BigInt(SEARCH_RANKED),
      offset: SEARCH_RANKED,
      lexemes: mode.lexemes,
    })}) t`;
    const found = await rows<ProductRow & { matches: number }>(
      em,
      sql`WITH m AS MATERIALIZED (${inStaticOrder({
        source,
        columns: sql`p.id AS product_id, ${mode.relevance} AS rank`,
        where,
        limit: SEARCH_RANKED + 1,
        lexemes: mode.lexemes,
      })}), page AS (
          SELECT product_id, ord FROM (
            SELECT product_id, row_number() OVER (ORDER BY part, ${rank},
              CASE WHEN part = 0 THEN product_id END ASC, static DESC, product_id DESC) AS ord
            FROM (${reach > BigInt(SEARCH_RANKED) ? sql`${ranked} UNION ALL ${rest}` : ranked}) s
          ) o ORDER BY ord LIMIT ${input.limit} OFFSET ${offset}
        )
        SELECT n.matches, ${productColumns(ctx)}
        FROM (SELECT count(*)::integer AS matches FROM m) n
        LEFT JOIN (page
          JOIN products p ON p.id = page.product_id
          LEFT JOIN listings l ON l.product_id = page.product_id AND ${ownedBy(ctx, 'listings as l')}
            AND l.deleted_at IS NULL
          LEFT JOIN categories c ON c.id = p.category_id
          LEFT JOIN brands b ON b.id = p.brand_id) ON true
        ORDER BY page.ord`,
    );
    const matches = found[0]?.matches ?? 0;
    if (matches > 0 || i === modes.length - 1) return { matches, rows: found.filter((r) => r.id !== null) };
  }
  return { matches: 0, rows: [] };
}

/**
 * The matching total where the cells do not hold it (plainList reads those first): for a search, its
 * probe (exact up to SEARCH_RANKED, else a lower bound); under a price range off the band edges, the
 * cells for its whole bands and slices and the price index for the rest (price-ranges.ts); else an exact count
 * over the match.
 */
async function countMatches(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  taxonomy: Taxonomy | undefined,
  fenced: Fenced,
  where: RawBuilder<unknown>,
): Promise<{ total: number; lowerBound: boolean }> {
  if (q.searchMatches !== undefined) return searchTotal(q.searchMatches);
  const { fence } = fenced;
  const split = await priceSplitOf(em, input);
  if (split && (!fence || (await splitBeatsFence(em, ctx, input, taxonomy, split, fenced.size))))
    return { total: await splitTotal(em, ctx, input, taxonomy, split), lowerBound: false };
  // Under a driver, a price filter's matches are counted like a split's parts: the driver's products
  // the store has not customised, apart from its customised listings in the range.
  if (fence && q.uncustomised?.price_band) {
    const range = { min: input.price_min_cents ?? 0, max: input.price_max_cents };
    return { total: await sourcesTotal(em, await partSources(em, ctx, q, range, fence)), lowerBound: false };
  }
  const [row] = await scanRows<{ total: number }>(
    em,
    sql`SELECT count(*)::integer AS total FROM ${catalogueFrom(ctx, fence)} WHERE ${where}`,
  );
  return { total: row?.total ?? 0, lowerBound: false };
}

/**
 * Whether a split counts a price range under a driver for less than the driver's own read: the
 * cells hold each of its whole parts under the other filters, and its read parts lie in slices
 * holding fewer products than the driver. A category of 175,000 products under a price was read
 * whole, index-only, for its count (0.24 s at 2M, with its customised listings apart); its slices
 * hold it, and a read of half a slice is a few thousand entries.
 */
async function splitBeatsFence(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  input: ListInput,
  taxonomy: Taxonomy | undefined,
  split: PriceSplit,
  fenceSize: number,
): Promise<boolean> {
  const { price_min_cents: _min, price_max_cents: _max, ...others } = input;
  if (!split.cells.every(({ range }) => cellsHoldTotal(ctx, withPrice(others, range), taxonomy)))
    return false;
  const slices = await Promise.all(
    split.reads.map(({ range }) => cellTotal(em, ctx, withPrice({}, sliceAround(range)), taxonomy)),
  );
  return slices.reduce<number>((sum, n) => sum + (n ?? Number.POSITIVE_INFINITY), 0) < fenceSize;
}

/** The rows of disjoint sources (price-ranges.ts partSources) that meet their conditions. */
async function sourcesTotal(em: EntityManager, sources: PartSource[]): Promise<number> {
  const counts = sources.map(async (s) => {
    const [row] = await s.read<{ n: number }>(
      em,
      sql`SELECT count(*)::integer AS n FROM ${s.from} WHERE ${whereAll(s.q)}`,
    );
    return row?.n ?? 0;
  });
  return (await Promise.all(counts)).reduce((a, b) => a + b, 0);
}

/**
 * The total of a split price range: its whole bands and slices from the cells (or, under filters no
 * grain holds with the price, counted through the price index like the parts), plus and less the
 * parts. Separate statements, so under concurrent writes the sum is clamped at 0.
 */
async function splitTotal(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  input: ListInput,
  taxonomy: Taxonomy | undefined,
  split: PriceSplit,
): Promise<number> {
  const { price_min_cents: _min, price_max_cents: _max, ...others } = input;
  const read = async (r: PriceRange) => {
    const q = await buildCatalogueQuery(em, ctx, withPrice(others, r), { taxonomy });
    return sourcesTotal(em, await partSources(em, ctx, q, r));
  };
  const counted = await Promise.all([
    ...split.cells.map(
      async ({ range, sign }) =>
        sign * ((await cellTotal(em, ctx, withPrice(others, range), taxonomy)) ?? (await read(range))),
    ),
    ...split.reads.map(async ({ range, sign }) => sign * (await read(range))),
  ]);
  return Math.max(
    0,
    counted.reduce((a, b) => a + b, 0),
  );
}

/**
 * A walk's page (page-ids.ts walkedPageIds), with what the walk found counted in the same statement;
 * no page when it found fewer than the page's reach, and the page is not whole.
 */
async function walkedPage(
  em: EntityManager,
  store: StoreCatalogueContext,
  input: ListInput,
  walked: ReturnType<typeof walkedPageIds>,
  named: RawBuilder<unknown>,
): Promise<{ page?: ProductRow[]; walked: number }> {
  const found = await rows<ProductRow & { walked: number }>(
    em,
    sql`WITH mine AS MATERIALIZED ${walked.mine}
      SELECT n.walked, ${productColumns(store)} FROM (SELECT count(*)::integer AS walked FROM mine) n
      LEFT JOIN ((${walked.ids}) page ${named}) ON true
      ORDER BY ${orderBy(input)}`,
  );
  const n = found[0]?.walked ?? 0;
  return n >= walked.reach ? { page: found.filter((r) => r.id !== null), walked: n } : { walked: n };
}

/** What a list reads its matches through: a raw category value's fence, or a driver's, and how many products it holds. */
interface Fenced {
  fence?: RawBuilder<unknown>;
  size: number;
}

/**
 * Several filters meet late in a sort order (2 s at 2M walking the created index for a brand under
 * a category and a price): the total, and a page a bounded walk does not find, read only the most
 * selective brand, supplier or category's products, through its covering index. The margin order
 * too, now those indexes carry its operands (Migration20261128110000_sort_key_covers): its own index
 * walk passed 590,000 entries for a category under a price (0.43 s at 2M; the category's products
 * read index-only and sorted, 0.16 s).
 */
async function fenceOf(
  em: EntityManager,
  store: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  taxonomy: Taxonomy | undefined,
  ranked: boolean,
): Promise<Fenced> {
  const none = { fence: q.fence, size: Number.POSITIVE_INFINITY };
  // A search in relevance order reads its own matches, never through a driver.
  if (ranked || q.fence || Object.keys(q.facets).length < 2) return none;
  const choice = await driverChoice(em, store, input, taxonomy);
  return choice ? { fence: q.facets[choice.driver], size: choice.size } : none;
}

/** An answer with no products, for filters that can match none. */
function nothingListed(store: StoreCatalogueContext, input: ListInput) {
  const ownership = ownershipOf(store, input);
  return {
    products: [],
    pagination: { ...pagination(input.page, input.limit, 0), total_count_is_lower_bound: false },
    ...(ownership ? { ownership } : {}),
  };
}

export async function listProducts(ctx: PartnerContext, input: ListInput) {
  const { em } = ctx;
  const store = await loadCatalogueContext(em, ctx.actor.storeId);
  const taxonomy = needsTaxonomy(store, input) ? await resolveTaxonomy(em, store, input) : undefined;
  // A search in relevance order counts its matches in the statement that ranks them.
  const ranked = !input.sort_by && Boolean(input.search?.trim());
  // A search under a filter that names nothing would walk every match of its word to find none; an
  // empty price range would split into slices and read them to count nothing.
  if ((input.search?.trim() && matchesNothing(input, taxonomy)) || emptyPriceRange(input))
    return nothingListed(store, input);
  const q = await buildCatalogueQuery(em, store, input, { taxonomy, deferSearch: ranked });
  const fenced = await fenceOf(em, store, q, input, taxonomy, ranked);
  const offset = pageOffset(input.page, input.limit);
  const { count, pageRows } = ranked
    ? await searchList(em, store, q, input, offset)
    : await plainList(
        { em, store, q, input, fence: fenced.fence, where: whereAll(q), offset },
        taxonomy,
        fenced,
      );
  return {
    products: pageRows.map(toCatalogueProduct),
    pagination: {
      ...pagination(input.page, input.limit, count.total),
      total_count_is_lower_bound: count.lowerBound,
    },
    ...(q.ownership ? { ownership: q.ownership } : {}),
  };
}

/** What a page of a list not ranked by search is read from. */
interface Listing {
  em: EntityManager;
  store: StoreCatalogueContext;
  q: CatalogueQuery;
  input: ListInput;
  fence: Fenced['fence'];
  where: RawBuilder<unknown>;
  offset: string;
}

/** The page's products named: chosen on ids alone, only its rows are then read whole. */
const namedFrom = (store: StoreCatalogueContext) => sql`JOIN products p ON p.id = page.product_id
      LEFT JOIN listings l ON l.product_id = page.product_id AND ${ownedBy(store, 'listings as l')}
        AND l.deleted_at IS NULL
      LEFT JOIN categories c ON c.id = p.category_id
      LEFT JOIN brands b ON b.id = p.brand_id`;

/** The page's rows read whole by their ids (`page`), in the list's order. */
const readPage = (l: Listing, ids: RawBuilder<unknown>) =>
  rows<ProductRow>(
    l.em,
    sql`SELECT ${productColumns(l.store)} FROM (${ids}) page ${namedFrom(l.store)} ORDER BY ${orderBy(l.input)}`,
  );

async function pageOf(
  l: Listing,
  walk: PageMode = { walk: PAGE_WALK.entries },
  sized = false,
  within?: KeyBound,
): Promise<ProductRow[]> {
  const { em, store, q, input, fence, where, offset } = l;
  if (!walkable(q, input)) {
    // Under a fence (a raw category value, a driver), only the products it admits (productsFrom).
    const from = catalogueFrom(store, fence);
    const ids =
      input.sort_by === 'margin'
        ? marginPageIds(store, q, input, from, where, offset, fence, await sortKeyBound(em, input))
        : plainPageIds({ ...q, fence }, input, from, where, offset);
    return readPage(l, ids);
  }
  // A bounded walk first, with what it found counted in the same statement; when it falls short
  // of the page, the matches read (through the driver, if any) and sorted (page-ids.ts).
  if (walk !== 'matches') {
    const walked = walkedPageIds(store, q, input, offset, walk, undefined, within);
    const found = await walkedPage(em, store, input, walked, namedFrom(store));
    if (found.page) return found.page;
    // A price range's matches bunch along the wholesale order: walked again from where the
    // range's own products can begin (slice-bounds.ts), the customised listings read apart. Not
    // first: a walk that finds its page at once would pay for that read.
    const bound = within ? undefined : await sortKeyBound(em, input);
    if (bound) return pageOf(l, { walk: PAGE_WALK.most }, true, bound);
    // A walk sized by the cells' total missed: the matches bunch along the order. One that was
    // not sized may walk again, as far as what it found says (page-ids.ts walkAgain), unless a
    // driver bounds the matches' read (its products, index-only), which beat a longer walk.
    if (!sized && !fence) return pageOf(l, walkAgain(input, offset, walk.walk, found.walked), true);
  }
  const matched = walkedPageIds(store, q, input, offset, 'matches', fence);
  return readPage(l, sql`WITH mine AS MATERIALIZED ${matched.mine} ${matched.ids}`);
}

async function plainList(l: Listing, taxonomy: Taxonomy | undefined, fenced: Fenced) {
  const { em, store, q, input, fence, where, offset } = l;
  // A total the cells hold costs a few index entries: read first, it spares the page a walk of
  // the whole sort index when nothing (or nothing past the offset) matches, e.g. filters that
  // contradict each other (in_stock=false&ready_to_list=true: 1.2 s at 2M).
  const fromCells = q.searchMatches === undefined ? await cellTotal(em, store, input, taxonomy) : undefined;
  if (fromCells !== undefined) {
    const count = { total: fromCells, lowerBound: false };
    if (BigInt(offset) >= BigInt(fromCells)) return { count, pageRows: [] };
    // The total sizes the walk: as far as the matches' spread says the page lies (page-ids.ts),
    // unless a driver bounds the matches' read.
    const walk = fence ? undefined : walkLength(input, offset, fromCells, await productsEstimate(em));
    return { count, pageRows: await pageOf(l, walk, true) };
  }
  const counting = countMatches(em, store, q, input, taxonomy, fenced, where);
  // A deep page skips `offset` rows to reach its own, a cost that grows with the offset: past
  // DEEP_OFFSET the total is read first, and a page past the last match answers empty at once
  // instead of skipping every match to find nothing.
  if (BigInt(offset) >= DEEP_OFFSET) {
    const count = await counting;
    return { count, pageRows: BigInt(offset) >= BigInt(count.total) ? [] : await pageOf(l) };
  }
  const [count, pageRows] = await Promise.all([counting, pageOf(l)]);
  return { count, pageRows };
}

async function searchList(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  offset: string,
) {
  const { matches, rows: pageRows } = await rankedPage(em, ctx, q, input, offset);
  return { count: searchTotal(matches), pageRows };
}

/** A search's total from its matches counted up to one past the bound. */
const searchTotal = (matches: number) => ({
  total: Math.min(matches, SEARCH_RANKED),
  lowerBound: matches > SEARCH_RANKED,
});
