import type { EntityManager } from '@mikro-orm/postgresql';
import { ownedBy } from '../db/owned-by.ts';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { channelBit } from './channels.ts';
import { ownershipOf, scopesToStore, type Taxonomy } from './filters.ts';
import type { CatalogueFilters, FacetName } from './schemas.ts';

/**
 * Facet counts from the precomputed cells (migration Migration20261122080000_facet_cells): counts of
 * active products per combination of facet dimensions, at a few grains. A request is answered from
 * cells when every filter it carries is a condition on cell dimensions; each facet then reads the
 * smallest grain holding its own dimension and those of every other active filter (the drill-down
 * rule), plus the deltas not folded yet and a per-store correction for the store's listings. All in
 * one statement, so one snapshot: the counts are exact at that snapshot, like a scan's.
 */

/** Retail price bands; each value reads as `price_min_cents-price_max_cents` (min inclusive, max exclusive). */
export const PRICE_BANDS = [0, 2500, 5000, 10000, 25000, 50000, 100000] as const;

const edges = (from: number, to: number, step: number) =>
  Array.from({ length: (to - from) / step }, (_, i) => from + i * step);

/**
 * Slices of the bands, every band edge a slice edge (Migration20261128120000_price_slices): the grains
 * holding the price band are kept by slice too, so a partial band is counted from the cells but for
 * the part of a slice at each end (price-ranges.ts).
 */
export const PRICE_SLICES: readonly number[] = [
  ...edges(0, 100_000, 2_500),
  ...edges(100_000, 200_000, 5_000),
  ...edges(200_000, 500_000, 10_000),
  ...edges(500_000, 1_000_000, 50_000),
  1_000_000,
];

/** The bit a slice grain adds to its band grain's GROUPING() mask. */
const SLICED = 1024;

/** Cell dimensions, in the order of the migration's GROUPING() (first = most significant bit). */
const DIMS = [
  'owner',
  'brand',
  'category',
  'supplier',
  'pricing',
  'mode',
  'stock',
  'ready',
  'band',
  'channels',
] as const;
/** `slice`: the price dimension at the slice grains, held in the band's column. */
type Dim = (typeof DIMS)[number] | 'slice';

/** Column of each dimension, in facet_cells and facet_cell_deltas alike. */
const COLUMN: Record<Dim, string> = {
  owner: 'owner_store_id',
  brand: 'brand_id',
  category: 'category_id',
  supplier: 'supplier_id',
  pricing: 'pricing_type',
  mode: 'purchase_mode',
  stock: 'in_stock',
  ready: 'ready_to_list',
  band: 'price_band',
  slice: 'price_band',
  channels: 'complete_channels',
};

const BINARY: Dim[] = ['pricing', 'mode', 'stock', 'ready'];
const SMALL: Dim[] = [...BINARY, 'band', 'channels'];
const SMALL_SLICED: Dim[] = [...BINARY, 'slice', 'channels'];

/**
 * The grains the migration maintains, smallest first (by their size on the seeded catalogue), so a
 * facet reads the first one that holds every dimension it needs.
 */
export const GRAINS: Dim[][] = [
  ['owner', 'category', ...BINARY],
  ['owner', ...SMALL],
  ['owner', 'supplier', ...BINARY],
  ['owner', 'brand', ...BINARY],
  ['owner', 'category', ...SMALL],
  ['owner', 'category', 'supplier', ...BINARY],
  ['owner', 'supplier', ...SMALL],
  ['owner', 'brand', 'category', ...BINARY],
  ['owner', 'brand', ...SMALL],
  ['owner', 'brand', 'supplier', ...BINARY],
  ['owner', ...SMALL_SLICED],
  ['owner', 'category', ...SMALL_SLICED],
  ['owner', 'supplier', ...SMALL_SLICED],
  ['owner', 'brand', ...SMALL_SLICED],
];

