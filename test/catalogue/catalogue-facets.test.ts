import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetProductFacetsResponse, ListProductsResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

type Facet = { value: string; count: number }[];

const FACET_KEYS = [
  'brand',
  'category',
  'store_type',
  'supplier_id',
  'pricing_type',
  'purchase_mode',
  'in_stock',
  'ready_to_list',
  'complete_for',
  'price_band',
] as const;

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let owner: Awaited<ReturnType<TestApp['createStore']>>;
let scoped: Awaited<ReturnType<TestApp['createStore']>>;
let sup1: string;
let sup2: string;
let sup3: string;

/** Facet list shorthand: `f(['a', 2], ['b', 1])`. */
const f = (...entries: [string, number][]): Facet => entries.map(([value, count]) => ({ value, count }));

async function facets(query = '', key = store.read): Promise<GetProductFacetsResponse> {
  const res = await app.get<GetProductFacetsResponse>(
    `/api/v1/products/facets${query ? `?${query}` : ''}`,
    key,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function listTotal(query = '', key = store.read): Promise<number> {
  const res = await app.get<ListProductsResponse>(`/api/v1/products${query ? `?${query}` : ''}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.pagination.total_count;
}

/*
 * Visible to `store` (P8 is inactive, P9 belongs to `owner`'s own supplier):
 *
 * | id  | brand   | category          | store type | supplier | pricing    | mode     | stock | ready | 100% for            | retail (effective)   |
 * | P1  | Acme Co | chairs            | furniture  | sup1     | wholesale  | buy_now  | 5     | yes   | storefront          | 1000                 |
 * | P2  | Acme Co | chairs            | furniture  | sup1     | wholesale  | buy_now  | 0     | no    | storefront          | 2500                 |
 * | P3  | Acme Co | tables            | furniture  | sup2     | commission | enquiry  | 3+4   | yes   | google              | 4999                 |
 * | P4  | Birch   | armchairs<chairs  | furniture  | sup2     | wholesale  | buy_now  | 0+0   | no    |                     | 5000                 |
 * | P5  | Birch   | planters          | garden     | sup3     | wholesale  | enquiry  | 2     | yes   | storefront, meta    | 100000               |
 * | P6  | -       | misc (no type)    | _other     | sup3     | commission | buy_now  | 1     | no    |                     | 25000                |
 * | P7  | Cedar   | - (raw "Outdoor Stuff") | _other | sup1   | wholesale  | buy_now  | 9     | yes   | (freight 99)        | 99999                |
 * | P10 | Birch   | tables            | furniture  | sup1     | wholesale  | enquiry* | 6     | no    |                     | 12000 (custom 1500)  |
 * | P11 | Cedar   | planters          | garden     | sup2     | wholesale  | buy_now  | 0     | no    |                     | 60000 (listing deleted) |
 *
 * P10 is listed by `store` with a custom price of 1500 and the listing's selling mode enquiry.
 * `store` has department chairs and maker sup3 (for scope=store).
 */
beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Facet Store');
  owner = await app.createStore('Owner Store');
  scoped = await app.createStore('Scoped Store');
  const em = app.em();
  const fx = fixtures(em);

  const furniture = await fx.storeType('furniture', 'Furniture');
  const garden = await fx.storeType('garden', 'Garden');
  const chairs = await fx.category({ slug: 'chairs', name: 'Chairs', storeTypeId: furniture });
  const armchairs = await fx.category({
    slug: 'armchairs',
    name: 'Armchairs',
    parentId: chairs,
    storeTypeId: furniture,
  });
  const tables = await fx.category({ slug: 'tables', name: 'Tables', storeTypeId: furniture });
  const planters = await fx.category({ slug: 'planters', name: 'Planters', storeTypeId: garden });
  const misc = await fx.category({ slug: 'misc', name: 'Misc' });
  const acme = await fx.brand('Acme Co');
  const birch = await fx.brand('Birch');
  const cedar = await fx.brand('Cedar');
  const s1 = await fx.supplier({ name: 'Supplier One' });
  const s2 = await fx.supplier({ name: 'Supplier Two' });
  const s3 = await fx.supplier({ name: 'Supplier Three' });
  const own = await fx.supplier({ name: 'Owner Own', ownerStoreId: owner.id });
  [sup1, sup2, sup3] = [String(s1), String(s2), String(s3)];

  await fx.product({
    name: 'Plain Seat One',
    brandId: acme,
    categoryId: chairs,
    supplierId: s1,
    retail: 1000,
    wholesale: 500,
    stock: [5],
    readyToList: true,
    completeness: { storefront: 100, google: 80 },
  });
  await fx.product({
    name: 'Plain Seat Two',
    brandId: acme,
    categoryId: chairs,
    supplierId: s1,
    retail: 2500,
    wholesale: 500,
    stock: [0],
    completeness: { storefront: 100 },
  });
  await fx.product({
    name: 'Walnut Dining Table',
    brandId: acme,
    categoryId: tables,
    supplierId: s2,
    retail: 4999,
    pricingType: 'commission',
    commissionBps: 2000,
    purchaseMode: 'enquiry',
    stock: [3, 4],
    readyToList: true,
    completeness: { google: 100 },
  });
  await fx.product({
    name: 'Plain Lounger',
    brandId: birch,
    categoryId: armchairs,
    supplierId: s2,
    retail: 5000,
    stock: [0, 0],
  });
  await fx.product({
    name: 'Plain Pot',
    brandId: birch,
    categoryId: planters,
    supplierId: s3,
    retail: 100000,
    purchaseMode: 'enquiry',
    stock: [2],
    readyToList: true,
    completeness: { storefront: 100, meta: 100 },
  });
  await fx.product({
    name: 'Plain Thing',
    categoryId: misc,
    supplierId: s3,
    retail: 25000,
    pricingType: 'commission',
    commissionBps: 1000,
    stock: [1],
  });
  await fx.product({
    name: 'Plain Parasol',
    brandId: cedar,
    categoryRaw: 'Outdoor Stuff',
    supplierId: s1,
    retail: 99999,
    stock: [9],
    readyToList: true,
    completeness: { freight: 99 },
  });
  // P8: inactive, counted nowhere.
  await fx.product({
    name: 'Walnut Retired Chair',
    brandId: acme,
    categoryId: chairs,
    supplierId: s1,
    retail: 1000,
    active: false,
    readyToList: true,
    completeness: { storefront: 100 },
  });
  // P9: the owner store's own goods; invisible to every other store.
  await fx.product({
    name: 'Walnut Own Shelf',
    brandId: cedar,
    categoryId: tables,
    supplierId: own,
    retail: 3000,
    stock: [4],
    readyToList: true,
    completeness: { storefront: 100 },
  });
  const p10 = await fx.product({
    name: 'Walnut Side Table',
    brandId: birch,
    categoryId: tables,
    supplierId: s1,
    retail: 12000,
    wholesale: 1000,
    stock: [6],
  });
  const p11 = await fx.product({
    name: 'Plain Trough',
    brandId: cedar,
    categoryId: planters,
    supplierId: s2,
    retail: 60000,
    stock: [0],
  });
  await fx.listing(store.id, p10, { customRetail: 1500 });
  await rows(
    em,
    sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${store.id} AND product_id = ${p10}`,
  );
  // A removed listing changes nothing: not in the store, its custom price ignored.
  await fx.listing(store.id, p11, { customRetail: 100, deleted: true });
  await fx.department(store.id, chairs);
  await fx.maker(store.id, s3);
  // A store switched to its own scope by default, with one department.
  await fx.setStoreScope(scoped.id, 'store');
  await fx.department(scoped.id, planters);
});
afterAll(() => app.close());

describe('GET /api/v1/products/facets', () => {
  it('lists every facet with exact counts over the visible catalogue', async () => {
    const body = await facets();
    expect(Object.keys(body).sort()).toEqual(['facets', 'total_count', 'total_count_is_lower_bound']);
    expect(Object.keys(body.facets).sort()).toEqual([...FACET_KEYS].sort());
    expect(body.total_count).toBe(9);
    expect(body.facets).toEqual({
      brand: f(['Acme Co', 3], ['Birch', 3], ['Cedar', 2]),
      category: f(['chairs', 2], ['planters', 2], ['tables', 2], ['armchairs', 1], ['misc', 1]),
      store_type: f(['furniture', 5], ['_other', 2], ['garden', 2]),
      supplier_id: f([sup1, 4], [sup2, 3], [sup3, 2]),
      pricing_type: f(['wholesale', 7], ['commission', 2]),
      purchase_mode: f(['buy_now', 6], ['enquiry', 3]),
      in_stock: f(['true', 6], ['false', 3]),
      ready_to_list: f(['false', 5], ['true', 4]),
      complete_for: f(['storefront', 3], ['google', 1], ['meta', 1]),
      price_band: f(
        ['0-2500', 2],
        ['2500-5000', 2],
        ['5000-10000', 1],
        ['25000-50000', 1],
        ['50000-100000', 2],
        ['100000-', 1],
      ),
    });
  });

  it('follows the drill-down rule: a facet applies every other filter but not its own', async () => {
    const body = await facets('brand=Acme%20Co');
    expect(body.total_count).toBe(3);
    expect(body.facets).toEqual({
      // Its own filter left out: other brands keep their counts.
      brand: f(['Acme Co', 3], ['Birch', 3], ['Cedar', 2]),
      category: f(['chairs', 2], ['tables', 1]),
      store_type: f(['furniture', 3]),
      supplier_id: f([sup1, 2], [sup2, 1]),
      pricing_type: f(['wholesale', 2], ['commission', 1]),
      purchase_mode: f(['buy_now', 2], ['enquiry', 1]),
      in_stock: f(['true', 2], ['false', 1]),
      ready_to_list: f(['true', 2], ['false', 1]),
      complete_for: f(['storefront', 2], ['google', 1]),
      price_band: f(['0-2500', 1], ['2500-5000', 2]),
    });
    // The brand slug selects the same brand.
    expect(await facets('brand=acme-co')).toEqual(body);
  });

  it('applies each of two active filters to the other facet only', async () => {
    const body = await facets('brand=Acme%20Co&in_stock=true');
    expect(body.total_count).toBe(2);
    expect(body.facets).toEqual({
      brand: f(['Acme Co', 2], ['Birch', 2], ['Cedar', 1]),
      category: f(['chairs', 1], ['tables', 1]),
      store_type: f(['furniture', 2]),
      supplier_id: f([sup1, 1], [sup2, 1]),
      pricing_type: f(['commission', 1], ['wholesale', 1]),
      purchase_mode: f(['buy_now', 1], ['enquiry', 1]),
      in_stock: f(['true', 2], ['false', 1]),
      ready_to_list: f(['true', 2]),
      complete_for: f(['google', 1], ['storefront', 1]),
      price_band: f(['0-2500', 1], ['2500-5000', 1]),
    });
  });

  it('keeps a facet listed when its own filter matches nothing, and empties the others', async () => {
    const body = await facets('brand=Nobody');
    expect(body.total_count).toBe(0);
    expect(body.facets.brand).toEqual(f(['Acme Co', 3], ['Birch', 3], ['Cedar', 2]));
    for (const name of FACET_KEYS.filter((n) => n !== 'brand')) {
      expect(body.facets[name], name).toEqual([]);
    }
  });

  it('treats in_stock=false as a real filter, never as true', async () => {
    const body = await facets('in_stock=false');
    expect(body.total_count).toBe(3);
    expect(body.facets.in_stock).toEqual(f(['true', 6], ['false', 3]));
    expect(body.facets.brand).toEqual(f(['Acme Co', 1], ['Birch', 1], ['Cedar', 1]));
    expect(body.facets.price_band).toEqual(f(['2500-5000', 1], ['5000-10000', 1], ['50000-100000', 1]));
  });

  it('filters a category with its subcategories and lists category slugs', async () => {
    const body = await facets('category=chairs');
    expect(body.total_count).toBe(3);
    expect(body.facets.category).toEqual(
      f(['chairs', 2], ['planters', 2], ['tables', 2], ['armchairs', 1], ['misc', 1]),
    );
    expect(body.facets.brand).toEqual(f(['Acme Co', 2], ['Birch', 1]));
    expect(body.facets.in_stock).toEqual(f(['false', 2], ['true', 1]));

    // A raw category value (no category row) matches, case-insensitively; it is no slug, so not listed.
    const raw = await facets('category=outdoor%20stuff');
    expect(raw.total_count).toBe(1);
    expect(raw.facets.brand).toEqual(f(['Cedar', 1]));
    expect(raw.facets.store_type).toEqual(f(['_other', 1]));
  });

  it("filters store_type, with '_other' for products outside every vertical", async () => {
    const other = await facets('store_type=_other');
    expect(other.total_count).toBe(2);
    expect(other.facets.store_type).toEqual(f(['furniture', 5], ['_other', 2], ['garden', 2]));
    expect(other.facets.brand).toEqual(f(['Cedar', 1]));
    expect(other.facets.category).toEqual(f(['misc', 1]));
    expect(other.facets.supplier_id).toEqual(f([sup1, 1], [sup3, 1]));

    const gardenOnly = await facets('store_type=garden');
    expect(gardenOnly.total_count).toBe(2);
    expect(gardenOnly.facets.category).toEqual(f(['planters', 2]));
    expect(gardenOnly.facets.brand).toEqual(f(['Birch', 1], ['Cedar', 1]));
  });

  it('filters supplier_id, pricing_type, purchase_mode, ready_to_list', async () => {
    const bySupplier = await facets(`supplier_id=${sup2}`);
    expect(bySupplier.total_count).toBe(3);
    expect(bySupplier.facets.supplier_id).toEqual(f([sup1, 4], [sup2, 3], [sup3, 2]));
    expect(bySupplier.facets.brand).toEqual(f(['Acme Co', 1], ['Birch', 1], ['Cedar', 1]));

    const commission = await facets('pricing_type=commission');
    expect(commission.total_count).toBe(2);
    expect(commission.facets.pricing_type).toEqual(f(['wholesale', 7], ['commission', 2]));
    expect(commission.facets.store_type).toEqual(f(['_other', 1], ['furniture', 1]));

    // The listing's own selling mode counts for this store (P10).
    const enquiry = await facets('purchase_mode=enquiry');
    expect(enquiry.total_count).toBe(3);
    expect(enquiry.facets.purchase_mode).toEqual(f(['buy_now', 6], ['enquiry', 3]));
    expect(enquiry.facets.brand).toEqual(f(['Birch', 2], ['Acme Co', 1]));

    const notReady = await facets('ready_to_list=false');
    expect(notReady.total_count).toBe(5);
    expect(notReady.facets.ready_to_list).toEqual(f(['false', 5], ['true', 4]));
    expect(notReady.facets.in_stock).toEqual(f(['false', 3], ['true', 2]));
  });

  it('counts complete_for only at score 100, and an uncomputed channel matches nothing', async () => {
    const google = await facets('complete_for=google');
    expect(google.total_count).toBe(1);
    expect(google.facets.complete_for).toEqual(f(['storefront', 3], ['google', 1], ['meta', 1]));
    expect(google.facets.brand).toEqual(f(['Acme Co', 1]));

    const freight = await facets('complete_for=freight');
    expect(freight.total_count).toBe(0);

    const unknown = await facets('complete_for=pinterest');
    expect(unknown.total_count).toBe(0);
    expect(unknown.facets.complete_for).toEqual(f(['storefront', 3], ['google', 1], ['meta', 1]));
    for (const name of FACET_KEYS.filter((n) => n !== 'complete_for')) {
      expect(unknown.facets[name], name).toEqual([]);
    }
  });

  it('bands prices on the effective retail price, min inclusive and max exclusive', async () => {
    const band = await facets('price_min_cents=2500&price_max_cents=5000');
    expect(band.total_count).toBe(2);
    // The price facet leaves its own filter out.
    expect(band.facets.price_band).toEqual(
      f(
        ['0-2500', 2],
        ['2500-5000', 2],
        ['5000-10000', 1],
        ['25000-50000', 1],
        ['50000-100000', 2],
        ['100000-', 1],
      ),
    );
    expect(band.facets.brand).toEqual(f(['Acme Co', 2]));
    expect(band.facets.pricing_type).toEqual(f(['commission', 1], ['wholesale', 1]));

    // 5000 is inclusive as a minimum; the custom price 1500 (not 12000) puts P10 under 2500.
    expect((await facets('price_min_cents=5000')).total_count).toBe(5);
    const cheap = await facets('price_max_cents=2500');
    expect(cheap.total_count).toBe(2);
    expect(cheap.facets.brand).toEqual(f(['Acme Co', 1], ['Birch', 1]));
    expect((await facets('price_min_cents=10000&price_max_cents=25000')).total_count).toBe(0);
    expect((await facets('price_min_cents=100000')).facets.brand).toEqual(f(['Birch', 1]));
  });

  it('narrows every facet by search', async () => {
    const body = await facets('search=walnut');
    expect(body.total_count).toBe(2);
    expect(body.facets).toEqual({
      brand: f(['Acme Co', 1], ['Birch', 1]),
      category: f(['tables', 2]),
      store_type: f(['furniture', 2]),
      supplier_id: f([sup1, 1], [sup2, 1]),
      pricing_type: f(['commission', 1], ['wholesale', 1]),
      purchase_mode: f(['enquiry', 2]),
      in_stock: f(['true', 2]),
      ready_to_list: f(['false', 1], ['true', 1]),
      complete_for: f(['google', 1]),
      price_band: f(['0-2500', 1], ['2500-5000', 1]),
    });
    // Substring fallback when full text finds nothing.
    const partial = await facets('search=alnu');
    expect(partial.total_count).toBe(2);
    expect(partial.facets.brand).toEqual(body.facets.brand);
  });

  it('takes LIKE wildcards in search literally and ignores a blank search', async () => {
    expect((await facets('search=%25')).total_count).toBe(0);
    expect((await facets('search=_')).total_count).toBe(0);
    expect((await facets('search=%20%20')).total_count).toBe(9);
  });

  it('narrows every facet by exclude_in_store (a removed listing is not in the store)', async () => {
    const body = await facets('exclude_in_store=true');
    expect(body.total_count).toBe(8);
    expect(body.facets.brand).toEqual(f(['Acme Co', 3], ['Birch', 2], ['Cedar', 2]));
    expect(body.facets.category).toEqual(
      f(['chairs', 2], ['planters', 2], ['armchairs', 1], ['misc', 1], ['tables', 1]),
    );
    expect(body.facets.purchase_mode).toEqual(f(['buy_now', 6], ['enquiry', 2]));
    expect(body.facets.price_band[0]).toEqual({ value: '0-2500', count: 1 });
    expect((await facets('exclude_in_store=false')).total_count).toBe(9);
  });

  it('narrows every facet by scope=store (departments with subcategories, makers, uncategorised)', async () => {
    const body = await facets('scope=store');
    expect(body.total_count).toBe(6);
    expect(body.facets.brand).toEqual(f(['Acme Co', 2], ['Birch', 2], ['Cedar', 1]));
    expect(body.facets.category).toEqual(f(['chairs', 2], ['armchairs', 1], ['misc', 1], ['planters', 1]));
    expect(body.facets.supplier_id).toEqual(f([sup1, 3], [sup3, 2], [sup2, 1]));
    expect((await facets('scope=all')).total_count).toBe(9);
  });

  it("uses the store's default scope when scope is omitted", async () => {
    const body = await facets('', scoped.read);
    // planters (P5, P11) and the uncategorised P7.
    expect(body.total_count).toBe(3);
    expect(body.facets.brand).toEqual(f(['Cedar', 2], ['Birch', 1]));
    expect(body.facets.store_type).toEqual(f(['garden', 2], ['_other', 1]));
    expect((await facets('scope=all', scoped.read)).total_count).toBe(9);
    expect(await facets('scope=store', scoped.read)).toEqual(body);
  });

  it('ignores ownership for a store without own suppliers', async () => {
    const body = await facets('ownership=own');
    expect(body.total_count).toBe(9);
    expect(body).not.toHaveProperty('ownership');
  });

  it('honours ownership for a store with own suppliers, narrowing every facet', async () => {
    const all = await facets('', owner.read);
    expect(all.total_count).toBe(10);
    expect(all.ownership).toEqual({ applied: 'all', choices: ['own', 'btab', 'all'] });
    // No listing of its own: P10 at its suggested price and selling mode.
    expect(all.facets.purchase_mode).toEqual(f(['buy_now', 8], ['enquiry', 2]));
    expect(all.facets.complete_for).toEqual(f(['storefront', 4], ['google', 1], ['meta', 1]));

    const own = await facets('ownership=own', owner.read);
    expect(own.total_count).toBe(1);
    expect(own.ownership).toEqual({ applied: 'own', choices: ['own', 'btab', 'all'] });
    expect(own.facets.brand).toEqual(f(['Cedar', 1]));
    expect(own.facets.category).toEqual(f(['tables', 1]));
    expect(own.facets.price_band).toEqual(f(['2500-5000', 1]));
    expect(own.facets.complete_for).toEqual(f(['storefront', 1]));

    const btab = await facets('ownership=btab', owner.read);
    expect(btab.total_count).toBe(9);
    expect(btab.ownership?.applied).toBe('btab');
    expect(btab.facets.brand).toEqual(f(['Acme Co', 3], ['Birch', 3], ['Cedar', 2]));
  });

  it("total_count equals the list's pagination.total_count for the same filters", async () => {
    const queries = [
      '',
      'brand=Acme%20Co',
      'brand=acme-co&in_stock=true',
      'in_stock=false',
      'category=chairs',
      'category=Outdoor%20Stuff',
      'store_type=_other',
      `supplier_id=${sup2}`,
      'pricing_type=commission',
      'purchase_mode=enquiry',
      'ready_to_list=true',
      'complete_for=storefront',
      'complete_for=pinterest',
      'price_min_cents=2500&price_max_cents=5000',
      'price_max_cents=2500',
      'search=walnut',
      'search=alnu',
      'exclude_in_store=true',
      'scope=store',
      'ownership=own',
      'brand=Birch&store_type=furniture&price_max_cents=10000',
    ];
    for (const q of queries) {
      expect((await facets(q)).total_count, q).toBe(await listTotal(q));
    }
    for (const q of ['ownership=own', 'ownership=btab', '']) {
      expect((await facets(q, owner.read)).total_count, `owner ${q}`).toBe(await listTotal(q, owner.read));
    }
    for (const q of ['', 'scope=all', 'brand=Cedar']) {
      expect((await facets(q, scoped.read)).total_count, `scoped ${q}`).toBe(await listTotal(q, scoped.read));
    }
  });

  it("refuses the list's paging and order and unknown keys, naming each: facets take filters only", async () => {
    const res = await app.get<ErrorBody>(
      '/api/v1/products/facets?page=2&limit=1&sort_by=name&foo=bar',
      store.read,
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details?.map((d) => d.path)).toEqual(['page', 'limit', 'sort_by', 'foo']);
  });

  it('rejects bad input by the list rules with 400 VALIDATION_FAILED', async () => {
    const bad = [
      `search=${'a'.repeat(101)}`,
      'complete_for=Google',
      'complete_for=1abc',
      `complete_for=a${'b'.repeat(32)}`,
      'price_min_cents=-1',
      'price_max_cents=-1',
      'price_min_cents=1.5',
      'price_min_cents=cheap',
      'in_stock=yes',
      'in_stock=1',
      'ready_to_list=TRUE',
      'exclude_in_store=0',
      'supplier_id=0',
      'supplier_id=abc',
      'supplier_id=99999999999',
      'pricing_type=retail',
      'purchase_mode=quote',
      'scope=mine',
      'ownership=theirs',
      `brand=${'b'.repeat(121)}`,
      `category=${'c'.repeat(121)}`,
      `store_type=${'s'.repeat(81)}`,
    ];
    for (const q of bad) {
      const res = await app.get<ErrorBody>(`/api/v1/products/facets?${q}`, store.read);
      expect(res.status, q).toBe(400);
      expect(res.body, q).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
      expect(res.body.request_id, q).toBe(res.headers.get('x-request-id'));
      expect(Array.isArray(res.body.details), q).toBe(true);
    }
    // The limits themselves are accepted.
    for (const q of [
      `search=${'a'.repeat(100)}`,
      `complete_for=a${'b'.repeat(31)}`,
      'price_min_cents=0',
      `brand=${'b'.repeat(120)}`,
      `store_type=${'s'.repeat(80)}`,
    ]) {
      expect((await app.get(`/api/v1/products/facets?${q}`, store.read)).status, q).toBe(200);
    }
  });

  it('needs a credential: 401 without or with a bad key, 200 with read and read_write keys', async () => {
    const none = await app.get('/api/v1/products/facets');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIAL' });
    expect(none.headers.get('www-authenticate')).toContain('resource_metadata=');
    const badKey = await app.get('/api/v1/products/facets', `sl_test_${'x'.repeat(40)}`);
    expect(badKey.status).toBe(401);
    const read = await facets('', store.read);
    const readWrite = await facets('', store.readWrite);
    expect(read.total_count).toBe(9);
    expect(readWrite).toEqual(read);
  });

  it('serves HEAD like GET', async () => {
    const get = await app.request('/api/v1/products/facets?brand=Birch', { key: store.read });
    const head = await app.request('/api/v1/products/facets?brand=Birch', {
      key: store.read,
      method: 'HEAD',
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });
});
