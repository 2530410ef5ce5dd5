import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  BulkAddMyProductsResponse,
  BulkRemoveMyProductsResponse,
  ErrorBody,
  GetMyProductResponse,
  ListMyProductsResponse,
  ListProductsResponse,
} from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { bulkAddByFilter, bulkRemoveByFilter } from '../../src/listings/bulk-by-filter.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * POST /api/v1/my-products/bulk and /bulk-remove over HTTP against exact catalogue data.
 *
 * Catalogue (shared by every test; tests use their own stores):
 * - Supplier A: A1, A2, A3, A5 (uncategorised), A4 (category `other-dept`), AI (inactive).
 * - Supplier O, owned by store O: PO (active) and POI (inactive): own goods of O, invisible to others.
 * - Supplier BIG: 300 products B(i), i = 1..300, set-based, with:
 *   retail i*100, stock 0 when i % 3 = 0 (else i), name "Copper Lantern i" when i % 10 = 0
 *   (else "Bulk Item i"), brand "Lumen Works" when i % 4 = 0, quote-only when i % 7 = 0.
 * So every store but O sees 305 products; O sees 306.
 */

let app: TestApp;
type StoreKeys = Awaited<ReturnType<TestApp['createStore']>>;
let O: StoreKeys;

const ids: Record<string, number> = {};
let supBig: number;
let supA: number;
/** Big-set product id of index i (1..300). */
const big: number[] = [];
const BIG_N = 300;
const VISIBLE_TO_ANY = BIG_N + 5;

interface BigModel {
  i: number;
  retail: number;
  inStock: boolean;
  lantern: boolean;
  brand: boolean;
  enquiry: boolean;
}
const BIG_MODEL: BigModel[] = Array.from({ length: BIG_N }, (_, k) => {
  const i = k + 1;
  return {
    i,
    retail: i * 100,
    inStock: i % 3 !== 0,
    lantern: i % 10 === 0,
    brand: i % 4 === 0,
    enquiry: i % 7 === 0,
  };
});
const bigIds = (pred: (m: BigModel) => boolean) =>
  BIG_MODEL.filter(pred)
    .map((m) => b(m.i))
    .sort((x, y) => x - y);

function b(i: number): number {
  const v = big[i];
  if (v === undefined) throw new Error(`no big product ${i}`);
  return v;
}

function id(key: string): number {
  const v = ids[key];
  if (v === undefined) throw new Error(`no fixture ${key}`);
  return v;
}

type BulkPath = 'bulk' | 'bulk-remove';
/** The answer of a bulk call that succeeded. */
type BulkAnswer<P extends BulkPath> = P extends 'bulk'
  ? BulkAddMyProductsResponse
  : BulkRemoveMyProductsResponse;