/** GROUPING() of a grain: the bit of each dimension rolled up, and SLICED for a slice grain. */
export function grainMask(dims: readonly Dim[]): number {
  const sliced = dims.includes('slice');
  const held = sliced ? [...dims, 'band'] : dims;
  const mask = DIMS.reduce((m, d, i) => (held.includes(d) ? m : m | (1 << (DIMS.length - 1 - i))), 0);
  return sliced ? mask | SLICED : mask;
}

/** A condition on cell columns and the dimensions it reads. */
interface CellCond {
  dims: Dim[];
  where: RawBuilder<unknown>;
}

/** The dimension each facet lists (store_type is a function of the category). */
const FACET_DIM: Record<FacetName, Dim> = {
  brand: 'brand',
  category: 'category',
  store_type: 'category',
  supplier_id: 'supplier',
  pricing_type: 'pricing',
  purchase_mode: 'mode',
  in_stock: 'stock',
  ready_to_list: 'ready',
  complete_for: 'channels',
  price_band: 'band',
};

/** The value listed per facet: the dimension's column (ids and masks are named afterwards). */
const FACET_VALUE: Record<FacetName, RawBuilder<unknown>> = {
  brand: sql`brand_id::text`,
  category: sql`category_id::text`,
  store_type: sql`category_id::text`,
  supplier_id: sql`supplier_id::text`,
  pricing_type: sql`pricing_type`,
  purchase_mode: sql`purchase_mode`,
  in_stock: sql`in_stock::text`,
  ready_to_list: sql`ready_to_list::text`,
  complete_for: sql`complete_channels::text`,
  price_band: sql`price_band::text`,
};

const col = (d: Dim) => sql.ref(COLUMN[d]);
const anyOfIds = (d: Dim, ids: number[]) => sql`${col(d)} = ANY(${ids}::integer[])`;

export interface CellPlan {
  /** Visibility, ownership and scope. */
  base: CellCond[];
  /** One condition per active facet filter. */
  facets: Partial<Record<FacetName, CellCond>>;
  /** `exclude_in_store`: the store's listed products leave every count. */
  excludeListed: boolean;
}

/**
 * The price bounds as a condition on the band grains (both on band edges) or the slice grains (both
 * on slice edges), or undefined when a bound is on neither.
 */
function priceCond(min: number | undefined, max: number | undefined): CellCond | undefined {
  const bands: readonly number[] = PRICE_BANDS;
  const bounds = [min, max].filter((b) => b !== undefined);
  const onBands = bounds.every((b) => bands.includes(b));
  const [dim, edges]: [Dim, readonly number[]] = onBands ? ['band', bands] : ['slice', PRICE_SLICES];
  if (!bounds.every((b) => edges.includes(b))) return undefined;
  const conds = [
    ...(min === undefined ? [] : [sql`price_band >= ${sql.lit(edges.indexOf(min))}`]),
    ...(max === undefined ? [] : [sql`price_band < ${sql.lit(edges.indexOf(max))}`]),
  ];
  return { dims: [dim], where: sql.join(conds, sql` AND `) };
}

/** What the store may see (visibility, scope, ownership) as cell conditions; undefined: not as cells. */
function baseCells(
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  tax: Taxonomy | undefined,
): CellCond[] | undefined {
  const owner = col('owner');
  const base: CellCond[] = [{ dims: ['owner'], where: sql`(${owner} IS NULL OR ${owner} = ${ctx.storeId})` }];
  if (scopesToStore(ctx, f)) {
    if (!tax) return undefined;
    base.push({
      dims: ['owner', 'category', 'supplier'],
      where: sql`(category_id IS NULL OR ${anyOfIds('category', tax.departments)}
        OR ${anyOfIds('supplier', tax.makers)} OR ${owner} = ${ctx.storeId})`,
    });
  }
  const ownership = ownershipOf(ctx, f);
  if (ownership?.applied === 'own') base.push({ dims: ['owner'], where: sql`${owner} = ${ctx.storeId}` });
  if (ownership?.applied === 'btab') base.push({ dims: ['owner'], where: sql`${owner} IS NULL` });
  return base;
}

/**
 * The filters as conditions on cell dimensions, or undefined when some filter is not one (search,
 * a raw category value, price bounds off the slice edges).
 */
