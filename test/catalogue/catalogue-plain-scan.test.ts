import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_BANDS } from '../../src/catalogue/cells.ts';
import { CHANNELS } from '../../src/catalogue/channels.ts';
import { countFacets } from '../../src/catalogue/facet-counts.ts';
import { listProducts } from '../../src/catalogue/list-products.ts';
import { PAGE_WALK } from '../../src/catalogue/page-ids.ts';
import { FACET_NAMES, type FacetName, facetsInput, listInput } from '../../src/catalogue/schemas.ts';
import { type CompiledStatement, observeStatements, rows, sql } from '../../src/db/sql.ts';
import { loadCatalogueContext } from '../../src/store/catalogue-context.ts';
import type { PartnerContext } from '../../src/trpc/context.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * The catalogue's list and facets against a plain scan, written here in SQL and TypeScript.
 * - `category` given a value that is no taxonomy slug or name: the supplier's raw category
 *   (docs/decisions.md, "Raw category values"). For random raw values (cases that differ, values that
 *   match nothing, a store type's slug) under random other filters, the list (ids, total) and every
 *   facet count equal the plain scan's. And on a catalogue of a few thousand products, the statements
 *   of such a request read only that raw category's products, with cleared planner statistics and
 *   after ANALYZE.
 * - Price ranges at any cents (docs/decisions.md, "Price ranges at any cents"), under any category
 *   (taxonomy, raw or none) and random other filters: the same equality, so the split of a range into
 *   whole bands from the cells and parts read through the price index counts what a scan counts.
 * Seeded: RAW_CATEGORY_RUNS (default 100 each), RAW_CATEGORY_SEED to replay one.
 */

const RUNS = Number(process.env.RAW_CATEGORY_RUNS ?? 100);
const SEED = Number(process.env.RAW_CATEGORY_SEED ?? 20261128);

type Store = Awaited<ReturnType<TestApp['createStore']>>;
type FacetList = { value: string; count: number }[];
type FacetsBody = { facets: Record<string, FacetList>; total_count: number };
type ListBody = { products: { id: number }[]; pagination: { total_count: number } };

let app: TestApp;
let store: Store;
let owner: Store;
let scoped: Store;
const ids: Record<string, number> = {};

/** Raw categories on the products: some differ only in case; one is a store type's name. */
const RAW_ON_PRODUCTS = ['Cookware', 'cookware', 'COOKWARE', 'Kitchen', 'Garden Bits', 'Misc', null];
/** Raw values asked for: the above in other cases, a store type's slug, values matching nothing. */
const RAW_ASKED = [
  'cookware',
  'COOKWARE',
  'CookWare',
  'kitchen',
  'KITCHEN',
  'garden',
  'garden bits',
  'GARDEN BITS',
  'misc',
  'Misc',
  'no-such-category',
  'Küche',
];
/** Taxonomy categories asked for by slug or name, a parent (with its child) among them. */
const TAXONOMY_ASKED = ['cookware-sets', 'Cookware Sets', 'pans', 'PLANTERS', 'odds'];

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Raw Store');
  owner = await app.createStore('Raw Owner');
  scoped = await app.createStore('Raw Scoped');
  const em = app.em();
  const fx = fixtures(em);
  const kitchen = await fx.storeType('kitchen', 'Kitchen');
  const garden = await fx.storeType('garden', 'Garden');
  const sets = await fx.category({ slug: 'cookware-sets', name: 'Cookware Sets', storeTypeId: kitchen });
  const pans = await fx.category({ slug: 'pans', name: 'Pans', parentId: sets, storeTypeId: kitchen });
  const planters = await fx.category({ slug: 'planters', name: 'Planters', storeTypeId: garden });
  const odds = await fx.category({ slug: 'odds', name: 'Odds' });
  const brands = [await fx.brand('Acme'), await fx.brand('Birch Works'), null];
  const s1 = await fx.supplier({ name: 'One' });
  const s2 = await fx.supplier({ name: 'Two' });
  const own = await fx.supplier({ name: 'Owner own', ownerStoreId: owner.id });
  Object.assign(ids, { s1, s2, own });
  const categories = [null, sets, pans, null, planters, odds, null];
  const prices = [0, 999, 2499, 2500, 4999, 5000, 12345, 25000, 49999, 100000, 150000];
  const products: number[] = [];
  for (let i = 0; i < 72; i++) {
    products.push(
      await fx.product({
        name: `Piece ${String(i).padStart(3, '0')}`,
        brandId: brands[i % 3] ?? null,
        categoryId: categories[i % 7] ?? null,
        categoryRaw: RAW_ON_PRODUCTS[(i * 5) % 7] ?? null,
        supplierId: i % 9 === 0 ? own : i % 2 ? s1 : s2,
        wholesale: 500 + ((i * 37) % 900),
        retail: prices[i % prices.length] ?? 0,
        pricingType: i % 5 === 0 ? 'commission' : 'wholesale',
        commissionBps: i % 5 === 0 ? 1500 : 0,
        purchaseMode: i % 8 === 0 ? 'enquiry' : 'buy_now',
        stock: i % 4 === 1 ? [0] : [(i % 6) + 1],
        readyToList: i % 3 === 0,
        active: i % 17 !== 4,
        createdAt: new Date(Date.UTC(2026, 0, 1 + (i % 40), i % 24)).toISOString(),
        completeness: {
          storefront: i % 2 === 0 ? 100 : 70,
          ...(i % 3 === 1 ? { google: 100 } : {}),
          ...(i % 5 === 2 ? { meta: 100 } : {}),
        },
      }),
    );
  }
  // The store's listings: custom prices moving products across bands, selling modes, one removed.
  for (const [k, i] of [0, 3, 7, 10, 14, 21, 28, 35, 42, 49, 56, 63, 70].entries()) {
    const id = products[i] as number;
    await fx.listing(store.id, id, { customRetail: [null, 1, 2600, 200000, 4999][k % 5] ?? null });
    if (k % 3 === 1)
      await rows(
        em,
        sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${store.id} AND product_id = ${id}`,
      );
    if (k === 6)
      await rows(
        em,
        sql`UPDATE listings SET deleted_at = now() WHERE store_id = ${store.id} AND product_id = ${id}`,
      );
  }
  await fx.listing(owner.id, products[9] as number, { customRetail: 100 });
  await fx.department(scoped.id, planters);
  await fx.maker(scoped.id, s2);
  await fx.setStoreScope(scoped.id, 'store');
});
afterAll(() => app.close());

/** One product as the plain scan sees it, for one store and one raw category value. */
interface Plain {
  id: number;
  brand: string | null;
  brand_slug: string | null;
  category: string | null;
  category_id: number | null;
  store_type: string | null;
  supplier_id: number;
  owner_store_id: number | null;
  pricing_type: string;
  mode: string;
  in_stock: boolean;
  ready: boolean;
  retail: number;
  catalogue_retail: number;
  wholesale: number;
  bps: number;
  stock: number;
  created: string;
  name: string;
  complete: string[];
  listed: boolean;
  raw_match: boolean;
  /** The slugs and lower-cased names of the product's category and its parent. */
  taxonomy: string[];
}

/** Every product the store may see, with what each filter and facet reads, in plain SQL. */
async function plainProducts(storeId: number, raw: string): Promise<Plain[]> {
  return rows<Plain>(
    app.em(),
    sql`SELECT p.id, b.name AS brand, b.slug AS brand_slug, c.slug AS category, p.category_id,
        t.slug AS store_type, p.supplier_id, p.owner_store_id, p.pricing_type,
        CASE WHEN p.purchase_mode = 'enquiry' OR l.purchase_mode = 'enquiry' THEN 'enquiry' ELSE 'buy_now' END AS mode,
        p.stock_quantity > 0 AS in_stock, p.ready_to_list AS ready,
        COALESCE(l.custom_retail_price_cents, p.retail_price_cents) AS retail,
        p.retail_price_cents AS catalogue_retail, p.wholesale_price_cents AS wholesale,
        p.commission_rate_bps AS bps, p.stock_quantity AS stock, p.created_at::text AS created, p.name,
        ARRAY(SELECT pc.channel FROM product_completeness pc WHERE pc.product_id = p.id AND pc.score = 100) AS complete,
        l.id IS NOT NULL AS listed,
        COALESCE(lower(p.category_raw) = lower(${raw}), false) AS raw_match,
        array_remove(ARRAY[c.slug, lower(c.name), pc.slug, lower(pc.name)], NULL) AS taxonomy
      FROM products p
      LEFT JOIN listings l ON l.product_id = p.id AND l.store_id = ${storeId} AND l.deleted_at IS NULL
      LEFT JOIN brands b ON b.id = p.brand_id
      LEFT JOIN categories c ON c.id = p.category_id
      LEFT JOIN categories pc ON pc.id = c.parent_id
      LEFT JOIN store_types t ON t.id = c.store_type_id
      WHERE p.active AND (p.owner_store_id IS NULL OR p.owner_store_id = ${storeId})`,
  );
}

interface Case {
  store: 'store' | 'owner' | 'scoped';
  category?: string;
  /** `piece` is in every product's name (every rank equal); `zzqxv` is in none, not even as a substring. */
  search?: 'piece' | 'zzqxv';
  brand?: string;
  store_type?: string;
  supplier?: 's1' | 's2' | 'own';
  pricing_type?: string;
  purchase_mode?: string;
  in_stock?: 'true' | 'false';
  ready_to_list?: 'true' | 'false';
  complete_for?: string;
  price_min_cents?: number;
  price_max_cents?: number;
  exclude_in_store?: 'true' | 'false';
  scope?: 'store' | 'all';
  ownership?: 'own' | 'btab' | 'all';
  sort_by?:
    | 'created_at'
    | 'name'
    | 'retail_price_cents'
    | 'wholesale_price_cents'
    | 'stock_quantity'
    | 'margin';
  order?: 'asc' | 'desc';
}

const storeOf = (c: Case) => ({ store, owner, scoped })[c.store];

/** The filters of a case as a query string (ids filled in). */
function query(c: Case): string {
  const params = new URLSearchParams(c.category === undefined ? {} : { category: c.category });
  for (const key of [
    'search',
    'brand',
    'store_type',
    'pricing_type',
    'purchase_mode',
    'in_stock',
    'ready_to_list',
    'complete_for',
    'price_min_cents',
    'price_max_cents',
    'exclude_in_store',
    'scope',
    'ownership',
  ] as const) {
    const v = c[key];
    if (v !== undefined) params.set(key, String(v));
  }
  if (c.supplier) params.set('supplier_id', String(ids[c.supplier]));
  return params.toString();
}

/** Each active facet filter of a case, as a predicate on a plain row. */
function facetFilters(c: Case): Partial<Record<FacetName, (p: Plain) => boolean>> {
  const out: Partial<Record<FacetName, (p: Plain) => boolean>> = {};
  const category = c.category?.toLowerCase();
  if (category !== undefined)
    out.category = TAXONOMY_ASKED.some((t) => t.toLowerCase() === category)
      ? (p) => p.taxonomy.includes(category)
      : (p) => p.raw_match;
  const brand = c.brand?.toLowerCase();
  if (brand !== undefined) out.brand = (p) => p.brand?.toLowerCase() === brand || p.brand_slug === brand;
  const type = c.store_type;
  if (type !== undefined)
    out.store_type = (p) => (type === '_other' ? p.store_type === null : p.store_type === type.toLowerCase());
  const supplier = c.supplier && ids[c.supplier];
  if (supplier !== undefined) out.supplier_id = (p) => p.supplier_id === supplier;
  if (c.pricing_type) out.pricing_type = (p) => p.pricing_type === c.pricing_type;
  if (c.purchase_mode) out.purchase_mode = (p) => p.mode === c.purchase_mode;
  if (c.in_stock) out.in_stock = (p) => String(p.in_stock) === c.in_stock;
  if (c.ready_to_list) out.ready_to_list = (p) => String(p.ready) === c.ready_to_list;
  const channel = c.complete_for;
  if (channel !== undefined) out.complete_for = (p) => p.complete.includes(channel);
  const { price_min_cents: min, price_max_cents: max } = c;
  if (min !== undefined || max !== undefined)
    out.price_band = (p) => (min === undefined || p.retail >= min) && (max === undefined || p.retail < max);
  return out;
}

/** The filters that are not facets: exclusion, scope (explicit or the store's own), ownership. */
function baseFilter(c: Case): (p: Plain) => boolean {
  const s = storeOf(c);
  const scope = c.scope ?? (c.store === 'scoped' ? 'store' : 'all');
  const inScope = (p: Plain) =>
    p.category_id === null ||
    p.category === 'planters' ||
    p.supplier_id === ids.s2 ||
    p.owner_store_id === scoped.id;
  // Only `owner` has own suppliers, so only it honours `ownership`.
  const ownership = c.store === 'owner' ? (c.ownership ?? 'all') : 'all';
  return (p) =>
    c.search !== 'zzqxv' &&
    !(c.exclude_in_store === 'true' && p.listed) &&
    !(scope === 'store' && c.store === 'scoped' && !inScope(p)) &&
    !(scope === 'store' && c.store !== 'scoped' && p.category_id !== null && p.owner_store_id !== s.id) &&
    !(ownership === 'own' && p.owner_store_id !== s.id) &&
    !(ownership === 'btab' && p.owner_store_id !== null);
}

const bandOf = (cents: number) => {
  const i = PRICE_BANDS.findLastIndex((lo) => cents >= lo);
  return `${PRICE_BANDS[i]}-${PRICE_BANDS[i + 1] ?? ''}`;
};

/** The values a product counts for in a facet. */
function valuesOf(facet: FacetName, p: Plain): string[] {
  switch (facet) {
    case 'brand':
      return p.brand === null ? [] : [p.brand];
    case 'category':
      return p.category === null ? [] : [p.category];
    case 'store_type':
      return [p.store_type ?? '_other'];
    case 'supplier_id':
      return [String(p.supplier_id)];
    case 'pricing_type':
      return [p.pricing_type];
    case 'purchase_mode':
      return [p.mode];
    case 'in_stock':
      return [String(p.in_stock)];
    case 'ready_to_list':
      return [String(p.ready)];
    case 'complete_for':
      return CHANNELS.filter((ch) => p.complete.includes(ch));
    case 'price_band':
      return [bandOf(p.retail)];
  }
}

/** The facets a plain scan gives: each counted under every active filter but its own. */
function plainFacets(c: Case, products: Plain[]): FacetsBody {
  const filters = facetFilters(c);
  const passes = (p: Plain, skip?: FacetName) =>
    Object.entries(filters).every(([name, holds]) => name === skip || holds(p));
  const visible = products.filter(baseFilter(c));
  // A search whose term matches nothing under every filter matches nothing at all (its last mode,
  // the substring, found nothing either), so even the drill-down counts are empty.
  const seen = c.search && !visible.some((p) => passes(p)) ? [] : visible;
  const facets: Record<string, FacetList> = {};
  for (const facet of FACET_NAMES) {
    const counts = new Map<string, number>();
    for (const p of seen.filter((p) => passes(p, facet))) {
      for (const v of valuesOf(facet, p)) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    facets[facet] = [...counts].map(([value, count]) => ({ value, count }));
  }
  return { facets, total_count: seen.filter((p) => passes(p)).length };
}

/** The list's matches in its order (ties by id, in the same direction). */
function plainList(c: Case, products: Plain[]): number[] {
  const filters = Object.values(facetFilters(c));
  const matches = products.filter((p) => baseFilter(c)(p) && filters.every((holds) => holds(p)));
  // A search without `sort_by` is in relevance order, ties by id: here every rank is equal.
  if (c.search && !c.sort_by) return matches.map((p) => p.id).sort((a, b) => a - b);
  const key = c.sort_by ?? 'created_at';
  const dir = c.order ?? (key === 'name' ? 'asc' : 'desc');
  const earn = (p: Plain) =>
    p.pricing_type === 'commission' ? Math.floor((p.retail * p.bps + 5000) / 10000) : p.retail - p.wholesale;
  const value = (p: Plain): number | string =>
    key === 'created_at'
      ? p.created
      : key === 'name'
        ? p.name
        : key === 'retail_price_cents'
          ? p.catalogue_retail
          : key === 'wholesale_price_cents'
            ? p.wholesale
            : key === 'stock_quantity'
              ? p.stock
              : earn(p);
  const cmp = (a: Plain, b: Plain) => {
    const [x, y] = [value(a), value(b)];
    return (x < y ? -1 : x > y ? 1 : 0) || a.id - b.id;
  };
  return matches.sort((a, b) => (dir === 'asc' ? cmp(a, b) : cmp(b, a))).map((p) => p.id);
}

/** FacetName lists in one order, whatever order the API gives (its order is tested elsewhere). */
const canonical = (body: FacetsBody) => ({
  total_count: body.total_count,
  facets: Object.fromEntries(
    FACET_NAMES.map((f) => [
      f,
      [...(body.facets[f] ?? [])].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)),
    ]),
  ),
});

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const cents = fc.oneof(fc.constantFrom(...PRICE_BANDS), fc.integer({ min: 0, max: 200_000 }));
/** Every sort key the plain scan orders by. */
const anySort = maybe(
  fc.constantFrom(
    'created_at',
    'name',
    'retail_price_cents',
    'wholesale_price_cents',
    'stock_quantity',
    'margin',
  ) as fc.Arbitrary<NonNullable<Case['sort_by']>>,
);

const cases: fc.Arbitrary<Case> = fc.record(
  {
    store: fc.constantFrom('store', 'owner', 'scoped'),
    category: fc.constantFrom(...RAW_ASKED),
    search: fc.option(fc.constantFrom('piece', 'zzqxv'), { nil: undefined, freq: 5 }),
    brand: maybe(fc.constantFrom('Acme', 'birch-works', 'BIRCH WORKS', 'nobody')),
    store_type: maybe(fc.constantFrom('kitchen', 'garden', '_other', 'nothing')),
    supplier: maybe(fc.constantFrom('s1', 's2', 'own')),
    pricing_type: maybe(fc.constantFrom('wholesale', 'commission')),
    purchase_mode: maybe(fc.constantFrom('buy_now', 'enquiry')),
    in_stock: maybe(fc.constantFrom('true', 'false')),
    ready_to_list: maybe(fc.constantFrom('true', 'false')),
    complete_for: maybe(fc.constantFrom('storefront', 'google', 'pinterest')),
    price_min_cents: maybe(cents),
    price_max_cents: maybe(cents),
    exclude_in_store: maybe(fc.constantFrom('true', 'false')),
    scope: maybe(fc.constantFrom('store', 'all')),
    ownership: maybe(fc.constantFrom('own', 'btab', 'all')),
    sort_by: anySort,
    order: maybe(fc.constantFrom('asc', 'desc')),
  },
  { requiredKeys: ['store', 'category'] },
) as fc.Arbitrary<Case>;

/** Any category (taxonomy slug or name, raw, or none) with a price range, a bound at any cents. */
const priceCases: fc.Arbitrary<Case> = cases.chain((c) =>
  fc
    .record(
      {
        category: maybe(fc.constantFrom(...TAXONOMY_ASKED, ...RAW_ASKED)),
        price_min_cents: maybe(cents),
        price_max_cents: maybe(cents),
        pricing_type: maybe(fc.constantFrom('wholesale', 'commission')),
      },
      { requiredKeys: [] },
    )
    .filter((p) => p.price_min_cents !== undefined || p.price_max_cents !== undefined)
    // No category as often as not: a category drives the counts through its own index, and only
    // without one does every facet and the list's total read the range's parts.
    .map((p) => ({ ...c, search: undefined, category: undefined, ...p })),
);

/** Present one time in four: few filters at once (a page's walk then often finds its page). */
const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });

/**
 * The store whose listings re-price products and change selling modes, with a price range and no
 * category (nothing drives the counts through its own index): every facet and the list's total then
 * read the range's parts, the products not customised apart from the customised listings
 * (price-ranges.ts partSources). Bounds next to the catalogue's and the listings' own prices.
 */
const nearPrices = fc.oneof(
  cents,
  fc.constantFrom(1, 2, 999, 1000, 2499, 2600, 2601, 4999, 5001, 12345, 12346, 150000, 199999, 200001),
);
const customisedCases: fc.Arbitrary<Case> = fc
  .record(
    {
      store: fc.constant('store'),
      price_min_cents: maybe(nearPrices),
      price_max_cents: maybe(nearPrices),
      purchase_mode: rarely(fc.constantFrom('buy_now', 'enquiry')),
      in_stock: rarely(fc.constantFrom('true', 'false')),
      pricing_type: rarely(fc.constantFrom('wholesale', 'commission')),
      sort_by: maybe(fc.constantFrom('created_at', 'retail_price_cents', 'wholesale_price_cents', 'margin')),
    },
    { requiredKeys: ['store'] },
  )
  .filter((c) => c.price_min_cents !== undefined || c.price_max_cents !== undefined) as fc.Arbitrary<Case>;

describe('a raw category value', () => {
  it('is no taxonomy category in this catalogue (so every value asked is read raw)', async () => {
    const found = await rows(
      app.em(),
      sql`SELECT slug FROM categories WHERE slug = ANY(${RAW_ASKED.map((v) => v.toLowerCase())}::text[])
        OR lower(name) = ANY(${RAW_ASKED.map((v) => v.toLowerCase())}::text[])`,
    );
    expect(found).toEqual([]);
  });

  it('lists and counts every facet as a plain scan does, under any other filters', async () => {
    await fc.assert(fc.asyncProperty(cases, matchesPlainScan), { numRuns: RUNS, seed: SEED });
  });
});

describe('a price range at any cents', () => {
  it('lists and counts every facet as a plain scan does, under any category and other filters', async () => {
    await fc.assert(fc.asyncProperty(priceCases, matchesPlainScan), { numRuns: RUNS, seed: SEED });
  });

  it('lists and counts every facet as a plain scan does, for a store with customised listings and no category', async () => {
    await fc.assert(fc.asyncProperty(customisedCases, matchesPlainScan), { numRuns: RUNS, seed: SEED });
  });

  it('counts the same inside a transaction (its scans join the transaction)', async () => {
    const em = app.em();
    const ctx = await loadCatalogueContext(em, store.id);
    const filters = facetsInput.parse({
      price_min_cents: 1234,
      price_max_cents: 60000,
      pricing_type: 'wholesale',
    });
    const outside = await countFacets(em.fork(), ctx, filters);
    const inside = await em.fork().transactional((tx) => countFacets(tx, ctx, filters));
    expect(inside).toEqual(outside);
    expect(outside.total_count).toBeGreaterThan(0);
  });
});

/**
 * Filters a covering sort index reads (no raw category, no search), with prices at any cents, on
 * random pages: the cases a page is chosen for by a bounded walk of the sort index, or by reading
 * the matches when the walk falls short (src/catalogue/page-ids.ts).
 */
const walkedCases = fc.tuple(
  fc.record(
    {
      // Mostly the store whose listings change prices and selling modes.
      store: fc.constantFrom('store', 'store', 'owner', 'scoped'),
      category: rarely(fc.constantFrom(...TAXONOMY_ASKED)),
      pricing_type: rarely(fc.constantFrom('wholesale', 'commission')),
      purchase_mode: rarely(fc.constantFrom('buy_now', 'enquiry')),
      in_stock: rarely(fc.constantFrom('true', 'false')),
      price_min_cents: maybe(cents),
      price_max_cents: maybe(cents),
      sort_by: anySort,
      order: maybe(fc.constantFrom('asc', 'desc')),
    },
    { requiredKeys: ['store'] },
  ) as fc.Arbitrary<Case>,
  fc.integer({ min: 1, max: 4 }),
  fc.constantFrom(1, 2, 5, 20),
);

describe('a page chosen by a bounded walk of the sort index', () => {
  it('lists as a plain scan does, with the walk as long as it is', async () => {
    await fc.assert(fc.asyncProperty(walkedCases, matchesPlainPage), { numRuns: RUNS, seed: SEED });
  });

  it('lists as a plain scan does with the walk cut to a few entries (found in them, or read from the matches)', async () => {
    const { entries, most } = PAGE_WALK;
    // Walks of 6 to 12 entries: sized by a total the cells hold (from the table's estimate, which
    // ANALYZE gives), found in them or not, and pages whose matches are too few to walk for.
    Object.assign(PAGE_WALK, { entries: 6, most: 12 });
    await rows(app.em(), sql`ANALYZE products`);
    try {
      await fc.assert(fc.asyncProperty(walkedCases, matchesPlainPage), { numRuns: RUNS, seed: SEED + 1 });
    } finally {
      Object.assign(PAGE_WALK, { entries, most });
    }
  });

  it('lists the stock order under `in_stock` from the walk of its own range, every page as a plain scan does', async () => {
    const { entries, most } = PAGE_WALK;
    // Walks short enough that a page is found in the walk only when it starts inside the range: the
    // out-of-stock products (a quarter of them) sit first in the ascending order, the rest first in
    // the descending one.
    Object.assign(PAGE_WALK, { entries: 8, most: 16 });
    try {
      for (const in_stock of ['true', 'false'] as const)
        for (const order of ['asc', 'desc'] as const)
          for (const [page, limit] of [
            [1, 5],
            [2, 5],
            [3, 2],
          ] as const)
            await matchesPlainPage([
              { store: 'store', in_stock, sort_by: 'stock_quantity', order },
              page,
              limit,
            ]);
    } finally {
      Object.assign(PAGE_WALK, { entries, most });
    }
  });
});

/** One page of a case's list (total and ids in order) equals the plain scan's. */
async function matchesPlainPage([c, page, limit]: [Case, number, number]) {
  const s = storeOf(c);
  const sort = `${c.sort_by ? `&sort_by=${c.sort_by}` : ''}${c.order ? `&order=${c.order}` : ''}`;
  const path = `/api/v1/products?${query(c)}${sort}&page=${page}&limit=${limit}`;
  const list = await app.get<ListBody>(path, s.read);
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  const expected = plainList(c, await plainProducts(s.id, c.category ?? ''));
  expect(list.body.pagination.total_count, path).toBe(expected.length);
  const ids = list.body.products.map((p) => p.id);
  expect(ids, path).toEqual(expected.slice((page - 1) * limit, page * limit));
}

/** The facets and the list (total and ids in order) of a case equal the plain scan's. */
async function matchesPlainScan(c: Case) {
  const s = storeOf(c);
  const products = await plainProducts(s.id, c.category ?? '');
  const facets = await app.get<FacetsBody>(`/api/v1/products/facets?${query(c)}`, s.read);
  expect(facets.status, JSON.stringify(facets.body)).toBe(200);
  expect(canonical(facets.body), query(c)).toEqual(canonical(plainFacets(c, products)));
  const sort = `${c.sort_by ? `&sort_by=${c.sort_by}` : ''}${c.order ? `&order=${c.order}` : ''}`;
  const list = await app.get<ListBody>(`/api/v1/products?${query(c)}${sort}&limit=100`, s.read);
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  const expected = plainList(c, products);
  expect(list.body.pagination.total_count, query(c)).toBe(expected.length);
  expect(
    list.body.products.map((p) => p.id),
    `${query(c)}${sort}`,
  ).toEqual(expected);
}

/** A plan node of EXPLAIN (ANALYZE, FORMAT JSON), with the fields read here. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const child of plan.Plans ?? []) yield* nodes(child);
}

describe('the statements of a raw category request, on a few thousand products', () => {
  const PRODUCTS = 5_000;
  /** Raw values on the products: `Raw 0` … `Raw 49`, a hundred products each. */
  const RAW_VALUES = 50;
  let big: TestApp;
  let bigStore: Store;
  let client: pg.Client;

  beforeAll(async () => {
    big = await startTestApp();
    bigStore = await big.createStore('Raw Plans');
    const em = big.em();
    const fx = fixtures(em);
    const kitchen = await fx.storeType('kitchen', 'Kitchen');
    const cats = [
      await fx.category({ slug: 'pots', name: 'Pots', storeTypeId: kitchen }),
      await fx.category({ slug: 'lamps', name: 'Lamps' }),
    ];
    const brand = await fx.brand('Acme');
    const supplier = await fx.supplier();
    await rows(
      em,
      sql`INSERT INTO products (supplier_id, brand_id, category_id, category_raw, name, description, sku,
          wholesale_price_cents, retail_price_cents, pricing_type, commission_rate_bps, purchase_mode,
          stock_quantity, ready_to_list, created_at)
        SELECT ${supplier}::integer, CASE WHEN g % 3 = 0 THEN NULL ELSE ${brand}::integer END,
          CASE WHEN g % 4 = 0 THEN NULL ELSE (${cats}::integer[])[1 + g % 2] END,
          'Raw ' || (g % ${RAW_VALUES}), 'Plan product ' || g, '', 'PLN-' || g, 1000, 1500 + (g * 37) % 90000,
          CASE WHEN g % 7 = 0 THEN 'commission' ELSE 'wholesale' END, CASE WHEN g % 7 = 0 THEN 1500 ELSE 0 END,
          CASE WHEN g % 11 = 0 THEN 'enquiry' ELSE 'buy_now' END, g % 5, g % 3 = 0,
          timestamptz '2026-01-01' + g * interval '1 minute'
        FROM generate_series(1, ${PRODUCTS}) g`,
    );
    await rows(
      em,
      sql`INSERT INTO listings (store_id, product_id, custom_retail_price_cents)
        SELECT ${bigStore.id}, id, CASE WHEN id % 2 = 0 THEN 4321 END FROM products WHERE id % 97 = 0`,
    );
    client = new pg.Client({ connectionString: big.databaseUrl });
    await client.connect();
    // Nothing analyses the table behind the test's back: the first round plans with no statistics.
    await client.query('ALTER TABLE products SET (autovacuum_enabled = off)');
    await client.query('VACUUM products');
  });
  afterAll(async () => {
    await client?.end();
    await big?.close();
  });

  /** The statements one in-process call runs. */
  async function statementsOf(call: () => Promise<unknown>): Promise<CompiledStatement[]> {
    const seen: CompiledStatement[] = [];
    observeStatements((s) => {
      seen.push(s);
      return () => {};
    });
    try {
      await call();
    } finally {
      observeStatements(undefined);
    }
    return seen;
  }

  const partner = (em: PartnerContext['em']) =>
    ({ em, actor: { storeId: bigStore.id } }) as unknown as PartnerContext;
  const params = (q: string) => Object.fromEntries(new URLSearchParams(q));
  const REQUESTS: [string, string][] = [
    ['facets', 'category=raw 7'],
    ['facets', 'category=RAW 7&in_stock=true&pricing_type=wholesale'],
    ['facets', 'category=kitchen'],
    ['facets', 'category=no-such-value&purchase_mode=enquiry'],
    ['list', 'category=raw 7'],
    ['list', 'category=Raw 7&sort_by=name'],
    ['list', 'category=raw 7&in_stock=true&sort_by=stock_quantity'],
    ['list', 'category=kitchen&sort_by=updated_at'],
    ['list', 'category=no-such-value&purchase_mode=enquiry&sort_by=recommended'],
  ];

  /**
   * Every statement of each request reads at most the raw category's products from `products` (plus a
   * page's worth by id) and at most as many entries of its indexes, and never scans the table:
   * EXPLAIN ANALYZE's rows of each node reading the table (with those its filters removed) and of each
   * bitmap index scan on it, summed.
   */
  async function expectBounded(stats: string, indexOnly = false) {
    const indexes = new Set(
      (
        await client.query<{ name: string }>(
          `SELECT indexname AS name FROM pg_indexes WHERE tablename = 'products'`,
        )
      ).rows.map((r) => r.name),
    );
    for (const [kind, q] of REQUESTS) {
      const em = big.em();
      const raw = params(q).category ?? '';
      const [inRaw] = await rows<{ n: number }>(
        em,
        sql`SELECT count(*)::integer AS n FROM products WHERE lower(category_raw) = lower(${raw})`,
      );
      const bound = (inRaw?.n ?? 0) + 20;
      const statements = await statementsOf(async () =>
        kind === 'facets'
          ? countFacets(em, await loadCatalogueContext(em, bigStore.id), facetsInput.parse(params(q)))
          : listProducts(partner(em), listInput.parse({ ...params(q), limit: '20' })),
      );
      const reading = statements.filter((s) => /\bproducts\b/.test(s.sql));
      // The list always reads products; facets do for every count but the category facet's (cells).
      expect(reading.length, `${kind} ${q}`).toBeGreaterThan(0);
      for (const s of reading) {
        const explained = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.sql}`, [...s.parameters]);
        const plan = (explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]?.Plan as PlanNode;
        const all = [...nodes(plan)];
        const onTable = all.filter((n) => n['Relation Name'] === 'products');
        const rowsRead = sum(
          onTable.map(
            (n) =>
              (n['Actual Rows'] +
                (n['Rows Removed by Filter'] ?? 0) +
                (n['Rows Removed by Index Recheck'] ?? 0)) *
              n['Actual Loops'],
          ),
        );
        const entriesRead = sum(
          all
            .filter((n) => n['Node Type'] === 'Bitmap Index Scan' && indexes.has(n['Index Name'] ?? ''))
            .map((n) => n['Actual Rows'] * n['Actual Loops']),
        );
        const label = `${stats}: ${kind} ${q}: ${s.sql}\n${JSON.stringify(plan, null, 1)}`;
        expect(
          onTable.filter((n) => n['Node Type'] === 'Seq Scan'),
          label,
        ).toEqual([]);
        expect(rowsRead, label).toBeLessThanOrEqual(bound);
        expect(entriesRead, label).toBeLessThanOrEqual(bound);
        // With statistics (and the visibility map set), the counts read that category's index entries
        // alone, never a heap row: products_category_raw_idx carries what they read.
        if (indexOnly && kind === 'facets') {
          expect(
            onTable.map((n) => `${n['Node Type']} ${n['Index Name']}`),
            label,
          ).toEqual(onTable.map(() => 'Index Only Scan products_category_raw_idx'));
        }
      }
    }
  }

  it('reads only that category, with cleared statistics', async () => {
    await client.query(`SELECT pg_clear_relation_stats('public', 'products'),
        pg_clear_attribute_stats('public', 'products', attname::text, false)
      FROM pg_attribute WHERE attrelid = 'public.products'::regclass AND attnum > 0 AND NOT attisdropped`);
    await client.query(`SELECT pg_clear_attribute_stats('public', 'products_category_raw_idx', attname::text, false)
      FROM pg_attribute WHERE attrelid = 'public.products_category_raw_idx'::regclass AND attnum > 0`);
    await expectBounded('cleared statistics');
  });

  it('reads only that category, after ANALYZE', async () => {
    // VACUUM too: an index-only scan needs the visibility map, which ANALYZE reports but never sets.
    await client.query('VACUUM (ANALYZE) products');
    await expectBounded('analysed', true);
  });
});