/** POST to a bulk path; `T` is the body the test expects (its JSON is parsed, not checked). */
async function post<T = unknown>(
  path: BulkPath,
  body: unknown,
  key: string | undefined,
  headers?: Record<string, string>,
) {
  const res = await app.request(`/api/v1/my-products/${path}`, { method: 'POST', key, body, headers });
  const text = await res.text();
  const parsed: T = text ? JSON.parse(text) : undefined;
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A bulk call that must succeed; answers the parsed body. */
async function bulk<P extends BulkPath>(path: P, body: unknown, key: string): Promise<BulkAnswer<P>> {
  const res = await post<BulkAnswer<P>>(path, body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

interface ListingRow {
  product_id: number;
  live: boolean;
  custom: number | null;
  deleted_at: string | null;
}

async function listings(storeId: number): Promise<ListingRow[]> {
  return rows<ListingRow>(
    app.em(),
    sql`SELECT product_id, deleted_at IS NULL AS live, custom_retail_price_cents AS custom,
          deleted_at::text AS deleted_at
        FROM listings WHERE store_id = ${storeId} ORDER BY product_id`,
  );
}

async function liveIds(storeId: number): Promise<number[]> {
  return (await listings(storeId)).filter((l) => l.live).map((l) => l.product_id);
}

async function events(storeId: number) {
  return rows<{ event: string; product_id: number; data: unknown; dispatched: boolean }>(
    app.em(),
    sql`SELECT event, entity_id::integer AS product_id, data, dispatched_at IS NOT NULL AS dispatched
        FROM domain_events WHERE store_id = ${storeId} ORDER BY id`,
  );
}

async function jobs() {
  return rows<{ task_identifier: string; key: string | null }>(
    app.em(),
    sql`SELECT task_identifier, key FROM graphile_worker.jobs ORDER BY id`,
  );
}

/** No worker runs in tests, so the dispatcher job stays queued; drop it to see whether a call adds one. */
async function clearJobs() {
  await rows(app.em(), sql`SELECT graphile_worker.remove_job('dispatch_events')`);
  expect(await jobs()).toEqual([]);
}

const DISPATCH_JOB = [{ task_identifier: 'dispatch_events', key: 'dispatch_events' }];

/** The store's listings as the partner reads them, every page of `limit`. */
async function myProducts(key: string, limit = 500) {
  const all: number[] = [];
  let total = -1;
  for (let page = 1; ; page++) {
    const res = await app.get<ListMyProductsResponse>(`/api/v1/my-products?limit=${limit}&page=${page}`, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    total = res.body.pagination.total_count;
    all.push(...res.body.products.map((p) => p.product_id));
    if (page >= res.body.pagination.total_pages) break;
  }
  expect(all).toHaveLength(total);
  return all.sort((x, y) => x - y);
}

async function catalogueTotal(query: string, key: string) {
  const res = await app.get<ListProductsResponse>(`/api/v1/products?limit=1&${query}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.pagination.total_count;
}

const sortSkips = (skips: { product_id: number; reason: string }[]) =>
  [...skips].sort((x, y) => x.product_id - y.product_id || x.reason.localeCompare(y.reason));

beforeAll(async () => {
  app = await startTestApp();
  O = await app.createStore('Store O');
  const em = app.em();
  const fx = fixtures(em);
  const otherDept = await fx.category({ slug: 'other-dept', name: 'Other Dept' });
  supA = await fx.supplier({ name: 'Supplier A' });
  const supO = await fx.supplier({ name: 'Own O', ownerStoreId: O.id });
  supBig = await fx.supplier({ name: 'Supplier Big' });
  const lumen = await fx.brand('Lumen Works');

  ids.A1 = await fx.product({ name: 'Alpha Chair', supplierId: supA, retail: 2000 });
  ids.A2 = await fx.product({ name: 'Alpha Desk', supplierId: supA, retail: 4000 });
  ids.A3 = await fx.product({ name: 'Alpha Shelf', supplierId: supA, retail: 6000 });
  ids.A4 = await fx.product({ name: 'Alpha Rug', supplierId: supA, categoryId: otherDept, retail: 8000 });
  ids.A5 = await fx.product({ name: 'Alpha Vase', supplierId: supA, retail: 1000 });
  ids.AI = await fx.product({ name: 'Alpha Inactive', supplierId: supA, active: false });
  ids.PO = await fx.product({ name: 'Own Goods O', supplierId: supO });
  ids.POI = await fx.product({ name: 'Own Goods O Inactive', supplierId: supO, active: false });

  const inserted = await rows<{ id: number; i: number }>(
    em,
    sql`INSERT INTO products (supplier_id, brand_id, name, sku, wholesale_price_cents, retail_price_cents,
          stock_quantity, purchase_mode, created_at, updated_at)
        SELECT ${supBig}, CASE WHEN i % 4 = 0 THEN ${lumen}::integer END,
          CASE WHEN i % 10 = 0 THEN 'Copper Lantern ' || i ELSE 'Bulk Item ' || i END,
          'BIG-' || i, i * 40, i * 100, CASE WHEN i % 3 = 0 THEN 0 ELSE i END,
          CASE WHEN i % 7 = 0 THEN 'enquiry' ELSE 'buy_now' END,
          '2026-01-01T00:00:00Z'::timestamptz + i * interval '1 minute',
          '2026-01-01T00:00:00Z'::timestamptz + i * interval '1 minute'
        FROM generate_series(1, ${BIG_N}::integer) AS i
        RETURNING id, substring(sku from 5)::integer AS i`,
  );
  for (const r of inserted) big[r.i] = r.id;
  expect(inserted).toHaveLength(BIG_N);
});

afterAll(async () => {
  await app?.close();
});

describe('the fixture catalogue', () => {
  it('a store sees 305 products and O sees its own goods too', async () => {
    const s = await app.createStore();
    expect(await catalogueTotal('', s.read)).toBe(VISIBLE_TO_ANY);
    expect(await catalogueTotal('', O.read)).toBe(VISIBLE_TO_ANY + 1);
  });
});

describe('POST /api/v1/my-products/bulk, mode ids', () => {
  it('adds, restores at default pricing and reports each skip with its reason', async () => {
    const s = await app.createStore();
    const fx = fixtures(app.em());
    await fx.listing(s.id, id('A1'), { customRetail: 2500 });
    await fx.listing(s.id, id('A2'), { customRetail: 4500, deleted: true });
    await fx.listing(s.id, id('AI'), { deleted: true });
    const before = await listings(s.id);

    const body = await bulk(
      'bulk',
      {
        mode: 'ids',
        product_ids: [id('A3'), id('A1'), id('A2'), 2_147_483_647, id('AI'), id('PO'), id('A3'), id('A4')],
      },
      s.readWrite,
    );
    expect(body).toEqual({ added: 2, restored: 1, skipped: expect.any(Array) });
    expect(sortSkips(body.skipped)).toEqual(
      sortSkips([
        { product_id: id('A1'), reason: 'already_listed' },
        { product_id: id('A3'), reason: 'duplicate' },
        { product_id: id('AI'), reason: 'not_found' },
        { product_id: id('PO'), reason: 'not_found' },
        { product_id: 2_147_483_647, reason: 'not_found' },
      ]),
    );

    const after = await listings(s.id);
    const row = (k: string) => after.find((l) => l.product_id === id(k));
    // A1 untouched (still its custom price), A2 restored with the custom price cleared.
    expect(row('A1')).toEqual(before.find((l) => l.product_id === id('A1')));
    expect(row('A2')).toMatchObject({ live: true, custom: null, deleted_at: null });
    expect(row('A3')).toMatchObject({ live: true, custom: null });
    expect(row('A4')).toMatchObject({ live: true, custom: null });
    // The inactive product stays removed; nothing of another store's goods.
    expect(row('AI')).toMatchObject({ live: false });
    expect(row('PO')).toBeUndefined();
    expect(await liveIds(s.id)).toEqual([id('A1'), id('A2'), id('A3'), id('A4')].sort((x, y) => x - y));

    const a2 = await app.get<GetMyProductResponse>(`/api/v1/my-products/${id('A2')}`, s.read);
    expect(a2.status).toBe(200);
    expect(a2.body.product).toMatchObject({
      product_id: id('A2'),
      custom_retail_price_cents: null,
      retail_price_cents: 4000,
      effective_retail_price_cents: 4000,
    });
    expect(await myProducts(s.read)).toEqual(await liveIds(s.id));
  });

  it('reports every repeat of an id as a duplicate and acts on the id once', async () => {
    const s = await app.createStore();
    const body = await bulk(
      'bulk',
      { mode: 'ids', product_ids: [id('A5'), id('A5'), id('A5'), id('A1')] },
      s.readWrite,
    );
    expect(body.added).toBe(2);
    expect(body.restored).toBe(0);
    expect(body.skipped).toEqual([
      { product_id: id('A5'), reason: 'duplicate' },
      { product_id: id('A5'), reason: 'duplicate' },
    ]);
    expect(await liveIds(s.id)).toEqual([id('A1'), id('A5')].sort((x, y) => x - y));
    expect((await events(s.id)).map((e) => e.product_id).sort((x, y) => x - y)).toEqual(
      [id('A1'), id('A5')].sort((x, y) => x - y),
    );
  });

  it('adds a store its own goods, but never another store its goods or an inactive product', async () => {
    const own = await bulk('bulk', { mode: 'ids', product_ids: [id('PO'), id('POI')] }, O.readWrite);
    expect(own).toEqual({ added: 1, restored: 0, skipped: [{ product_id: id('POI'), reason: 'not_found' }] });
    expect(await liveIds(O.id)).toEqual([id('PO')]);
    const other = await app.createStore();
    const res = await bulk('bulk', { mode: 'ids', product_ids: [id('PO')] }, other.readWrite);
    expect(res).toEqual({ added: 0, restored: 0, skipped: [{ product_id: id('PO'), reason: 'not_found' }] });
    expect(await listings(other.id)).toEqual([]);
    // Clean up so later catalogue-wide counts for O stay exact.
    expect(await bulk('bulk-remove', { mode: 'ids', product_ids: [id('PO')] }, O.readWrite)).toEqual({
      removed: 1,
      skipped: [],
    });
  });

  it('accepts exactly 500 ids', async () => {
    const s = await app.createStore();
    const unknown = Array.from({ length: 200 }, (_, k) => 1_000_000 + k);
    const all = [...bigIds(() => true), ...unknown];
    expect(all).toHaveLength(500);
    const body = await bulk('bulk', { mode: 'ids', product_ids: all }, s.readWrite);
    expect(body.added).toBe(BIG_N);
    expect(body.restored).toBe(0);
    expect(sortSkips(body.skipped)).toEqual(unknown.map((p) => ({ product_id: p, reason: 'not_found' })));
    expect(await liveIds(s.id)).toEqual(bigIds(() => true));
  });

  it('a call where every id is skipped changes nothing and enqueues nothing', async () => {
    const s = await app.createStore();
    await fixtures(app.em()).listing(s.id, id('A1'));
    await clearJobs();
    const body = await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('AI'), 999_999] }, s.readWrite);
    expect(body).toEqual({
      added: 0,
      restored: 0,
      skipped: expect.arrayContaining([
        { product_id: id('A1'), reason: 'already_listed' },
        { product_id: id('AI'), reason: 'not_found' },
        { product_id: 999_999, reason: 'not_found' },
      ]),
    });
    expect(body.skipped).toHaveLength(3);
    expect(await liveIds(s.id)).toEqual([id('A1')]);
    expect(await events(s.id)).toEqual([]);
    expect(await jobs()).toEqual([]);
  });
});

describe('POST /api/v1/my-products/bulk, mode filter', () => {
  it('adds every match not already live in one call, restoring removed ones at default pricing', async () => {
    const s = await app.createStore();
    const fx = fixtures(app.em());
    // Live in range (B101, B102, B150) and out of range (B50); removed in range with a custom
    // price (B110, B111) and removed out of range (B20).
    for (const i of [101, 102, 150, 50]) await fx.listing(s.id, b(i));
    for (const i of [110, 111, 20]) await fx.listing(s.id, b(i), { customRetail: 55555, deleted: true });
    const filters = { supplier_id: supBig, price_min_cents: 10000, price_max_cents: 20000 };
    const query = `supplier_id=${supBig}&price_min_cents=10000&price_max_cents=20000`;
    // Retail i*100 in [10000, 20000): i = 100..199 (lower bound inclusive, upper exclusive).
    const matching = bigIds((m) => m.retail >= 10000 && m.retail < 20000);
    expect(matching).toHaveLength(100);
    expect(await catalogueTotal(`${query}&exclude_in_store=true`, s.read)).toBe(97);

    const body = await bulk('bulk', { mode: 'filter', filters }, s.readWrite);
    expect(body).toEqual({ added: 95, restored: 2, skipped: [] });

    const expected = [...matching, b(50)].sort((x, y) => x - y);
    expect(await liveIds(s.id)).toEqual(expected);
    expect(await myProducts(s.read)).toEqual(expected);
    expect(await myProducts(s.read, 40)).toEqual(expected);
    const page3 = await app.get<ListMyProductsResponse>('/api/v1/my-products?limit=40&page=3', s.read);
    expect(page3.body.pagination).toEqual({ page: 3, limit: 40, total_count: 101, total_pages: 3 });
    expect(page3.body.products).toHaveLength(21);
    expect(await catalogueTotal(`${query}&exclude_in_store=true`, s.read)).toBe(0);

    const after = await listings(s.id);
    const row = (i: number) => after.find((l) => l.product_id === b(i));
    expect(row(110)).toMatchObject({ live: true, custom: null });
    expect(row(111)).toMatchObject({ live: true, custom: null });
    expect(row(20)).toMatchObject({ live: false, custom: 55555 });
    expect(row(200)).toBeUndefined();

    // One product.created per added or restored product, none for those already live.
    const created = (await events(s.id)).map((e) => e.product_id).sort((x, y) => x - y);
    const already = new Set([b(101), b(102), b(150)]);
    expect(created).toEqual(matching.filter((p) => !already.has(p)));
  });

  it('applies the catalogue filters as GET /products does (search, stock, selling mode, brand)', async () => {
    const cases: [Record<string, unknown>, string, (m: BigModel) => boolean][] = [
      [{ search: 'lantern' }, 'search=lantern', (m) => m.lantern],
      [{ in_stock: true }, 'in_stock=true', (m) => m.inStock],
      [{ in_stock: false }, 'in_stock=false', (m) => !m.inStock],
      [{ purchase_mode: 'enquiry' }, 'purchase_mode=enquiry', (m) => m.enquiry],
      [{ brand: 'lumen works' }, 'brand=lumen%20works', (m) => m.brand],
      [
        { search: 'Lantern', in_stock: true, purchase_mode: 'buy_now', price_max_cents: 15000 },
        'search=Lantern&in_stock=true&purchase_mode=buy_now&price_max_cents=15000',
        (m) => m.lantern && m.inStock && !m.enquiry && m.retail < 15000,
      ],
    ];
    for (const [filters, query, pred] of cases) {
      const s = await app.createStore();
      const want = bigIds(pred);
      const label = JSON.stringify(filters);
      expect(await catalogueTotal(`supplier_id=${supBig}&${query}`, s.read), label).toBe(want.length);
      const body = await bulk(
        'bulk',
        { mode: 'filter', filters: { supplier_id: supBig, ...filters } },
        s.readWrite,
      );
      expect(body, label).toEqual({ added: want.length, restored: 0, skipped: [] });
      expect(await liveIds(s.id), label).toEqual(want);
    }
  });

  it('filters {} adds the whole visible catalogue: no inactive products, no other store goods', async () => {
    const s = await app.createStore();
    await fixtures(app.em()).listing(s.id, id('A1'));
    const body = await bulk('bulk', { mode: 'filter', filters: {} }, s.readWrite);
    expect(body).toEqual({ added: VISIBLE_TO_ANY - 1, restored: 0, skipped: [] });
    const want = [...bigIds(() => true), id('A1'), id('A2'), id('A3'), id('A4'), id('A5')].sort(
      (x, y) => x - y,
    );
    expect(await liveIds(s.id)).toEqual(want);
    const page = await app.get<ListMyProductsResponse>('/api/v1/my-products?limit=100&page=4', s.read);
    expect(page.body.pagination).toEqual({ page: 4, limit: 100, total_count: 305, total_pages: 4 });
    expect(page.body.products).toHaveLength(5);

    // A second identical call finds nothing left to add.
    await clearJobs();
    expect(await bulk('bulk', { mode: 'filter', filters: {} }, s.readWrite)).toEqual({
      added: 0,
      restored: 0,
      skipped: [],
    });
    expect(await jobs()).toEqual([]);
    expect(await events(s.id)).toHaveLength(VISIBLE_TO_ANY - 1);
  });

  it('a store adds its own goods by filter (active only); other stores never get them', async () => {
    const q = await app.createStore('Store Q');
    const fx = fixtures(app.em());
    const supQ = await fx.supplier({ name: 'Own Q', ownerStoreId: q.id });
    const pq = await fx.product({ name: 'Quokka Own Lamp', supplierId: supQ });
    await fx.product({ name: 'Quokka Own Retired Lamp', supplierId: supQ, active: false });
    const body = await bulk('bulk', { mode: 'filter', filters: { search: 'quokka' } }, q.readWrite);
    expect(body).toEqual({ added: 1, restored: 0, skipped: [] });
    expect(await liveIds(q.id)).toEqual([pq]);
    const other = await app.createStore();
    expect(await bulk('bulk', { mode: 'filter', filters: { search: 'quokka' } }, other.readWrite)).toEqual({
      added: 0,
      restored: 0,
      skipped: [],
    });
    expect(await listings(other.id)).toEqual([]);
  });

  it("follows the store's default scope, and scope=all widens it", async () => {
    const s = await app.createStore();
    await fixtures(app.em()).setStoreScope(s.id, 'store');
    // No departments or makers: only uncategorised products are in scope; A4 has a category.
    const inScope = await bulk('bulk', { mode: 'filter', filters: { supplier_id: supA } }, s.readWrite);
    expect(inScope).toEqual({ added: 4, restored: 0, skipped: [] });
    expect(await liveIds(s.id)).toEqual([id('A1'), id('A2'), id('A3'), id('A5')].sort((x, y) => x - y));
    const all = await bulk(
      'bulk',
      { mode: 'filter', filters: { supplier_id: supA, scope: 'all' } },
      s.readWrite,
    );
    expect(all).toEqual({ added: 1, restored: 0, skipped: [] });
    expect(await liveIds(s.id)).toContain(id('A4'));
  });

  it('two identical filter adds at once add each product exactly once', async () => {
    const s = await app.createStore();
    const [one, two] = await Promise.all([
      post<BulkAddMyProductsResponse>('bulk', { mode: 'filter', filters: {} }, s.readWrite),
      post<BulkAddMyProductsResponse>('bulk', { mode: 'filter', filters: {} }, s.readWrite),
    ]);
    expect([one.status, two.status], JSON.stringify([one.body, two.body])).toEqual([200, 200]);
    expect(one.body.added + two.body.added).toBe(VISIBLE_TO_ANY);
    expect(one.body.restored + two.body.restored).toBe(0);
    expect(await liveIds(s.id)).toHaveLength(VISIBLE_TO_ANY);
    const created = (await events(s.id)).map((e) => e.product_id);
    expect(new Set(created).size).toBe(VISIBLE_TO_ANY);
    expect(created).toHaveLength(VISIBLE_TO_ANY);
  });

  it('a filter no product matches adds nothing and enqueues nothing', async () => {
    const s = await app.createStore();
    await clearJobs();
    for (const filters of [
      { complete_for: 'tiktok' },
      { supplier_id: 2_147_483_647 },
      { price_min_cents: 99_999_999 },
    ]) {
      expect(await bulk('bulk', { mode: 'filter', filters }, s.readWrite)).toEqual({
        added: 0,
        restored: 0,
        skipped: [],
      });
    }
    expect(await listings(s.id)).toEqual([]);
    expect(await events(s.id)).toEqual([]);
    expect(await jobs()).toEqual([]);
  });
});

describe('POST /api/v1/my-products/bulk-remove', () => {
  it('ids mode: soft-deletes live listings and reports the rest', async () => {
    const s = await app.createStore();
    const other = await app.createStore();
    const fx = fixtures(app.em());
    await fx.listing(s.id, id('A1'), { customRetail: 2222 });
    await fx.listing(s.id, id('A2'));
    await fx.listing(s.id, id('A3'), { deleted: true });
    await fx.listing(s.id, id('A5'));
    await fx.listing(other.id, id('A1'));
    const deletedBefore = (await listings(s.id)).find((l) => l.product_id === id('A3'))?.deleted_at;

    const body = await bulk(
      'bulk-remove',
      { mode: 'ids', product_ids: [id('A1'), id('A3'), id('A4'), id('A1'), 999_999, id('A2')] },
      s.readWrite,
    );
    expect(body.removed).toBe(2);
    expect(Object.keys(body).sort()).toEqual(['removed', 'skipped']);
    expect(sortSkips(body.skipped)).toEqual(
      sortSkips([
        { product_id: id('A1'), reason: 'duplicate' },
        { product_id: id('A3'), reason: 'not_in_store' },
        { product_id: id('A4'), reason: 'not_in_store' },
        { product_id: 999_999, reason: 'not_in_store' },
      ]),
    );
    const after = await listings(s.id);
    // Soft delete: the rows stay, with deleted_at set; an already removed row keeps its time.
    expect(after.map((l) => [l.product_id, l.live])).toEqual(
      [
        [id('A1'), false],
        [id('A2'), false],
        [id('A3'), false],
        [id('A5'), true],
      ].sort((x, y) => (x[0] as number) - (y[0] as number)),
    );
    expect(after.find((l) => l.product_id === id('A3'))?.deleted_at).toBe(deletedBefore);
    expect(await myProducts(s.read)).toEqual([id('A5')]);
    // Another store's listing of the same product is untouched.
    expect(await liveIds(other.id)).toEqual([id('A1')]);
    const events_ = await events(s.id);
    expect(events_.map((e) => [e.event, e.product_id]).sort()).toEqual(
      [
        ['product.deleted', id('A1')],
        ['product.deleted', id('A2')],
      ].sort(),
    );

    // Adding back restores: the same rows, counted as restored.
    expect(await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('A2')] }, s.readWrite)).toEqual({
      added: 0,
      restored: 2,
      skipped: [],
    });
    const restored = await listings(s.id);
    expect(restored).toHaveLength(4);
    expect(restored.find((l) => l.product_id === id('A1'))).toMatchObject({ live: true, custom: null });
  });

  it('filter mode removes only the live listings whose products match', async () => {
    const s = await app.createStore();
    expect(await bulk('bulk', { mode: 'filter', filters: { supplier_id: supBig } }, s.readWrite)).toEqual({
      added: BIG_N,
      restored: 0,
      skipped: [],
    });
    await fixtures(app.em()).listing(s.id, id('A1'));
    const body = await bulk(
      'bulk-remove',
      { mode: 'filter', filters: { supplier_id: supBig, in_stock: false, price_min_cents: 15000 } },
      s.readWrite,
    );
    const gone = bigIds((m) => !m.inStock && m.retail >= 15000);
    expect(gone).toHaveLength(51);
    expect(body).toEqual({ removed: gone.length, skipped: [] });
    const goneSet = new Set(gone);
    const want = [...bigIds((m) => !goneSet.has(b(m.i))), id('A1')].sort((x, y) => x - y);
    expect(await liveIds(s.id)).toEqual(want);
    expect(
      (await app.get<ListMyProductsResponse>('/api/v1/my-products?limit=1', s.read)).body.pagination
        .total_count,
    ).toBe(want.length);
    const deleted = (await events(s.id)).filter((e) => e.event === 'product.deleted');
    expect(deleted.map((e) => e.product_id).sort((x, y) => x - y)).toEqual(gone);

    // The same filter again finds nothing live.
    expect(
      await bulk(
        'bulk-remove',
        { mode: 'filter', filters: { supplier_id: supBig, in_stock: false, price_min_cents: 15000 } },
        s.readWrite,
      ),
    ).toEqual({ removed: 0, skipped: [] });
  });

  it('filter mode matches on the effective (custom) price and selling mode, as the catalogue does', async () => {
    const s = await app.createStore();
    const fx = fixtures(app.em());
    await fx.listing(s.id, id('A1'), { customRetail: 9000 }); // retail 2000, sells at 9000
    await fx.listing(s.id, id('A2')); // 4000
    await fx.listing(s.id, id('A3'), { customRetail: 3000 }); // retail 6000, sells at 3000
    await fx.listing(s.id, id('A5'));
    await rows(
      app.em(),
      sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${s.id} AND product_id = ${id('A5')}`,
    );
    const inCatalogue = await app.get<ListProductsResponse>(
      `/api/v1/products?supplier_id=${supA}&price_min_cents=5000&limit=50`,
      s.read,
    );
    expect(inCatalogue.body.products.map((p) => p.id).sort()).toEqual([id('A1'), id('A4')].sort());
    expect(
      await bulk(
        'bulk-remove',
        { mode: 'filter', filters: { supplier_id: supA, price_min_cents: 5000 } },
        s.readWrite,
      ),
    ).toEqual({ removed: 1, skipped: [] });
    expect(await liveIds(s.id)).toEqual([id('A2'), id('A3'), id('A5')].sort((x, y) => x - y));
    expect(
      await bulk(
        'bulk-remove',
        { mode: 'filter', filters: { supplier_id: supA, purchase_mode: 'enquiry' } },
        s.readWrite,
      ),
    ).toEqual({ removed: 1, skipped: [] });
    expect(await liveIds(s.id)).toEqual([id('A2'), id('A3')].sort((x, y) => x - y));
  });

  it('ids mode removes a live listing whose product has since left the catalogue', async () => {
    const s = await app.createStore();
    await fixtures(app.em()).listing(s.id, id('AI'));
    expect(await bulk('bulk-remove', { mode: 'ids', product_ids: [id('AI')] }, s.readWrite)).toEqual({
      removed: 1,
      skipped: [],
    });
    expect(await listings(s.id)).toMatchObject([{ product_id: id('AI'), live: false }]);
  });

  it('filters {} clears the whole store, including listings of products since made inactive', async () => {
    const s = await app.createStore();
    const fx = fixtures(app.em());
    await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('A2'), b(1), b(2)] }, s.readWrite);
    await fx.listing(s.id, id('AI'));
    await fx.listing(s.id, id('A3'), { deleted: true });
    const deletedBefore = (await listings(s.id)).find((l) => l.product_id === id('A3'))?.deleted_at;

    expect(await bulk('bulk-remove', { mode: 'filter', filters: {} }, s.readWrite)).toEqual({
      removed: 5,
      skipped: [],
    });
    const after = await listings(s.id);
    expect(after).toHaveLength(6);
    expect(after.filter((l) => l.live)).toEqual([]);
    expect(after.find((l) => l.product_id === id('A3'))?.deleted_at).toBe(deletedBefore);
    expect((await app.get<ListMyProductsResponse>('/api/v1/my-products', s.read)).body.pagination).toEqual({
      page: 1,
      limit: 20,
      total_count: 0,
      total_pages: 0,
    });
  });

  it('filters {} clears the whole store even when its default catalogue scope is `store`', async () => {
    const s = await app.createStore();
    await fixtures(app.em()).setStoreScope(s.id, 'store');
    // Scope is a read filter, never a permission: ids mode lists A4 (categorised, out of scope).
    expect(await bulk('bulk', { mode: 'ids', product_ids: [id('A4'), id('A5')] }, s.readWrite)).toEqual({
      added: 2,
      restored: 0,
      skipped: [],
    });
    const body = await bulk('bulk-remove', { mode: 'filter', filters: {} }, s.readWrite);
    expect(await liveIds(s.id)).toEqual([]);
    expect(body).toEqual({ removed: 2, skipped: [] });
  });

  it('a full add / clear / re-add round trip over the whole catalogue', async () => {
    const s = await app.createStore();
    expect(await bulk('bulk', { mode: 'filter', filters: {} }, s.readWrite)).toEqual({
      added: VISIBLE_TO_ANY,
      restored: 0,
      skipped: [],
    });
    expect(await bulk('bulk-remove', { mode: 'filter', filters: {} }, s.readWrite)).toEqual({
      removed: VISIBLE_TO_ANY,
      skipped: [],
    });
    expect(await myProducts(s.read)).toEqual([]);
    expect(await bulk('bulk', { mode: 'filter', filters: {} }, s.readWrite)).toEqual({
      added: 0,
      restored: VISIBLE_TO_ANY,
      skipped: [],
    });
    expect(await myProducts(s.read)).toHaveLength(VISIBLE_TO_ANY);
    const counts = await rows<{ event: string; n: number }>(
      app.em(),
      sql`SELECT event, count(*)::integer AS n FROM domain_events WHERE store_id = ${s.id} GROUP BY event ORDER BY event`,
    );
    expect(counts).toEqual([
      { event: 'product.created', n: 2 * VISIBLE_TO_ANY },
      { event: 'product.deleted', n: VISIBLE_TO_ANY },
    ]);
  });
});