export function cellPlan(
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  tax: Taxonomy | undefined,
): CellPlan | undefined {
  if (f.search?.trim()) return undefined;
  const base = baseCells(ctx, f, tax);
  if (!base) return undefined;
  const plan: CellPlan = { base, facets: {}, excludeListed: f.exclude_in_store === true };
  const on = (d: Dim, where: RawBuilder<unknown>): CellCond => ({ dims: [d], where });
  if (f.brand !== undefined) {
    if (!tax) return undefined;
    plan.facets.brand = on('brand', anyOfIds('brand', tax.brands));
  }
  if (f.category !== undefined) {
    // A raw category value (no taxonomy match) is not a cell dimension.
    if (!tax?.categories.length) return undefined;
    plan.facets.category = on('category', anyOfIds('category', tax.categories));
  }
  if (f.store_type !== undefined) {
    if (!tax) return undefined;
    const inType = anyOfIds('category', tax.store_type);
    plan.facets.store_type = on(
      'category',
      f.store_type === '_other' ? sql`(category_id IS NULL OR ${inType})` : inType,
    );
  }
  if (f.supplier_id !== undefined)
    plan.facets.supplier_id = on('supplier', sql`supplier_id = ${f.supplier_id}`);
  if (f.pricing_type !== undefined)
    plan.facets.pricing_type = on('pricing', sql`pricing_type = ${f.pricing_type}`);
  if (f.purchase_mode !== undefined)
    plan.facets.purchase_mode = on('mode', sql`purchase_mode = ${f.purchase_mode}`);
  if (f.in_stock !== undefined) plan.facets.in_stock = on('stock', sql`in_stock = ${f.in_stock}`);
  if (f.ready_to_list !== undefined)
    plan.facets.ready_to_list = on('ready', sql`ready_to_list = ${f.ready_to_list}`);
  if (f.complete_for !== undefined) {
    const bit = channelBit(f.complete_for);
    plan.facets.complete_for =
      bit === undefined
        ? { dims: [], where: sql`false` }
        : on('channels', sql`(complete_channels & ${sql.lit(bit)}) <> 0`);
  }
  if (f.price_min_cents !== undefined || f.price_max_cents !== undefined) {
    const price = priceCond(f.price_min_cents, f.price_max_cents);
    if (!price) return undefined;
    plan.facets.price_band = price;
  }
  return plan;
}

/** The smallest grain holding every dimension in `needed`. */
function grainFor(needed: Set<Dim>): number | undefined {
  const grain = GRAINS.find((g) => [...needed].every((d) => g.includes(d)));
  return grain && grainMask(grain);
}

/** Facets read with the same conditions from the same grain: one scan lists them all. */
interface Scan {
  grain: number;
  where: RawBuilder<unknown>;
  facets: (FacetName | 'total')[];
  /** Whether some dimension it reads (a condition or a listed value) is one a listing can change. */
  corrected: boolean;
}

/** The dimensions a store's listing can move a product along: its custom price and selling mode. */
const LISTING_DIMS: readonly Dim[] = ['band', 'slice', 'mode'];

/** What a cell statement counts: every facet and the total, or only those listed. */
export type CellTargets = readonly (FacetName | 'total')[] | undefined;

/**
 * One scan per (grain, conditions): each facet applies every active filter but its own (drill-down),
 * so facets whose own filter is inactive share the conditions of the total. `missing` lists the
 * facets (and the total) that need dimensions no grain holds together. `only` limits the count to
 * the facets (or the total) listed.
 */
