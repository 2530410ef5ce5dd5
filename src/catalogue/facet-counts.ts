import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { type RawBuilder, rows, run, scanRows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import {
  type CellCount,
  type CellTargets,
  cellPlan,
  cellQuery,
  PRICE_BANDS,
  partialCellQuery,
} from './cells.ts';
import { CHANNELS, channelBit } from './channels.ts';
import { type Driver, driverOf } from './drivers.ts';
import {
  buildCatalogueQuery,
  type CatalogueQuery,
  catalogueFrom,
  EFFECTIVE_PURCHASE_MODE,
  EFFECTIVE_RETAIL,
  needsTaxonomy,
  ownershipOf,
  productsFrom,
  resolveTaxonomy,
  SEARCH_RANKED,
  type Taxonomy,
} from './filters.ts';
import { type PriceRange, type PriceSplit, partSources, priceSplitOf, withPrice } from './price-ranges.ts';
import { type CatalogueFilters, FACET_NAMES, type FacetName } from './schemas.ts';
import { inStaticOrder } from './search-terms.ts';

/** The facet value of band `i`: `min-max`, the last band open (`100000-`). */
function bandValue(i: number): string {
  return `${PRICE_BANDS[i]}-${PRICE_BANDS[i + 1] ?? ''}`;
}

/** One counted value of a facet: rows where `when` holds (and every other active filter). */
interface ValueCount {
  facet: FacetName;
  value: string;
  when: RawBuilder<unknown>;
}

const VALUE_COUNTS: ValueCount[] = [
  { facet: 'pricing_type', value: 'wholesale', when: sql`p.pricing_type = 'wholesale'` },
  { facet: 'pricing_type', value: 'commission', when: sql`p.pricing_type = 'commission'` },
  { facet: 'purchase_mode', value: 'buy_now', when: sql`${EFFECTIVE_PURCHASE_MODE} = 'buy_now'` },
  { facet: 'purchase_mode', value: 'enquiry', when: sql`${EFFECTIVE_PURCHASE_MODE} = 'enquiry'` },
  { facet: 'in_stock', value: 'true', when: sql`p.stock_quantity > 0` },
  { facet: 'in_stock', value: 'false', when: sql`p.stock_quantity = 0` },
  { facet: 'ready_to_list', value: 'true', when: sql`p.ready_to_list` },
  { facet: 'ready_to_list', value: 'false', when: sql`NOT p.ready_to_list` },
  ...PRICE_BANDS.map((lo, i) => {
    const hi = PRICE_BANDS[i + 1];
    const upper = hi === undefined ? sql`true` : sql`${EFFECTIVE_RETAIL} < ${hi}`;
    return {
      facet: 'price_band' as const,
      value: bandValue(i),
      when: sql`${EFFECTIVE_RETAIL} >= ${lo} AND ${upper}`,
    };
  }),
  ...CHANNELS.map((channel) => ({
    facet: 'complete_for' as const,
    value: channel,
    when: sql`(p.complete_channels & ${channelBit(channel)}) <> 0`,
  })),
];

/** Conditions of every active facet filter except `skip`: the drill-down rule. */
function othersThan(q: CatalogueQuery, skip: FacetName): RawBuilder<unknown> {
  const conds = Object.entries(q.facets)
    .filter(([name]) => name !== skip)
    .map(([, cond]) => cond as RawBuilder<unknown>);
  return conds.length ? sql.join(conds, sql` AND `) : sql`true`;
}

/** A row can count in some facet only if it fails at most one active facet filter. */
function prune(q: CatalogueQuery): RawBuilder<unknown> {
  const conds = Object.values(q.facets) as RawBuilder<unknown>[];
  if (conds.length <= 1) return sql`true`;
  const misses = conds.map((c) => sql`(CASE WHEN ${c} THEN 0 ELSE 1 END)`);
  return sql`(${sql.join(misses, sql` + `)}) <= 1`;
}

interface TaxonomyRow {
  brand: number | null;
  category: number | null;
  counts: number[];
}
interface TermsRow {
  supplier_id: number;
  counts: number[];
}

type Facets = Record<FacetName, { value: string; count: number }[]>;

const counted = (where: RawBuilder<unknown>) => sql`count(*) FILTER (WHERE ${where})::integer`;

function taxonomyQuery(q: CatalogueQuery, from: RawBuilder<unknown>, base: RawBuilder<unknown>) {
  // store_type rides on the category group: a category's count adds to its store type.
  const counts = (['brand', 'category', 'store_type'] as const).map((f) => counted(othersThan(q, f)));
  return sql<TaxonomyRow>`SELECT p.brand_id AS brand, p.category_id AS category, ARRAY[${sql.join(counts, sql`, `)}] AS counts
    FROM ${from} WHERE ${base} AND ${prune(q)}
    GROUP BY p.brand_id, p.category_id`;
}

function termsQuery(q: CatalogueQuery, from: RawBuilder<unknown>, base: RawBuilder<unknown>) {
  const counts = [
    counted(othersThan(q, 'supplier_id')),
    ...VALUE_COUNTS.map((v) => counted(sql`${othersThan(q, v.facet)} AND ${v.when}`)),
    counted(whereFacets(q)),
  ];
  return sql<TermsRow>`SELECT p.supplier_id, ARRAY[${sql.join(counts, sql`, `)}] AS counts
    FROM ${from} WHERE ${base} AND ${prune(q)}
    GROUP BY p.supplier_id`;
}

function whereFacets(q: CatalogueQuery): RawBuilder<unknown> {
  const conds = Object.values(q.facets) as RawBuilder<unknown>[];
  return conds.length ? sql.join(conds, sql` AND `) : sql`true`;
}

/**
 * Receives the counts: brand, category and store_type values are ids (null: none), the others are
 * the values listed.
 */
type Tally = (facet: FacetName | 'total', value: string | null, count: number) => void;

/**
 * The fallback for any filters: two aggregate queries run in parallel over the covering index, one
 * grouped by (brand, category), ~2k groups; one grouped by supplier with a filtered count per value
 * of every small facet. Measured on PostgreSQL 18 at 200k products, this is several times faster
 * than one GROUPING SETS pass (which hashes each row once per set) or joining the per-channel scores.
 * `read` runs each: scanRows (nested loops off) unless the source says otherwise (PartSource).
 */
async function scanCounts(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  tally: Tally,
  from = catalogueFrom(ctx),
  read: typeof rows = scanRows,
) {
  const base = sql.join(q.base, sql` AND `);
  const [taxonomyRows, terms] = await Promise.all([
    read(em, taxonomyQuery(q, from, base)),
    read(em, termsQuery(q, from, base)),
  ]);
  const id = (n: number | null) => (n === null ? null : String(n));
  for (const row of taxonomyRows) {
    const [brandCount = 0, categoryCount = 0, typeCount = 0] = row.counts;
    tally('brand', id(row.brand), brandCount);
    tally('category', id(row.category), categoryCount);
    tally('store_type', id(row.category), typeCount);
  }
  for (const row of terms) {
    const [supplier = 0, ...values] = row.counts;
    tally('supplier_id', String(row.supplier_id), supplier);
    for (const [i, v] of VALUE_COUNTS.entries()) tally(v.facet, v.value, values[i] ?? 0);
    tally('total', null, values[VALUE_COUNTS.length] ?? 0);
  }
}

/**
 * The facets no grain answers under these filters (a facet whose own dimension and the other
 * filters' dimensions no grain holds together, e.g. brands under a category and a price bound), one
 * query each, in parallel. Each applies every other filter, so it reads only the products those
 * leave (an index range on a taxonomy filter), where the full scan reads every row that fails at
 * most one filter.
 */
async function facetScans(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
  facets: (FacetName | 'total')[],
  tally: Tally,
) {
  const q = await buildCatalogueQuery(em, ctx, f, { taxonomy });
  const from = catalogueFrom(ctx);
  const base = sql.join(q.base, sql` AND `);
  const id = (n: number | null) => (n === null ? null : String(n));
  const grouped = async (facet: FacetName, column: RawBuilder<unknown>) => {
    const found = await scanRows<{ value: number | null; n: number }>(
      em,
      sql`SELECT ${column} AS value, count(*)::integer AS n FROM ${from}
        WHERE ${base} AND ${othersThan(q, facet)} GROUP BY 1`,
    );
    for (const r of found) tally(facet, id(r.value), r.n);
  };
  const valued = async (facet: FacetName) => {
    const values = VALUE_COUNTS.filter((v) => v.facet === facet);
    const [row] = await scanRows<{ counts: number[] }>(
      em,
      sql`SELECT ARRAY[${sql.join(
        values.map((v) => counted(v.when)),
        sql`, `,
      )}] AS counts FROM ${from} WHERE ${base} AND ${othersThan(q, facet)}`,
    );
    for (const [i, v] of values.entries()) tally(facet, v.value, row?.counts[i] ?? 0);
  };
  const one = async (facet: FacetName | 'total') => {
    if (facet === 'total') {
      const [row] = await scanRows<{ n: number }>(
        em,
        sql`SELECT count(*)::integer AS n FROM ${from} WHERE ${base} AND ${whereFacets(q)}`,
      );
      tally('total', null, row?.n ?? 0);
    } else if (facet === 'brand') await grouped(facet, sql`p.brand_id`);
    else if (facet === 'category' || facet === 'store_type') await grouped(facet, sql`p.category_id`);
    else if (facet === 'supplier_id') await grouped(facet, sql`p.supplier_id`);
    else await valued(facet);
  };
  await Promise.all(facets.map(one));
}

/** The counts from the cells; complete_for comes per mask of channels, price_band per band index. */
async function cellCounts(em: EntityManager, query: RawBuilder<CellCount>, tally: Tally) {
  for (const { facet, value, n } of await rows(em, query)) {
    if (facet === 'complete_for') {
      for (const channel of CHANNELS) {
        if ((Number(value) & (channelBit(channel) ?? 0)) !== 0) tally(facet, channel, n);
      }
    } else if (facet === 'price_band') tally(facet, bandValue(Number(value)), n);
    else tally(facet, value, n);
  }
}

export type FacetsPath = 'auto' | 'cells' | 'scan';

/**
 * A search's facets count within its best SEARCH_RANKED matches by static quality under the
 * filters that are not facets, the list's ranking bound (docs/decisions.md, "Search at scale").
 * When no more match, that is every match and the counts are exact; past it they are lower bounds.
 * Either way the facets' drill-down runs over at most SEARCH_RANKED rows, not over the ~100,000
 * matches of a broad word.
 */
async function searchWithinBound(em: EntityManager, ctx: StoreCatalogueContext, q: CatalogueQuery) {
  // The bound is drawn under the filters that are not facets: from every product, never only those of
  // a raw category value (a facet filter, which the category facet leaves out).
  const from = q.readsListing ? catalogueFrom(ctx) : productsFrom();
  const best = await rows(
    em,
    inStaticOrder<{ id: number }>({
      source: from,
      columns: sql`p.id`,
      where: sql.join(q.base, sql` AND `),
      limit: SEARCH_RANKED + 1,
      lexemes: q.searchLexemes,
    }),
  );
  const ids = best.slice(0, SEARCH_RANKED).map((r) => r.id);
  // The ids meet every base condition (they were drawn under them): they replace them, so the counts
  // read those products by primary key. Kept beside them, the text condition let cleared statistics
  // read every match of `oak` through the text index (1.2 s at 2M) to keep 1,000.
  q.base.splice(0, q.base.length, sql`p.id = ANY(${ids}::integer[])`);
  return best.length > SEARCH_RANKED;
}

/**
 * Counts the facets (or only those in `only`) and the total for the filters into `tally`: from the
 * precomputed cells (cells.ts) when every filter is a condition on cell dimensions, from cells and one
 * scan per facet no grain holds, else from a scan. Returns whether the counts are lower bounds (a
 * search past its ranking bound).
 */
async function countInto(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
  path: FacetsPath,
  tally: Tally,
  only?: CellTargets,
): Promise<boolean> {
  const searching = Boolean(f.search?.trim());
  const searched = searching ? await buildCatalogueQuery(em, ctx, f, { taxonomy }) : undefined;
  const lowerBound = searched ? await searchWithinBound(em, ctx, searched) : false;
  const plan = path !== 'scan' && !searching ? cellPlan(ctx, f, taxonomy) : undefined;
  const fromCells = plan && cellQuery(ctx, plan, only);
  if (!fromCells && path === 'cells') throw new Error('these filters cannot be answered from facet cells');
  // Filters the cells express, but not for every facet: those facets are scanned one by one.
  const partial = !fromCells && plan && path === 'auto' ? partialCellQuery(ctx, plan, only) : undefined;
  if (fromCells) await cellCounts(em, fromCells, tally);
  else if (partial) {
    await Promise.all([
      cellCounts(em, partial.query, tally),
      facetScans(em, ctx, f, taxonomy, partial.missing, tally),
    ]);
  } else if (only && !searched) await facetScans(em, ctx, f, taxonomy, [...only], tally);
  else await scanCounts(em, ctx, searched ?? (await buildCatalogueQuery(em, ctx, f, { taxonomy })), tally);
  return lowerBound;
}

/** Whether `only` asks for `facet` (no `only`: every facet and the total). */
const wants = (only: CellTargets, facet: FacetName | 'total') =>
  !only || (only as readonly string[]).includes(facet);

/**
 * The facets under filters no cell grain holds together, one of them a driver (driverOf): the
 * drill-down rule splits them in two, neither reading the whole catalogue (docs/decisions.md, "Raw
 * category values" and "Facets read through their most selective filter").
 * - The driver's own facet leaves its own filter out: it is that facet of the other filters,
 *   counted the way they are counted (countAny: cells, another driver, a price split).
 * - Every other facet and the total count only the driver's products: its condition becomes a base
 *   condition and the FROM (filters.ts productsFrom), so the two grouped scans read the driver's
 *   entries of its covering index (`products_category_raw_idx`, `products_brand_idx`...), not
 *   every product failing at most one filter. They cost the driver's size.
 */
async function countDriven(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
  driver: Driver,
  tally: Tally,
  only?: CellTargets,
) {
  const { [driver]: _driver, ...others } = f;
  const wanted = (facet: FacetName | 'total') => wants(only, facet);
  const own: Tally = (facet, value, n) => {
    if (facet === driver) tally(facet, value, n);
  };
  const rest: Tally = (facet, value, n) => {
    if (facet !== driver && wanted(facet)) tally(facet, value, n);
  };
  const within = async () => {
    const q = await buildCatalogueQuery(em, ctx, f, { taxonomy });
    const { [driver]: condition, ...facets } = q.facets;
    if (!condition) throw new Error(`the ${driver} filter built no condition`);
    const base = [...q.base, condition];
    await scanCounts(em, ctx, { ...q, base, facets }, rest, catalogueFrom(ctx, condition));
  };
  const needsRest = !only || only.some((facet) => facet !== driver);
  await Promise.all([
    wanted(driver) ? countAny(em, ctx, others, taxonomy, own, [driver]) : undefined,
    needsRest ? within() : undefined,
  ]);
}

/**
 * Facet counts (or those in `only`) without a search, by the cheapest bounded route: the cells when
 * they hold every filter; else through a driver (countDriven); else a price range's split; else
 * the cells and one scan per facet no grain holds, or a scan.
 */
async function countAny(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
  tally: Tally,
  only?: CellTargets,
): Promise<void> {
  const plan = cellPlan(ctx, f, taxonomy);
  if (plan && cellQuery(ctx, plan, only)) {
    await countInto(em, ctx, f, taxonomy, 'auto', tally, only);
    return;
  }
  const driver = await driverOf(em, ctx, f, taxonomy);
  if (driver) return countDriven(em, ctx, f, taxonomy, driver, tally, only);
  const split = await priceSplitOf(em, f);
  if (split) return countPriceSplit(em, ctx, f, taxonomy, split, tally, only);
  await countInto(em, ctx, f, taxonomy, 'auto', tally, only);
}

/**
 * The facets under a price range off the band edges (price-ranges.ts): each part of the range
 * counted on its own, from the band or slice cells or through the price index, and the counts added
 * (every facet but price_band counts only products in the range), the parts taken back out
 * subtracted. The price_band facet leaves its own filter out, so it is the other filters' band facet.
 */
async function countPriceSplit(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
  split: PriceSplit,
  tally: Tally,
  only?: CellTargets,
) {
  const { price_min_cents: _min, price_max_cents: _max, ...others } = f;
  const wanted = (facet: FacetName | 'total') => wants(only, facet);
  const bandOnly: Tally = (facet, value, n) => {
    if (facet === 'price_band') tally(facet, value, n);
  };
  const notBand =
    (sign: 1 | -1): Tally =>
    (facet, value, n) => {
      if (facet !== 'price_band' && wanted(facet)) tally(facet, value, sign * n);
    };
  const slice = async (r: PriceRange, sign: 1 | -1) => {
    const q = await buildCatalogueQuery(em, ctx, withPrice(others, r), { taxonomy });
    const sources = await partSources(em, ctx, q, r);
    await Promise.all(sources.map((s) => scanCounts(em, ctx, s.q, notBand(sign), s.from, s.read)));
  };
  const outside = only?.filter((facet) => facet !== 'price_band');
  if (outside?.length === 0) return countAny(em, ctx, others, taxonomy, bandOnly, ['price_band']);
  await Promise.all([
    wanted('price_band') ? countAny(em, ctx, others, taxonomy, bandOnly, ['price_band']) : undefined,
    ...split.cells.map(async ({ range, sign }) => {
      // countAny's routes but its last: where the cells hold only some facets, the others would be
      // counted by scans that test the range per row over everything the store sees (1.7 s for
      // `scope=store` at 2M); the range itself, through the price index, bounds them instead.
      const within = withPrice(others, range);
      const plan = cellPlan(ctx, within, taxonomy);
      if (plan && cellQuery(ctx, plan, outside))
        return countInto(em, ctx, within, taxonomy, 'auto', notBand(sign), outside);
      const driver = await driverOf(em, ctx, within, taxonomy);
      if (driver) return countDriven(em, ctx, within, taxonomy, driver, notBand(sign), outside);
      return slice(range, sign);
    }),
    ...split.reads.map(({ range, sign }) => slice(range, sign)),
  ]);
}

/**
 * Facet counts for the filters: from the precomputed cells (cells.ts) when every filter is a
 * condition on cell dimensions and the store's listing correction is small, else from a scan; under
 * a raw category value, from that category's products and the other filters' category facet; under a
 * price range off the band edges, from the cells for its whole bands and slices and the price index for
 * the rest.
 * `path` forces one (tests compare them); forcing `cells` throws when the filters need a scan.
 */
export async function countFacets(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  path: FacetsPath = 'auto',
) {
  const taxonomy = needsTaxonomy(ctx, f) ? await resolveTaxonomy(em, ctx, f) : undefined;
  // A search's facets already count within its best SEARCH_RANKED matches, whatever the filters.
  const bounded = path === 'auto' && !f.search?.trim();

  const counted: { facet: FacetName; value: string | null; count: number }[] = [];
  let total = 0;
  const tally: Tally = (facet, value, count) => {
    if (facet === 'total') total += count;
    else if (count) counted.push({ facet, value, count });
  };
  const [lowerBound, brands, categories] = await Promise.all([
    bounded
      ? countAny(em, ctx, f, taxonomy, tally).then(() => false)
      : countInto(em, ctx, f, taxonomy, path, tally),
    run(db(em).selectFrom('brands').select(['id', 'name'])),
    run(
      db(em)
        .selectFrom('categories as c')
        .leftJoin('store_types as t', 't.id', 'c.store_type_id')
        .select(['c.id', 'c.slug', 't.slug as type']),
    ),
  ]);

  // Ids become names: brands by name, categories by slug, each category's count adds to its store
  // type (`_other` without a category or a typed one).
  const brandName = new Map(brands.map((b) => [String(b.id), b.name]));
  const category = new Map(categories.map((c) => [String(c.id), c]));
  const sums = Object.fromEntries(FACET_NAMES.map((n) => [n, new Map<string, number>()])) as Record<
    FacetName,
    Map<string, number>
  >;
  const nameOf = (facet: FacetName, value: string | null): string | undefined => {
    if (facet === 'brand') return value === null ? undefined : brandName.get(value);
    if (facet === 'category') return value === null ? undefined : category.get(value)?.slug;
    if (facet === 'store_type') return (value === null ? undefined : category.get(value)?.type) ?? '_other';
    return value ?? undefined;
  };
  for (const { facet, value, count } of counted) {
    const name = nameOf(facet, value);
    if (name !== undefined) sums[facet].set(name, (sums[facet].get(name) ?? 0) + count);
  }

  const facets = {} as Facets;
  for (const name of FACET_NAMES) {
    // A price range's parts are separate statements, each its own snapshot: under concurrent writes a
    // value taken back out could sum below its true count; it is never listed below 1.
    const list = [...sums[name]].filter(([, count]) => count > 0).map(([value, count]) => ({ value, count }));
    if (name === 'price_band')
      list.sort((a, b) => Number.parseInt(a.value, 10) - Number.parseInt(b.value, 10));
    else list.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
    facets[name] = list;
  }
  const ownership = ownershipOf(ctx, f);
  return {
    facets,
    total_count: Math.max(0, total),
    total_count_is_lower_bound: lowerBound,
    ...(ownership ? { ownership } : {}),
  };
}