describe('bulk: bad input is a 400 that changes nothing', () => {
  const many = Array.from({ length: 501 }, (_, k) => k + 1);
  const cases: [string, unknown, string][] = [
    ['no mode', { product_ids: [1] }, 'mode'],
    ['an unknown mode', { mode: 'all', product_ids: [1] }, 'mode'],
    ['mode ids without product_ids', { mode: 'ids' }, 'product_ids'],
    ['mode ids with filters only', { mode: 'ids', filters: {} }, 'product_ids'],
    ['empty product_ids', { mode: 'ids', product_ids: [] }, 'product_ids'],
    ['501 product_ids', { mode: 'ids', product_ids: many }, 'product_ids'],
    ['product_ids not an array', { mode: 'ids', product_ids: 5 }, 'product_ids'],
    ['a string id', { mode: 'ids', product_ids: [1, 'a'] }, 'product_ids.1'],
    ['a fractional id', { mode: 'ids', product_ids: [1.5] }, 'product_ids.0'],
    ['a zero id', { mode: 'ids', product_ids: [0] }, 'product_ids.0'],
    ['a negative id', { mode: 'ids', product_ids: [-3] }, 'product_ids.0'],
    ['an id beyond integer range', { mode: 'ids', product_ids: [2_147_483_648] }, 'product_ids.0'],
    ['a null id', { mode: 'ids', product_ids: [null] }, 'product_ids.0'],
    ['mode filter without filters', { mode: 'filter' }, 'filters'],
    ['mode filter with product_ids only', { mode: 'filter', product_ids: [1] }, 'filters'],
    ['filters not an object', { mode: 'filter', filters: 'all' }, 'filters'],
    [
      'a negative price bound',
      { mode: 'filter', filters: { price_min_cents: -1 } },
      'filters.price_min_cents',
    ],
    [
      'a fractional price bound',
      { mode: 'filter', filters: { price_max_cents: 10.5 } },
      'filters.price_max_cents',
    ],
    ['a bad complete_for', { mode: 'filter', filters: { complete_for: 'Bad' } }, 'filters.complete_for'],
    // A misspelt filter would otherwise vanish and leave `{}`, which matches (and removes) everything.
    ['a misspelt filter key', { mode: 'filter', filters: { suplier_id: 5 } }, 'filters.suplier_id'],
    ['a paging key among the filters', { mode: 'filter', filters: { limit: 5 } }, 'filters.limit'],
    ['an unknown top-level key', { mode: 'ids', product_ids: [1], dry_run: true }, 'dry_run'],
    ['a non-boolean in_stock', { mode: 'filter', filters: { in_stock: 'yes' } }, 'filters.in_stock'],
    [
      'an unknown pricing_type',
      { mode: 'filter', filters: { pricing_type: 'free' } },
      'filters.pricing_type',
    ],
    ['an unknown scope', { mode: 'filter', filters: { scope: 'mine' } }, 'filters.scope'],
    ['a zero supplier_id', { mode: 'filter', filters: { supplier_id: 0 } }, 'filters.supplier_id'],
    ['an over-long search', { mode: 'filter', filters: { search: 'x'.repeat(101) } }, 'filters.search'],
  ];

  let s: StoreKeys;
  let before: ListingRow[];
  beforeAll(async () => {
    s = await app.createStore();
    // Live listings a wrong remove would delete, and a removed one a wrong add would restore.
    await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('A2'), b(1)] }, s.readWrite);
    await bulk('bulk-remove', { mode: 'ids', product_ids: [b(1)] }, s.readWrite);
    await rows(app.em(), sql`DELETE FROM domain_events WHERE store_id = ${s.id}`);
    before = await listings(s.id);
  });

  for (const path of ['bulk', 'bulk-remove'] as const) {
    it.each(cases)(`${path}: %s → 400 at %s`, async (_label, body, detailPath) => {
      await clearJobs();
      const res = await post<ErrorBody>(path, body, s.readWrite);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({
        error: 'bad_request',
        code: 'VALIDATION_FAILED',
        message: expect.any(String),
        request_id: res.headers.get('x-request-id'),
      });
      expect(res.body.details?.map((d) => d.path)).toContain(detailPath);
      expect(await listings(s.id)).toEqual(before);
      expect(await events(s.id)).toEqual([]);
      expect(await jobs()).toEqual([]);
    });

    it(`${path}: a body that is not JSON, an empty body, or no JSON content type → 4xx, nothing changed`, async () => {
      await clearJobs();
      const json = { 'content-type': 'application/json' };
      const attempts: [unknown, Record<string, string>, number][] = [
        ['{"mode": "ids", "product_ids": [1', json, 400],
        ['', json, 400],
        [undefined, json, 400],
        // No body and no media type is an empty body: 400, not 415.
        [undefined, {}, 400],
      ];
      for (const [body, headers, status] of attempts) {
        const res = await post(path, body, s.readWrite, headers);
        expect(res.status, `${String(body)}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body).toMatchObject({ error: 'bad_request', request_id: res.headers.get('x-request-id') });
      }
      expect(await listings(s.id)).toEqual(before);
      expect(await events(s.id)).toEqual([]);
      expect(await jobs()).toEqual([]);
    });
  }
});

describe('bulk: security', () => {
  let s: StoreKeys;
  let before: ListingRow[];
  beforeAll(async () => {
    s = await app.createStore();
    await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('A2')] }, s.readWrite);
    await bulk('bulk-remove', { mode: 'ids', product_ids: [id('A2')] }, s.readWrite);
    await rows(app.em(), sql`DELETE FROM domain_events WHERE store_id = ${s.id}`);
    before = await listings(s.id);
  });

  const bodies: Record<BulkPath, unknown[]> = {
    bulk: [
      { mode: 'ids', product_ids: [1, 2] },
      { mode: 'filter', filters: {} },
    ],
    'bulk-remove': [
      { mode: 'ids', product_ids: [1, 2] },
      { mode: 'filter', filters: {} },
    ],
  };

  for (const path of ['bulk', 'bulk-remove'] as const) {
    it(`${path}: a read key → 403 INSUFFICIENT_SCOPE, before validation; nothing changed`, async () => {
      await clearJobs();
      for (const body of [...bodies[path], { mode: 'ids', product_ids: [] }]) {
        const res = await post(path, body, s.read);
        expect(res.status, JSON.stringify(res.body)).toBe(403);
        expect(res.body).toEqual({
          error: 'forbidden',
          code: 'INSUFFICIENT_SCOPE',
          required_scope: 'read_write',
          message: expect.any(String),
          doc_url: 'http://stockless.test/docs/errors/INSUFFICIENT_SCOPE',
          request_id: res.headers.get('x-request-id'),
        });
      }
      expect(await listings(s.id)).toEqual(before);
      expect(await events(s.id)).toEqual([]);
      expect(await jobs()).toEqual([]);
    });

    it(`${path}: no key or an unknown key → 401 with WWW-Authenticate; nothing changed`, async () => {
      await clearJobs();
      for (const key of [undefined, 'not-a-key', `sl_test_${'a'.repeat(40)}`]) {
        for (const body of bodies[path]) {
          const res = await post(path, body, key);
          expect(res.status, JSON.stringify(res.body)).toBe(401);
          expect(res.body).toMatchObject({
            error: 'unauthorized',
            request_id: res.headers.get('x-request-id'),
          });
          expect(res.headers.get('www-authenticate')).toBe(
            'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
          );
        }
      }
      expect(await listings(s.id)).toEqual(before);
      expect(await events(s.id)).toEqual([]);
      expect(await jobs()).toEqual([]);
    });
  }

  it("a key acts on its own store only: removing by filter never touches another store's listings", async () => {
    const other = await app.createStore();
    await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('A3')] }, other.readWrite);
    expect(await bulk('bulk-remove', { mode: 'filter', filters: {} }, other.readWrite)).toEqual({
      removed: 2,
      skipped: [],
    });
    expect(await listings(s.id)).toEqual(before);
  });
});

describe('bulk: all or nothing when the database fails part way', () => {
  let s: StoreKeys;
  beforeAll(async () => {
    s = await app.createStore();
    await rows(
      app.em(),
      sql`CREATE TABLE test_poison (product_id bigint PRIMARY KEY);
        CREATE FUNCTION test_poison_event() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM test_poison WHERE product_id = NEW.entity_id) THEN
            RAISE EXCEPTION 'poisoned event for %', NEW.entity_id;
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER test_poison_event BEFORE INSERT ON domain_events
          FOR EACH ROW EXECUTE FUNCTION test_poison_event();
        CREATE TABLE test_fail_jobs (on_ boolean);
        CREATE FUNCTION test_fail_job() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM test_fail_jobs) THEN RAISE EXCEPTION 'job queue refused'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER test_fail_job BEFORE INSERT OR UPDATE ON graphile_worker._private_jobs
          FOR EACH ROW EXECUTE FUNCTION test_fail_job();`,
    );
  });
  afterAll(async () => {
    await rows(
      app.em(),
      sql`DROP TRIGGER test_poison_event ON domain_events; DROP FUNCTION test_poison_event(); DROP TABLE test_poison;
        DROP TRIGGER test_fail_job ON graphile_worker._private_jobs; DROP FUNCTION test_fail_job();
        DROP TABLE test_fail_jobs;`,
    );
  });

  async function expect500(path: BulkPath, body: unknown) {
    const res = await post(path, body, s.readWrite);
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(res.body).toEqual({
      error: 'server_error',
      code: 'INTERNAL_ERROR',
      message: 'Internal server error',
      doc_url: 'http://stockless.test/docs/errors/INTERNAL_ERROR',
      request_id: res.headers.get('x-request-id'),
    });
  }

  it('an add that fails on its last product writes no listing, restores nothing, and emits nothing', async () => {
    const fx = fixtures(app.em());
    await fx.listing(s.id, id('A2'), { customRetail: 4444, deleted: true });
    const before = await listings(s.id);
    await rows(app.em(), sql`INSERT INTO test_poison VALUES (${id('A3')})`);
    try {
      await clearJobs();
      await expect500('bulk', { mode: 'ids', product_ids: [id('A1'), id('A2'), id('A3')] });
      await expect500('bulk', { mode: 'filter', filters: { supplier_id: supA } });
      expect(await listings(s.id)).toEqual(before);
      expect(await events(s.id)).toEqual([]);
      expect(await jobs()).toEqual([]);
    } finally {
      await rows(app.em(), sql`DELETE FROM test_poison`);
    }
  });

  it('a remove that fails on one product removes none', async () => {
    await bulk('bulk', { mode: 'ids', product_ids: [id('A1'), id('A2'), id('A3')] }, s.readWrite);
    await rows(app.em(), sql`DELETE FROM domain_events WHERE store_id = ${s.id}`);
    const before = await listings(s.id);
    expect(before.filter((l) => l.live)).toHaveLength(3);
    await rows(app.em(), sql`INSERT INTO test_poison VALUES (${id('A2')})`);
    try {
      await clearJobs();
      await expect500('bulk-remove', { mode: 'ids', product_ids: [id('A1'), id('A2'), id('A3')] });
      await expect500('bulk-remove', { mode: 'filter', filters: {} });
      expect(await listings(s.id)).toEqual(before);
      expect(await events(s.id)).toEqual([]);
      expect(await jobs()).toEqual([]);
    } finally {
      await rows(app.em(), sql`DELETE FROM test_poison`);
    }
  });

  it('when the dispatcher job cannot be enqueued, the listings and events roll back too', async () => {
    const t = await app.createStore();
    await fixtures(app.em()).listing(t.id, id('A1'));
    const before = await listings(t.id);
    await clearJobs();
    await rows(app.em(), sql`INSERT INTO test_fail_jobs VALUES (true)`);
    try {
      const add = await post('bulk', { mode: 'ids', product_ids: [id('A2'), id('A3')] }, t.readWrite);
      expect(add.status).toBe(500);
      const remove = await post('bulk-remove', { mode: 'filter', filters: {} }, t.readWrite);
      expect(remove.status).toBe(500);
      expect(await listings(t.id)).toEqual(before);
      expect(await events(t.id)).toEqual([]);
    } finally {
      await rows(app.em(), sql`DELETE FROM test_fail_jobs`);
    }
    // With the queue back, the same call goes through and the job is there.
    expect(await bulk('bulk', { mode: 'ids', product_ids: [id('A2'), id('A3')] }, t.readWrite)).toEqual({
      added: 2,
      restored: 0,
      skipped: [],
    });
    expect(await jobs()).toEqual(DISPATCH_JOB);
  });
});

describe('bulk by filter, in batches', () => {
  // The same pre-state in two stores: live B101, B102 and B50; removed B110 (custom price) and B20.
  async function prepared() {
    const s = await app.createStore();
    const fx = fixtures(app.em());
    for (const i of [101, 102, 50]) await fx.listing(s.id, b(i));
    for (const i of [110, 20]) await fx.listing(s.id, b(i), { customRetail: 55555, deleted: true });
    return s;
  }
  const state = async (storeId: number) => ({
    listings: (await listings(storeId)).map(({ product_id, live, custom }) => ({ product_id, live, custom })),
    events: (await events(storeId)).map(({ event, product_id }) => `${event} ${product_id}`).sort(),
  });
  const filters = { price_min_cents: 1500, in_stock: true };

  it('id ranges of 7 leave what one range leaves: listings, restorations, events and the answer', async () => {
    const whole = await prepared();
    const batched = await prepared();
    const f = { ...filters, supplier_id: supBig };
    const one = await bulk('bulk', { mode: 'filter', filters: f }, whole.readWrite);
    const many = await bulkAddByFilter(app.em(), batched.id, f, 7);
    expect(many).toEqual(one);
    expect(one.added).toBeGreaterThan(7 * 10);
    expect(await state(batched.id)).toEqual(await state(whole.id));

    const removeFilters = { supplier_id: supBig, price_max_cents: 20000 };
    const gone = await bulk('bulk-remove', { mode: 'filter', filters: removeFilters }, whole.readWrite);
    const goneBatched = await bulkRemoveByFilter(app.em(), batched.id, removeFilters, 7);
    expect(goneBatched).toEqual(gone);
    expect(gone.removed).toBeGreaterThan(7 * 10);
    expect(await state(batched.id)).toEqual(await state(whole.id));
  });

  it('a failure part-way keeps the batches before it, each listing with its event, and a retry completes', async () => {
    const s = await prepared();
    const f = { ...filters, supplier_id: supBig };
    const all = bigIds((m) => m.retail >= 1500 && m.inStock);
    // What the call has to add or restore: every match but the three already live.
    const candidates = all.filter((id) => ![b(101), b(102), b(50)].includes(id));
    const failAt = candidates[40] as number;
    await rows(
      app.em(),
      sql.raw(`CREATE FUNCTION test_refuse_listing() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.store_id = ${s.id} AND NEW.product_id = ${failAt} THEN RAISE EXCEPTION 'refused'; END IF;
        RETURN NEW; END $$;
        CREATE TRIGGER test_refuse_listing BEFORE INSERT ON listings FOR EACH ROW EXECUTE FUNCTION test_refuse_listing();`),
    );
    try {
      await expect(bulkAddByFilter(app.em(), s.id, f, 10)).rejects.toThrow();
    } finally {
      await rows(
        app.em(),
        sql`DROP TRIGGER test_refuse_listing ON listings; DROP FUNCTION test_refuse_listing()`,
      );
    }
    // Id ranges are taken in order: the ranges before the failing one committed whole, each listing
    // with its event, and nothing of the failing range or after it.
    const first = await state(s.id);
    const added = first.events.filter((e) => e.startsWith('product.created'));
    const live = first.listings
      .filter((l) => l.live && candidates.includes(l.product_id))
      .map((l) => l.product_id);
    expect(live.length).toBeGreaterThan(20);
    expect(live).toEqual(candidates.slice(0, live.length));
    expect(live).not.toContain(failAt);
    expect(added.map((e) => Number(e.split(' ')[1])).sort((x, y) => x - y)).toEqual(live);

    const retry = await bulk('bulk', { mode: 'filter', filters: f }, s.readWrite);
    const end = await state(s.id);
    const created = end.events.filter((e) => e.startsWith('product.created'));
    expect(new Set(created).size).toBe(created.length);
    expect(retry.added + retry.restored + live.length).toBe(candidates.length);
    expect(end.listings.filter((l) => l.live && all.includes(l.product_id))).toHaveLength(all.length);
  });
});