function scans(plan: CellPlan, only: CellTargets): { parts: Scan[]; missing: (FacetName | 'total')[] } {
  const out = new Map<string, Scan>();
  const missing: (FacetName | 'total')[] = [];
  const active = Object.entries(plan.facets) as [FacetName, CellCond][];
  const add = (facet: FacetName | 'total', skip: FacetName | undefined, own?: Dim) => {
    const conds = [...plan.base, ...active.filter(([name]) => name !== skip).map(([, c]) => c)];
    const needed = new Set<Dim>(conds.flatMap((c) => c.dims));
    if (own) needed.add(own);
    const grain = grainFor(needed);
    if (grain === undefined) {
      missing.push(facet);
      return;
    }
    const key = `${grain}:${skip ?? ''}`;
    const scan = out.get(key) ?? {
      grain,
      where: sql.join(
        conds.map((c) => c.where),
        sql` AND `,
      ),
      facets: [],
      corrected: plan.excludeListed,
    };
    scan.facets.push(facet);
    scan.corrected ||= LISTING_DIMS.some((d) => needed.has(d));
    out.set(key, scan);
  };
  const wanted = (target: FacetName | 'total') => only === undefined || only.includes(target);
  for (const facet of Object.keys(FACET_DIM) as FacetName[]) {
    if (wanted(facet)) add(facet, facet in plan.facets ? facet : undefined, FACET_DIM[facet]);
  }
  if (wanted('total')) add('total', undefined);
  return { parts: [...out.values()], missing };
}

const CELL_COLUMNS = sql.raw(DIMS.map((d) => COLUMN[d]).join(', '));
/** CELL_COLUMNS of a delta, its slice read as its band. */
const BANDED_COLUMNS = sql.raw(
  DIMS.map((d) => (d === 'band' ? 'facet_band_of_slice(price_band)' : COLUMN[d])).join(', '),
);

export interface CellCount {
  facet: FacetName | 'total';
  value: string | null;
  n: number;
}

/**
 * The statement counting every facet and the total from the cells (or only those in `only`: the
 * matching total, as a list's pagination needs), or undefined when some of them has no grain.
 */
export function cellQuery(
  ctx: StoreCatalogueContext,
  plan: CellPlan,
  only?: CellTargets,
): RawBuilder<CellCount> | undefined {
  const { parts, missing } = scans(plan, only);
  return missing.length || !parts.length ? undefined : cellStatement(ctx, plan, parts);
}

/**
 * The statement counting from cells every facet (and the total) some grain can answer, and the
 * facets left over, which the caller counts by scanning (facet-counts.ts). Undefined when none fits.
 */
export function partialCellQuery(
  ctx: StoreCatalogueContext,
  plan: CellPlan,
  only?: CellTargets,
): { query: RawBuilder<CellCount>; missing: (FacetName | 'total')[] } | undefined {
  const { parts, missing } = scans(plan, only);
  return parts.length ? { query: cellStatement(ctx, plan, parts), missing } : undefined;
}

function cellStatement(ctx: StoreCatalogueContext, plan: CellPlan, parts: Scan[]): RawBuilder<CellCount> {
  const selects = parts.map((scan) => {
    const values = scan.facets.map(
      (facet) => sql`(${sql.lit(facet)}, ${facet === 'total' ? sql`''` : FACET_VALUE[facet]})`,
    );
    const grain = sql.lit(scan.grain);
    const corrected = scan.corrected
      ? sql`UNION ALL SELECT ${CELL_COLUMNS}, n FROM corrections WHERE grain = ${grain}`
      : sql``;
    return sql`SELECT v.facet, v.value, c.n
      FROM (SELECT ${CELL_COLUMNS}, n FROM facet_cells WHERE grain = ${grain}
        UNION ALL SELECT ${CELL_COLUMNS}, n FROM pending WHERE grain = ${grain} ${corrected}) c
      CROSS JOIN LATERAL (VALUES ${sql.join(values, sql`, `)}) v (facet, value)
      WHERE ${scan.where}`;
  });
  // The deltas not folded yet, and the store's correction, each rolled up once to the grains that
  // read it (a store with many custom-priced listings brings as many rows, which each scan would
  // reread). A scan that reads neither price band nor selling mode skips the correction: each of its
  // listings moves a product between two cells differing only there, so the pair cancels.
  // The deltas carry each product's slice (Migration20261128120000_price_slices): rolled up to a band
  // grain through its band, to a slice grain as they are.
  const rollup = (table: RawBuilder<unknown>, grains: number[]) => {
    const to = (columns: RawBuilder<unknown>, masks: number[], bit: number) => sql`
      SELECT GROUPING(${CELL_COLUMNS}) | ${sql.lit(bit)} AS grain, ${CELL_COLUMNS}, sum(n) AS n
      FROM (SELECT ${columns}, n FROM ${table}) d (${CELL_COLUMNS}, n)
      GROUP BY GROUPING SETS (${sql.join(groupingSets(masks), sql`, `)})`;
    const bands = grains.filter((g) => g < SLICED);
    const slices = grains.filter((g) => g >= SLICED).map((g) => g - SLICED);
    return sql.join(
      [
        ...(bands.length ? [to(BANDED_COLUMNS, bands, 0)] : []),
        ...(slices.length ? [to(CELL_COLUMNS, slices, SLICED)] : []),
      ],
      sql` UNION ALL `,
    );
  };
  const corrected = parts.filter((scan) => scan.corrected).map((scan) => scan.grain);
  // The store's cells (Migration20261125040000_store_cells): its listed products, or the products
  // its listings move to another slice or mode.
  const kind = sql.lit(plan.excludeListed ? 0 : 1);
  const own = (table: 'store_cells' | 'store_cell_deltas') => sql`${ownedBy(ctx, table)} AND kind = ${kind}`;
  const withCorrections = corrected.length
    ? sql`, corrections AS MATERIALIZED (
        SELECT grain, ${CELL_COLUMNS}, n FROM store_cells
        WHERE ${own('store_cells')} AND grain IN (${sql.join([...new Set(corrected)].map((g) => sql.lit(g)))})
        UNION ALL ${rollup(sql`store_cell_deltas WHERE ${own('store_cell_deltas')}`, corrected)})`
    : sql``;
  return sql<CellCount>`WITH pending AS MATERIALIZED (${rollup(
    sql`facet_cell_deltas`,
    parts.map((scan) => scan.grain),
  )})
      ${withCorrections}
    SELECT facet, value, sum(n)::integer AS n
    FROM (${sql.join(selects, sql`\nUNION ALL `)}) c
    GROUP BY facet, value HAVING sum(n) <> 0`;
}

/**
 * The GROUPING SETS for a set of grains. GROUPING() takes only columns some set groups by: when the
 * grains leave one out (a total alone reads one grain), the finest set is added too; no scan reads it.
 */
function groupingSets(grains: number[]): RawBuilder<unknown>[] {
  const used = [...new Set(grains)];
  if (used.reduce((all, mask) => all & mask, (1 << DIMS.length) - 1) !== 0) used.push(0);
  return used.map((mask) => sql`(${sql.raw(grainColumns(mask).join(', '))})`);
}

/** The columns a grain keeps. */
export function grainColumns(mask: number): string[] {
  return DIMS.filter((_, i) => (mask & (1 << (DIMS.length - 1 - i))) === 0).map((d) => COLUMN[d]);
}

/** Folds the pending deltas into the cells now (waits for a fold in progress). */
export async function foldFacetCells(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await rows(tx, sql`SELECT facet_cells_fold(), store_cells_fold()`);
  });
}

/** The cells' statement for the filters' total; undefined when some filter is not a cell condition. */
function totalQuery(ctx: StoreCatalogueContext, f: CatalogueFilters, tax: Taxonomy | undefined) {
  if (f.search?.trim()) return undefined;
  const plan = cellPlan(ctx, f, tax);
  return plan && cellQuery(ctx, plan, ['total']);
}

/** Whether the cells hold the filters' total (cellTotal answers it without a scan). */
export function cellsHoldTotal(
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  tax: Taxonomy | undefined,
): boolean {
  return totalQuery(ctx, f, tax) !== undefined;
}

/**
 * The number of products matching the filters, from the cells, exact at the statement's snapshot;
 * undefined when some filter is not a cell condition, and the caller counts with a scan.
 */
export async function cellTotal(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  tax: Taxonomy | undefined,
): Promise<number | undefined> {
  const query = totalQuery(ctx, f, tax);
  if (!query) return undefined;
  const counts = await rows(em, query);
  return counts.reduce((sum, c) => sum + c.n, 0);
}
