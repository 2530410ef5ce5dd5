import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, ListProductsResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { isStatus } from '../helpers/http.ts';

/**
 * GET /api/v1/products over HTTP against exact catalogue data.
 *
 * Stores:
 * - S: the main store; no own suppliers, default scope (all). Has listings on P1 (custom 30000,
 *   enquiry mode), P3 (custom 13000), P5 (no custom price) and a soft-deleted one on P4 (custom 9999).
 * - T: default scope switched to `store`; departments [living-room], makers [supplier C]; owns supplier
 *   T with one product PT (category lamps, reachable only through the own-goods clause).
 * - O: owns supplier O with one active product PO and one inactive one.
 * - X: owns supplier X with product PX; nobody else may ever see it.
 * - M: like S but with a minimum margin of 25.01% and no listings.
 */

let app: TestApp;
type StoreKeys = Awaited<ReturnType<TestApp['createStore']>>;
let S: StoreKeys;
let T: StoreKeys;
let O: StoreKeys;
let X: StoreKeys;
let M: StoreKeys;

const ids: Record<string, number> = {};
let supA: number;
let supB: number;
let supC: number;
let supO: number;
let supX: number;
let supEmpty: number;

/** What S sees of each visible product: the expected values of the list item. */
interface Row {
  key: string;
  name: string;
  sku: string;
  created: string;
  updated: string;
  stock: number;
  retail: number;
  wholesale: number;
  /** Earn per sale for store S (effective retail). */
  earn: number;
  readiness: number;
  recommended: number;
}
const MODEL: Row[] = [
  // key, name, sku, created, updated, stock, retail, wholesale, earn (for S), readiness, recommended
  row('P1', 'Oak Dining Table', 'OAK-TBL-001', '2026-01-05', '2026-01-05', 7, 25000, 10000, 20000, 100, 900),
  row('P2', 'Walnut Coffee Table', 'WAL-CT-002', '2026-01-02', '2026-01-02', 0, 16000, 8000, 8000, 60, 300),
  row('P3', 'Brass Floor Lamp', 'BRS-LMP-003', '2026-01-04', '2026-01-04', 10, 12345, 0, 1950, 90, 700),
  row('P4', 'Pendant Light Shade', 'PND-SHD-004', '2026-01-01', '2026-03-01', 0, 5000, 2000, 3000, 40, 100),
  row('P5', 'Velvet Cushion', 'VLV-CSH-005', '2026-01-06', '2026-01-06', 2, 3000, 1000, 2000, 20, 200),
  row('P6', 'Table Runner Linen', 'LIN-RUN-006', '2026-01-03', '2026-01-03', 1, 1001, 0, 501, 0, 50),
  row('P7', 'Ceramic Lamp Base', 'CER-LMP-007', '2026-01-07', '2026-01-07', 4, 4500, 1500, 3000, 10, 600),
];
const VISIBLE_TO_S = MODEL.map((r) => r.key);

function row(
  key: string,
  name: string,
  sku: string,
  created: string,
  updated: string,
  stock: number,
  retail: number,
  wholesale: number,
  earn: number,
  readiness: number,
  recommended: number,
): Row {
  return { key, name, sku, created, updated, stock, retail, wholesale, earn, readiness, recommended };
}

const model = (key: string) => {
  const r = MODEL.find((m) => m.key === key);
  if (!r) throw new Error(`no model row ${key}`);
  return r;
};

/** The default order (created_at desc, id desc) of the given keys, as ids. */
function byDefault(keys: string[]): number[] {
  return [...keys]
    .sort((a, b) => {
      const c = model(b).created.localeCompare(model(a).created);
      return c !== 0 ? c : (ids[b] ?? 0) - (ids[a] ?? 0);
    })
    .map(id);
}

function id(key: string): number {
  const v = ids[key];
  if (v === undefined) throw new Error(`no fixture ${key}`);
  return v;
}

async function list(query: string, key: string = S.read) {
  const res = await app.get<ListProductsResponse>(`/api/v1/products${query ? `?${query}` : ''}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The ids (in answer order) of every product the query returns; asserts total_count agrees. */
async function listIds(query: string, key: string = S.read): Promise<number[]> {
  const body = await list(`limit=500${query ? `&${query}` : ''}`, key);
  const got = body.products.map((p) => p.id);
  expect(body.pagination.total_count).toBe(got.length);
  return got;
}

async function expectError(query: string, path: string) {
  const res = await app.get<ErrorBody>(`/api/v1/products?${query}`, S.read);
  expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body).toEqual({
    error: 'bad_request',
    code: 'VALIDATION_FAILED',
    message: expect.any(String),
    details: expect.arrayContaining([{ path, message: expect.any(String) }]),
    doc_url: 'http://stockless.test/docs/errors/VALIDATION_FAILED',
    request_id: res.headers.get('x-request-id'),
  });
  expect(res.body.details).toHaveLength(1);
  expect(res.body.request_id).toMatch(/^req_/);
  return res.body;
}

beforeAll(async () => {
  app = await startTestApp();
  S = await app.createStore('Store S');
  T = await app.createStore('Store T');
  O = await app.createStore('Store O');
  X = await app.createStore('Store X');
  M = await app.createStore('Store M');
  const em = app.em();
  const fx = fixtures(em);

  const furniture = await fx.storeType('furniture', 'Furniture');
  const lighting = await fx.storeType('lighting', 'Lighting');
  const living = await fx.category({ slug: 'living-room', name: 'Living Room', storeTypeId: furniture });
  const tables = await fx.category({
    slug: 'tables',
    name: 'Tables',
    parentId: living,
    storeTypeId: furniture,
  });
  const lamps = await fx.category({ slug: 'lamps', name: 'Lamps', storeTypeId: lighting });
  const misc = await fx.category({ slug: 'misc', name: 'Misc' });
  const acme = await fx.brand('Acme Home');
  const nordic = await fx.brand('Nordic Light');
  supA = await fx.supplier({ name: 'Supplier A' });
  supB = await fx.supplier({ name: 'Supplier B' });
  supC = await fx.supplier({ name: 'Supplier C' });
  supEmpty = await fx.supplier({ name: 'Supplier Empty' });
  const supT = await fx.supplier({ name: 'Own T', ownerStoreId: T.id });
  supO = await fx.supplier({ name: 'Own O', ownerStoreId: O.id });
  supX = await fx.supplier({ name: 'Own X', ownerStoreId: X.id });

  const at = (d: string) => `${d}T00:00:00Z`;
  ids.P1 = await fx.product({
    name: 'Oak Dining Table',
    description: 'Solid oak dining table for six.',
    sku: 'OAK-TBL-001',
    supplierId: supA,
    brandId: acme,
    categoryId: tables,
    wholesale: 10000,
    retail: 25000,
    stock: [3, 4],
    createdAt: at('2026-01-05'),
    readyToList: true,
    readinessScore: 100,
    recommendedScore: 900,
    completeness: { storefront: 100, google: 83 },
    weightOz: 12.5,
  });
  ids.P2 = await fx.product({
    name: 'Walnut Coffee Table',
    description: 'Low walnut coffee table.',
    sku: 'WAL-CT-002',
    supplierId: supA,
    brandId: acme,
    categoryId: living,
    wholesale: 8000,
    retail: 16000,
    stock: [0],
    createdAt: at('2026-01-02'),
    readinessScore: 60,
    recommendedScore: 300,
    completeness: { storefront: 60, google: 100 },
  });
  ids.P3 = await fx.product({
    name: 'Brass Floor Lamp',
    description: 'A tall brass lamp.',
    sku: 'BRS-LMP-003',
    supplierId: supB,
    brandId: nordic,
    categoryId: lamps,
    pricingType: 'commission',
    commissionBps: 1500,
    wholesale: 0,
    retail: 12345,
    stock: [10],
    purchaseMode: 'enquiry',
    createdAt: at('2026-01-04'),
    readyToList: true,
    readinessScore: 90,
    recommendedScore: 700,
    completeness: { storefront: 100 },
  });
  ids.P4 = await fx.product({
    name: 'Pendant Light Shade',
    description: 'Paper shade.',
    sku: 'PND-SHD-004',
    supplierId: supB,
    categoryId: misc,
    wholesale: 2000,
    retail: 5000,
    stock: [0, 0],
    createdAt: at('2026-01-01'),
    readinessScore: 40,
    recommendedScore: 100,
    completeness: { freight: 99 },
  });
  ids.P5 = await fx.product({
    name: 'Velvet Cushion',
    description: 'Soft cushion that looks good beside any table.',
    sku: 'VLV-CSH-005',
    supplierId: supA,
    categoryRaw: 'Soft Furnishings',
    wholesale: 1000,
    retail: 3000,
    stock: [2],
    purchaseMode: 'enquiry',
    createdAt: at('2026-01-06'),
    readinessScore: 20,
    recommendedScore: 200,
  });
  ids.P6 = await fx.product({
    name: 'Table Runner Linen',
    description: 'A linen table runner to dress a long table.',
    sku: 'LIN-RUN-006',
    supplierId: supC,
    pricingType: 'commission',
    commissionBps: 5000,
    wholesale: 0,
    retail: 1001,
    stock: [1],
    createdAt: at('2026-01-03'),
    readinessScore: 0,
    recommendedScore: 50,
    weightOz: null,
  });
  ids.P7 = await fx.product({
    name: 'Ceramic Lamp Base',
    description: 'Glazed ceramic base.',
    sku: 'CER-LMP-007',
    supplierId: supC,
    brandId: nordic,
    categoryId: lamps,
    wholesale: 1500,
    retail: 4500,
    stock: [4],
    createdAt: at('2026-01-07'),
    readinessScore: 10,
    recommendedScore: 600,
  });
  // Never visible to S: newest of all, and matching the common searches, so a leak shows at once.
  ids.PI = await fx.product({
    name: 'Oak Side Table',
    sku: 'OAK-SIDE-INACTIVE',
    supplierId: supA,
    brandId: acme,
    categoryId: tables,
    active: false,
    stock: [9],
    createdAt: at('2026-02-01'),
    readyToList: true,
    completeness: { storefront: 100 },
  });
  ids.PX = await fx.product({
    name: 'Oak Stool Table',
    sku: 'OAK-STOOL-X',
    supplierId: supX,
    brandId: acme,
    categoryId: tables,
    stock: [3],
    createdAt: at('2026-02-02'),
  });
  ids.PT = await fx.product({
    name: 'Teak Table Lamp',
    sku: 'TEAK-LMP-T',
    supplierId: supT,
    categoryId: lamps,
    stock: [6],
    createdAt: at('2026-02-03'),
  });
  ids.PO = await fx.product({
    name: 'Own Oak Table',
    sku: 'OWN-OAK-O',
    supplierId: supO,
    categoryId: misc,
    stock: [8],
    createdAt: at('2026-02-04'),
  });
  ids.POI = await fx.product({
    name: 'Own Inactive Table',
    sku: 'OWN-INACTIVE-O',
    supplierId: supO,
    active: false,
    stock: [8],
    createdAt: at('2026-02-05'),
  });

  await fx.listing(S.id, id('P1'), { customRetail: 30000 });
  await fx.listing(S.id, id('P3'), { customRetail: 13000 });
  await fx.listing(S.id, id('P5'));
  await fx.listing(S.id, id('P4'), { customRetail: 9999, deleted: true });
  // S sells P1 quote-only.
  await rows(
    em,
    sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${S.id} AND product_id = ${id('P1')}`,
  );
  // P4 was edited after the others were created.
  await rows(em, sql`UPDATE products SET updated_at = '2026-03-01T00:00:00Z' WHERE id = ${id('P4')}`);

  await fx.setStoreScope(T.id, 'store');
  await fx.department(T.id, living);
  await fx.maker(T.id, supC);

  await rows(em, sql`UPDATE stores SET min_margin_bps = 2501 WHERE id = ${M.id}`);
});
afterAll(() => app?.close());

describe('GET /api/v1/products: visibility', () => {
  it('shows exactly the active catalogue products, newest first by default', async () => {
    expect(await listIds('')).toEqual(byDefault(VISIBLE_TO_S));
  });

  it('never shows inactive products or another store’s own goods, whatever the filter', async () => {
    const hidden = [id('PI'), id('PX'), id('PT'), id('PO'), id('POI')];
    for (const q of [
      '',
      'search=oak',
      'search=table',
      'search=stool',
      `supplier_id=${supX}`,
      `supplier_id=${supO}`,
      'category=tables',
      'brand=acme-home',
      'in_stock=true',
      'ready_to_list=true',
      'complete_for=storefront',
      'scope=all',
      'ownership=own',
    ]) {
      const got = await listIds(q);
      for (const h of hidden) expect(got, q).not.toContain(h);
    }
    expect(await listIds(`supplier_id=${supX}`)).toEqual([]);
    expect(await listIds('search=stool')).toEqual([]);
    expect(await listIds('search=teak')).toEqual([]);
  });
});

describe('GET /api/v1/products: item fields', () => {
  it('returns every field of the contract, computed for the store', async () => {
    const body = await list('limit=500');
    const p1 = body.products.find((p) => p.id === id('P1'));
    expect(p1).toEqual({
      id: id('P1'),
      name: 'Oak Dining Table',
      description: 'Solid oak dining table for six.',
      sku: 'OAK-TBL-001',
      wholesale_price_cents: 10000,
      retail_price_cents: 25000,
      custom_retail_price_cents: 30000,
      image_url: expect.stringMatching(/^https:\/\/img\.example\/\d+\.jpg$/),
      in_stock: true,
      stock_quantity: 7,
      metadata: { category: 'Tables', weight_oz: 12.5 },
      earn_per_sale_cents: 20000,
      minimum_price_cents: 10000,
      brand: 'Acme Home',
      supplier_id: supA,
      pricing_type: 'wholesale',
      purchase_mode: 'enquiry',
      in_store: true,
      created_at: '2026-01-05T00:00:00.000Z',
      updated_at: '2026-01-05T00:00:00.000Z',
    });
  });

  it('computes earn per sale, minimum price, listing fields, stock and metadata per product', async () => {
    const body = await list('limit=500');
    const byId = new Map<number, Record<string, unknown>>(body.products.map((p) => [p.id, p]));
    const pick = (key: string) => {
      const p = byId.get(id(key));
      if (!p) throw new Error(`${key} missing`);
      return {
        custom: p.custom_retail_price_cents,
        in_store: p.in_store,
        earn: p.earn_per_sale_cents,
        minimum: p.minimum_price_cents,
        in_stock: p.in_stock,
        stock: p.stock_quantity,
        metadata: p.metadata,
        pricing_type: p.pricing_type,
        purchase_mode: p.purchase_mode,
        brand: p.brand,
        updated_at: p.updated_at,
      };
    };
    // Wholesale, listed with a custom price: earn = custom − wholesale.
    expect(pick('P1')).toMatchObject({ custom: 30000, in_store: true, earn: 20000, minimum: 10000 });
    // Wholesale, not listed: earn = suggested − wholesale; out of stock with one empty variant.
    expect(pick('P2')).toEqual({
      custom: null,
      in_store: false,
      earn: 8000,
      minimum: 8000,
      in_stock: false,
      stock: 0,
      metadata: { category: 'Living Room', weight_oz: 10 },
      pricing_type: 'wholesale',
      purchase_mode: 'buy_now',
      brand: 'Acme Home',
      updated_at: '2026-01-02T00:00:00.000Z',
    });
    // Commission, listed at 13000: earn = round(13000 × 1500 / 10000); minimum = suggested retail.
    expect(pick('P3')).toEqual({
      custom: 13000,
      in_store: true,
      earn: 1950,
      minimum: 12345,
      in_stock: true,
      stock: 10,
      metadata: { category: 'Lamps', weight_oz: 10 },
      pricing_type: 'commission',
      purchase_mode: 'enquiry',
      brand: 'Nordic Light',
      updated_at: '2026-01-04T00:00:00.000Z',
    });
    // A soft-deleted listing is no listing: no custom price, not in store, earn on suggested retail.
    expect(pick('P4')).toEqual({
      custom: null,
      in_store: false,
      earn: 3000,
      minimum: 2000,
      in_stock: false,
      stock: 0,
      metadata: { category: 'Misc', weight_oz: 10 },
      pricing_type: 'wholesale',
      purchase_mode: 'buy_now',
      brand: null,
      updated_at: '2026-03-01T00:00:00.000Z',
    });
    // Listed without a custom price; category only as a raw value.
    expect(pick('P5')).toMatchObject({
      custom: null,
      in_store: true,
      earn: 2000,
      minimum: 1000,
      in_stock: true,
      stock: 2,
      metadata: { category: 'Soft Furnishings', weight_oz: 10 },
      purchase_mode: 'enquiry',
    });
    // Commission rounding: 1001 × 5000 / 10000 = 500.5 → 501 (rounded, not truncated).
    expect(pick('P6')).toMatchObject({
      custom: null,
      in_store: false,
      earn: 501,
      minimum: 1001,
      stock: 1,
      metadata: { category: null, weight_oz: null },
      pricing_type: 'commission',
    });
    for (const r of MODEL) {
      const p = byId.get(id(r.key));
      expect(p, r.key).toMatchObject({
        name: r.name,
        sku: r.sku,
        retail_price_cents: r.retail,
        wholesale_price_cents: r.wholesale,
        earn_per_sale_cents: r.earn,
        stock_quantity: r.stock,
        in_stock: r.stock > 0,
        created_at: `${r.created}T00:00:00.000Z`,
        updated_at: `${r.updated}T00:00:00.000Z`,
      });
    }
  });

  it('uses the browsing store’s own min margin and listings, not another store’s', async () => {
    const body = await list('limit=500', M.read);
    const got = Object.fromEntries(
      body.products.map(
        (p: {
          id: number;
          minimum_price_cents: number;
          earn_per_sale_cents: number;
          in_store: boolean;
          custom_retail_price_cents: number | null;
          purchase_mode: string;
        }) => [
          p.id,
          [
            p.minimum_price_cents,
            p.earn_per_sale_cents,
            p.in_store,
            p.custom_retail_price_cents,
            p.purchase_mode,
          ],
        ],
      ),
    );
    expect(got).toEqual({
      // wholesale: wholesale × 1.2501 rounded up, so the margin never falls below the minimum;
      // commission: suggested retail. Earn on suggested retail (M has no listings).
      [id('P1')]: [12501, 15000, false, null, 'buy_now'],
      [id('P2')]: [10001, 8000, false, null, 'buy_now'], // 10000.8
      [id('P3')]: [12345, 1852, false, null, 'enquiry'], // earn round(12345 × 0.15 = 1851.75)
      [id('P4')]: [2501, 3000, false, null, 'buy_now'], // 2500.2
      [id('P5')]: [1251, 2000, false, null, 'enquiry'], // 1250.1
      [id('P6')]: [1001, 501, false, null, 'buy_now'],
      [id('P7')]: [1876, 3000, false, null, 'buy_now'], // 1875.15
    });
  });
});

describe('GET /api/v1/products: search', () => {
  it('matches whole words by full text, most relevant first', async () => {
    // "table" in the name (weight A) beats "table" only in the description (weight C); the
    // runner mentions it in the name and twice in the description.
    expect(await listIds('search=table')).toEqual([id('P6'), id('P1'), id('P2'), id('P5')]);
    expect(await listIds('search=lamp')).toEqual([id('P3'), id('P7')]);
    expect(await listIds('search=oak%20table')).toEqual([id('P1')]);
    expect(await listIds('search=OAK')).toEqual([id('P1')]);
  });

  it('sorts search results ascending by relevance with order=asc and no sort_by', async () => {
    expect(await listIds('search=table&order=asc')).toEqual([id('P5'), id('P1'), id('P2'), id('P6')]);
  });

  it('lets an explicit sort_by override relevance', async () => {
    expect(await listIds('search=table&sort_by=name')).toEqual([id('P1'), id('P6'), id('P5'), id('P2')]);
    expect(await listIds('search=table&sort_by=created_at')).toEqual(byDefault(['P1', 'P2', 'P5', 'P6']));
  });

  it('falls back to substring matching for partial words and SKU fragments', async () => {
    expect(await listIds('search=walnu')).toEqual([id('P2')]);
    expect(await listIds('search=cushio')).toEqual([id('P5')]);
    expect(await listIds('search=LMP-00')).toEqual([id('P3'), id('P7')]);
    expect(await listIds('search=csh-0')).toEqual([id('P5')]);
    // A partial word no stem matches: substring on the name only (not P5's description).
    expect((await listIds('search=tab')).sort((a, b) => a - b)).toEqual([id('P1'), id('P2'), id('P6')]);
    expect(await listIds('search=Tab&sort_by=name')).toEqual([id('P1'), id('P6'), id('P2')]);
    // Substring across a word boundary.
    expect(await listIds('search=ble%20Ru')).toEqual([id('P6')]);
    // The fallback honours the other filters too.
    expect(await listIds('search=tab&in_stock=false')).toEqual([id('P2')]);
  });

  it('serves "tabl" by full text: it stems like "table", so description matches count too', async () => {
    expect(await listIds('search=tabl')).toEqual([id('P6'), id('P1'), id('P2'), id('P5')]);
  });

  it('treats LIKE wildcards in the search literally', async () => {
    expect(await listIds('search=%25')).toEqual([]);
    expect(await listIds('search=_')).toEqual([]);
    expect(await listIds('search=%25%25%25')).toEqual([]);
    expect(await listIds('search=%5C')).toEqual([]);
  });

  it('ignores a blank search', async () => {
    expect(await listIds('search=%20%20')).toEqual(byDefault(VISIBLE_TO_S));
    expect(await listIds('search=')).toEqual(byDefault(VISIBLE_TO_S));
  });

  it('matches nothing for an unknown word', async () => {
    expect(await listIds('search=zzzqqq')).toEqual([]);
  });
});

describe('GET /api/v1/products: filters', () => {
  it('in_stock=true keeps only products with stock, in_stock=false only those without', async () => {
    expect(await listIds('in_stock=true')).toEqual(byDefault(['P1', 'P3', 'P5', 'P6', 'P7']));
    expect(await listIds('in_stock=false')).toEqual(byDefault(['P2', 'P4']));
  });

  it('pricing_type', async () => {
    expect(await listIds('pricing_type=commission')).toEqual(byDefault(['P3', 'P6']));
    expect(await listIds('pricing_type=wholesale')).toEqual(byDefault(['P1', 'P2', 'P4', 'P5', 'P7']));
  });

  it('supplier_id', async () => {
    expect(await listIds(`supplier_id=${supA}`)).toEqual(byDefault(['P1', 'P2', 'P5']));
    expect(await listIds(`supplier_id=${supB}`)).toEqual(byDefault(['P3', 'P4']));
    expect(await listIds(`supplier_id=${supEmpty}`)).toEqual([]);
    expect(await listIds('supplier_id=2147483647')).toEqual([]);
  });

  it('brand by name (any case) or by slug', async () => {
    const acme = byDefault(['P1', 'P2']);
    expect(await listIds('brand=Acme%20Home')).toEqual(acme);
    expect(await listIds('brand=aCME%20hOME')).toEqual(acme);
    expect(await listIds('brand=acme-home')).toEqual(acme);
    expect(await listIds('brand=nordic-light')).toEqual(byDefault(['P3', 'P7']));
    expect(await listIds('brand=acme')).toEqual([]);
  });

  it('category by slug, by name, by raw value, and a parent including its children', async () => {
    expect(await listIds('category=tables')).toEqual([id('P1')]);
    expect(await listIds('category=lamps')).toEqual(byDefault(['P3', 'P7']));
    expect(await listIds('category=living-room')).toEqual(byDefault(['P1', 'P2']));
    expect(await listIds('category=Living%20Room')).toEqual(byDefault(['P1', 'P2']));
    expect(await listIds('category=Soft%20Furnishings')).toEqual([id('P5')]);
    expect(await listIds('category=soft%20furnishings')).toEqual([id('P5')]);
    expect(await listIds('category=nowhere')).toEqual([]);
  });

  it('store_type by slug, and _other for uncategorised products or categories outside every vertical', async () => {
    expect(await listIds('store_type=furniture')).toEqual(byDefault(['P1', 'P2']));
    expect(await listIds('store_type=Furniture')).toEqual(byDefault(['P1', 'P2']));
    expect(await listIds('store_type=lighting')).toEqual(byDefault(['P3', 'P7']));
    expect(await listIds('store_type=_other')).toEqual(byDefault(['P4', 'P5', 'P6']));
    expect(await listIds('store_type=garden')).toEqual([]);
  });

  it('exclude_in_store hides live listings only; false hides nothing', async () => {
    // P4's listing is soft-deleted, so it still shows.
    expect(await listIds('exclude_in_store=true')).toEqual(byDefault(['P2', 'P4', 'P6', 'P7']));
    expect(await listIds('exclude_in_store=false')).toEqual(byDefault(VISIBLE_TO_S));
    // Another store's listings do not count.
    expect(await listIds('exclude_in_store=true', M.read)).toEqual(byDefault(VISIBLE_TO_S));
  });

  it('purchase_mode on the store’s effective mode', async () => {
    // P1 is buy_now in the catalogue but S lists it quote-only.
    expect(await listIds('purchase_mode=enquiry')).toEqual(byDefault(['P1', 'P3', 'P5']));
    expect(await listIds('purchase_mode=buy_now')).toEqual(byDefault(['P2', 'P4', 'P6', 'P7']));
    expect(await listIds('purchase_mode=enquiry', M.read)).toEqual(byDefault(['P3', 'P5']));
  });

  it('price_min_cents is inclusive on the effective retail price', async () => {
    // Effective for S: P1 30000 (custom), P2 16000, P3 13000 (custom; suggested 12345), P4 5000
    // (deleted listing's 9999 ignored), P5 3000, P6 1001, P7 4500.
    expect(await listIds('price_min_cents=13000')).toEqual(byDefault(['P1', 'P2', 'P3']));
    expect(await listIds('price_min_cents=13001')).toEqual(byDefault(['P1', 'P2']));
    expect(await listIds('price_min_cents=0')).toEqual(byDefault(VISIBLE_TO_S));
    expect(await listIds('price_min_cents=25001')).toEqual([id('P1')]);
    expect(await listIds('price_min_cents=30001')).toEqual([]);
    // Store M has no listings: suggested prices.
    expect(await listIds('price_min_cents=12345', M.read)).toEqual(byDefault(['P1', 'P2', 'P3']));
    expect(await listIds('price_min_cents=25001', M.read)).toEqual([]);
  });

  it('price_max_cents is exclusive on the effective retail price', async () => {
    expect(await listIds('price_max_cents=13000')).toEqual(byDefault(['P4', 'P5', 'P6', 'P7']));
    expect(await listIds('price_max_cents=13001')).toEqual(byDefault(['P3', 'P4', 'P5', 'P6', 'P7']));
    expect(await listIds('price_max_cents=1001')).toEqual([]);
    expect(await listIds('price_max_cents=0')).toEqual([]);
    expect(await listIds('price_max_cents=13000', M.read)).toEqual(byDefault(['P3', 'P4', 'P5', 'P6', 'P7']));
  });

  it('price_min_cents and price_max_cents together', async () => {
    expect(await listIds('price_min_cents=4500&price_max_cents=16001')).toEqual(
      byDefault(['P2', 'P3', 'P4', 'P7']),
    );
    // The deleted listing's 9999 must not bring P4 in.
    expect(await listIds('price_min_cents=6000&price_max_cents=12000')).toEqual([]);
    expect(await listIds('price_min_cents=5000&price_max_cents=5000')).toEqual([]);
  });

  it('ready_to_list', async () => {
    expect(await listIds('ready_to_list=true')).toEqual(byDefault(['P1', 'P3']));
    expect(await listIds('ready_to_list=false')).toEqual(byDefault(['P2', 'P4', 'P5', 'P6', 'P7']));
  });

  it('complete_for keeps only products scored 100 for the channel; an uncomputed channel matches nothing', async () => {
    expect(await listIds('complete_for=storefront')).toEqual(byDefault(['P1', 'P3']));
    expect(await listIds('complete_for=google')).toEqual([id('P2')]);
    expect(await listIds('complete_for=freight')).toEqual([]); // P4 scored 99
    expect(await listIds('complete_for=meta')).toEqual([]); // never computed
    expect(await listIds('complete_for=no_such_channel')).toEqual([]);
  });

  it('combines filters with AND', async () => {
    expect(await listIds(`supplier_id=${supA}&in_stock=true`)).toEqual(byDefault(['P1', 'P5']));
    expect(await listIds('brand=nordic-light&pricing_type=wholesale&in_stock=true')).toEqual([id('P7')]);
    expect(await listIds('search=table&in_stock=false')).toEqual([id('P2')]);
    expect(await listIds('store_type=_other&exclude_in_store=true&price_min_cents=2000')).toEqual([id('P4')]);
  });
});

describe('GET /api/v1/products: scope', () => {
  const T_STORE = ['P1', 'P2', 'P5', 'P6', 'P7'];

  it('scope=store: departments with their child categories, makers, uncategorised and own goods', async () => {
    // T: department living-room (P2, and P1 through its child tables), maker C (P6, P7 in lamps),
    // uncategorised (P5, P6), own goods (PT in lamps). Not P3 (lamps, B) nor P4 (misc, B).
    const expected = [id('PT'), ...byDefault(T_STORE)];
    expect(await listIds('scope=store', T.read)).toEqual(expected);
  });

  it('omitted scope follows the store’s default', async () => {
    expect(await listIds('', T.read)).toEqual([id('PT'), ...byDefault(T_STORE)]);
    // S was never switched: everything.
    expect(await listIds('')).toEqual(byDefault(VISIBLE_TO_S));
  });

  it('scope=all shows everything visible, even for a store switched to store scope', async () => {
    expect(await listIds('scope=all', T.read)).toEqual([id('PT'), ...byDefault(VISIBLE_TO_S)]);
    expect(await listIds('scope=all')).toEqual(byDefault(VISIBLE_TO_S));
  });

  it('scope=store for a store with no departments or makers keeps only uncategorised products', async () => {
    expect(await listIds('scope=store')).toEqual(byDefault(['P5', 'P6']));
  });

  it('scope is a read filter and combines with the others', async () => {
    expect(await listIds('scope=store&category=lamps', T.read)).toEqual([id('PT'), id('P7')]);
    expect(await listIds('scope=store&in_stock=false', T.read)).toEqual([id('P2')]);
  });
});

describe('GET /api/v1/products: ownership', () => {
  const choices = ['own', 'btab', 'all'];

  it('for a store with own suppliers: all by default, own, btab, and the answer says which applied', async () => {
    const all = await list('limit=500', O.read);
    expect(all.ownership).toEqual({ applied: 'all', choices });
    expect(all.products.map((p) => p.id)).toEqual([id('PO'), ...byDefault(VISIBLE_TO_S)]);

    const own = await list('limit=500&ownership=own', O.read);
    expect(own.ownership).toEqual({ applied: 'own', choices });
    expect(own.products.map((p) => p.id)).toEqual([id('PO')]);
    expect(own.pagination.total_count).toBe(1);

    const btab = await list('limit=500&ownership=btab', O.read);
    expect(btab.ownership).toEqual({ applied: 'btab', choices });
    expect(btab.products.map((p) => p.id)).toEqual(byDefault(VISIBLE_TO_S));

    const explicitAll = await list('limit=500&ownership=all', O.read);
    expect(explicitAll.ownership).toEqual({ applied: 'all', choices });
    expect(explicitAll.products.map((p) => p.id)).toEqual([id('PO'), ...byDefault(VISIBLE_TO_S)]);
  });

  it('own goods carry their own supplier and never include another store’s', async () => {
    const own = await list('ownership=own&search=oak', O.read);
    expect(own.products.map((p) => p.id)).toEqual([id('PO')]);
    expect(own.products[0]?.supplier_id).toBe(supO);
    expect(await listIds(`supplier_id=${supX}`, O.read)).toEqual([]);
    expect(await listIds(`supplier_id=${supO}`, O.read)).toEqual([id('PO')]);
    expect(await listIds('ownership=own', X.read)).toEqual([id('PX')]);
    expect(await listIds('ownership=own', T.read)).toEqual([id('PT')]);
  });

  it('is ignored for a store without own suppliers, and the answer carries no ownership', async () => {
    for (const q of ['', 'ownership=own', 'ownership=btab', 'ownership=all']) {
      const body = await list(`limit=500&${q}`);
      expect(body).not.toHaveProperty('ownership');
      expect(
        body.products.map((p) => p.id),
        q,
      ).toEqual(byDefault(VISIBLE_TO_S));
    }
  });
});

describe('GET /api/v1/products: sorting', () => {
  type Key =
    | 'name'
    | 'created_at'
    | 'updated_at'
    | 'stock_quantity'
    | 'retail_price_cents'
    | 'wholesale_price_cents'
    | 'sku'
    | 'margin'
    | 'readiness'
    | 'recommended';
  const value: Record<Key, (r: Row) => string | number> = {
    name: (r) => r.name,
    created_at: (r) => r.created,
    updated_at: (r) => r.updated,
    stock_quantity: (r) => r.stock,
    retail_price_cents: (r) => r.retail,
    wholesale_price_cents: (r) => r.wholesale,
    sku: (r) => r.sku,
    margin: (r) => r.earn,
    readiness: (r) => r.readiness,
    recommended: (r) => r.recommended,
  };
  /** Expected order: the key, then id in the same direction (the stable-paging tie-breaker). */
  function expected(key: Key, dir: 'asc' | 'desc'): number[] {
    const sign = dir === 'asc' ? 1 : -1;
    return [...MODEL]
      .sort((a, b) => {
        const va = value[key](a);
        const vb = value[key](b);
        const c = va < vb ? -1 : va > vb ? 1 : id(a.key) - id(b.key);
        return sign * c;
      })
      .map((r) => id(r.key));
  }
  const KEYS = Object.keys(value) as Key[];

  it.each(KEYS)('sort_by=%s asc and desc', async (key) => {
    const asc = await listIds(`sort_by=${key}&order=asc`);
    const desc = await listIds(`sort_by=${key}&order=desc`);
    expect(asc).toEqual(expected(key, 'asc'));
    expect(desc).toEqual(expected(key, 'desc'));
    // Not a coincidence of the fixtures: the two orders differ.
    expect(asc).not.toEqual(desc);
  });

  it.each(KEYS)('sort_by=%s without order uses its natural direction', async (key) => {
    const dir = key === 'name' || key === 'sku' ? 'asc' : 'desc';
    expect(await listIds(`sort_by=${key}`)).toEqual(expected(key, dir));
  });

  it('the hand-checked orders agree with the model', async () => {
    expect(await listIds('sort_by=name')).toEqual(['P3', 'P7', 'P1', 'P4', 'P6', 'P5', 'P2'].map(id));
    expect(await listIds('sort_by=margin')).toEqual(
      // 20000, 8000, 3000 (P7 newer id first), 3000, 2000, 1950, 501
      ['P1', 'P2', 'P7', 'P4', 'P5', 'P3', 'P6'].map(id),
    );
    expect(await listIds('sort_by=updated_at')).toEqual(['P4', 'P7', 'P5', 'P1', 'P3', 'P6', 'P2'].map(id));
    expect(await listIds('sort_by=stock_quantity&order=asc')).toEqual(
      ['P2', 'P4', 'P6', 'P5', 'P7', 'P1', 'P3'].map(id),
    );
  });

  it('defaults to created_at descending, and order alone flips it', async () => {
    expect(await listIds('')).toEqual(expected('created_at', 'desc'));
    expect(await listIds('order=asc')).toEqual(expected('created_at', 'asc'));
  });

  it('pages through tied sort values without repeating or skipping a product', async () => {
    const seen: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const body = await list(`sort_by=stock_quantity&limit=2&page=${page}`);
      seen.push(...body.products.map((p) => p.id));
    }
    expect(seen).toEqual(expected('stock_quantity', 'desc'));
  });

  it('pages by margin across re-priced listings and catalogue prices, both ways', async () => {
    // P1 and P3 carry S's own prices (one stream), the others the catalogue's (the indexed one).
    for (const dir of ['asc', 'desc'] as const) {
      const seen: number[] = [];
      for (let page = 1; page <= 4; page++) {
        const body = await list(`sort_by=margin&order=${dir}&limit=2&page=${page}`);
        seen.push(...body.products.map((p) => p.id));
      }
      expect(seen).toEqual(expected('margin', dir));
    }
    // And when the filters leave only one stream.
    expect(await listIds('sort_by=margin&exclude_in_store=true')).toEqual(
      expected('margin', 'desc').filter((i) => i !== id('P1') && i !== id('P3') && i !== id('P5')),
    );
  });
});

describe('GET /api/v1/products: pagination', () => {
  it('defaults to page 1 of 20', async () => {
    const body = await list('');
    expect(body.pagination).toEqual({
      page: 1,
      limit: 20,
      total_count: 7,
      total_pages: 1,
      total_count_is_lower_bound: false,
    });
    expect(body.products).toHaveLength(7);
  });

  it('slices pages in order with the totals', async () => {
    const all = byDefault(VISIBLE_TO_S);
    for (const [page, slice] of [
      [1, all.slice(0, 3)],
      [2, all.slice(3, 6)],
      [3, all.slice(6)],
    ] as const) {
      const body = await list(`limit=3&page=${page}`);
      expect(body.pagination).toEqual({
        page,
        limit: 3,
        total_count: 7,
        total_pages: 3,
        total_count_is_lower_bound: false,
      });
      expect(body.products.map((p) => p.id)).toEqual(slice);
    }
  });

  it('answers a page past the end with an empty page and the real totals', async () => {
    const body = await list('limit=3&page=4');
    expect(body).toEqual({
      products: [],
      pagination: { page: 4, limit: 3, total_count: 7, total_pages: 3, total_count_is_lower_bound: false },
    });
    const far = await list('limit=500&page=1000');
    expect(far).toEqual({
      products: [],
      pagination: {
        page: 1000,
        limit: 500,
        total_count: 7,
        total_pages: 1,
        total_count_is_lower_bound: false,
      },
    });
  });

  it('counts the filtered set, not the catalogue', async () => {
    const body = await list(`supplier_id=${supA}&limit=2&page=2`);
    expect(body.pagination).toEqual({
      page: 2,
      limit: 2,
      total_count: 3,
      total_pages: 2,
      total_count_is_lower_bound: false,
    });
    expect(body.products.map((p) => p.id)).toEqual(byDefault(['P1', 'P2', 'P5']).slice(2));
  });

  it('an empty result has zero pages', async () => {
    const body = await list('brand=nobody');
    expect(body).toEqual({
      products: [],
      pagination: { page: 1, limit: 20, total_count: 0, total_pages: 0, total_count_is_lower_bound: false },
    });
  });

  it('accepts the limits 1 and 500', async () => {
    const one = await list('limit=1');
    expect(one.pagination).toEqual({
      page: 1,
      limit: 1,
      total_count: 7,
      total_pages: 7,
      total_count_is_lower_bound: false,
    });
    expect(one.products.map((p) => p.id)).toEqual(byDefault(VISIBLE_TO_S).slice(0, 1));
    const max = await list('limit=500');
    expect(max.pagination).toEqual({
      page: 1,
      limit: 500,
      total_count: 7,
      total_pages: 1,
      total_count_is_lower_bound: false,
    });
  });
});

describe('GET /api/v1/products: bad input', () => {
  it.each([
    [`search=${'a'.repeat(101)}`, 'search'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['complete_for=Bad-Pattern', 'complete_for'],
    ['complete_for=1storefront', 'complete_for'],
    [`complete_for=a${'b'.repeat(32)}`, 'complete_for'],
    ['price_min_cents=-1', 'price_min_cents'],
    ['price_max_cents=-1', 'price_max_cents'],
    ['price_min_cents=1.5', 'price_min_cents'],
    ['price_max_cents=99999999999', 'price_max_cents'],
    ['sort_by=bogus', 'sort_by'],
    ['order=up', 'order'],
    [`brand=${'b'.repeat(121)}`, 'brand'],
    [`category=${'c'.repeat(121)}`, 'category'],
    [`store_type=${'s'.repeat(81)}`, 'store_type'],
    ['supplier_id=abc', 'supplier_id'],
    ['supplier_id=1.5', 'supplier_id'],
    ['supplier_id=0', 'supplier_id'],
    ['supplier_id=99999999999', 'supplier_id'],
    ['in_stock=yes', 'in_stock'],
    ['in_stock=1', 'in_stock'],
    ['in_stock=TRUE', 'in_stock'],
    ['exclude_in_store=no', 'exclude_in_store'],
    ['ready_to_list=0', 'ready_to_list'],
    ['pricing_type=free', 'pricing_type'],
    ['purchase_mode=later', 'purchase_mode'],
    ['scope=mine', 'scope'],
    ['ownership=theirs', 'ownership'],
  ])('%s → 400 VALIDATION_FAILED on %s', async (query, path) => {
    await expectError(query, path);
  });

  it('accepts the largest lengths the contract allows', async () => {
    expect(await listIds(`search=${'a'.repeat(100)}`)).toEqual([]);
    expect(await listIds(`brand=${'b'.repeat(120)}`)).toEqual([]);
    expect(await listIds(`category=${'c'.repeat(120)}`)).toEqual([]);
    expect(await listIds(`store_type=${'s'.repeat(80)}`)).toEqual([]);
    expect(await listIds(`complete_for=a${'b'.repeat(31)}`)).toEqual([]);
  });

  it('refuses unknown query keys, every one at once, with the parameter each most likely meant', async () => {
    const res = await app.get<ErrorBody>(
      '/api/v1/products?in_stok=true&foo=bar&filter[x]=1&sortBy=name',
      S.read,
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    expect(res.body.details).toEqual([
      { path: 'in_stok', message: 'unknown parameter. Did you mean "in_stock"?' },
      { path: 'foo', message: 'unknown parameter' },
      { path: 'filter[x]', message: 'unknown parameter' },
      { path: 'sortBy', message: 'unknown parameter. Did you mean "sort_by"?' },
    ]);
    expect(res.body.message).toContain('in_stok: unknown parameter. Did you mean "in_stock"?');
    // HEAD is refused as GET is.
    const head = await app.request('/api/v1/products?in_stok=true', { key: S.read, method: 'HEAD' });
    expect(head.status).toBe(400);
  });

  it('never answers 500, whatever the query', async () => {
    for (const q of [
      'limit=',
      'page=',
      'supplier_id=',
      'in_stock=',
      'limit=1&limit=2',
      'supplier_id=1&supplier_id=2',
      'search=a&search=b',
      'brand=a&brand=b',
      'page=1e3',
      'limit=Infinity',
      'limit=NaN',
      'price_min_cents=1e309',
      'supplier_id=-0',
      `search=${encodeURIComponent("'; DROP TABLE products; --")}`,
      `search=${encodeURIComponent('!!! & | <-> :*')}`,
      `search=${encodeURIComponent('"unterminated')}`,
      `category=${encodeURIComponent("x' OR '1'='1")}`,
      `brand=${encodeURIComponent('%')}`,
      'store_type=_other&category=_other',
      'sort_by=',
      'order=',
      '%',
      '&&&',
    ]) {
      const res = await app.get(`/api/v1/products?${q}`, S.read);
      expect([200, 400], `${q}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
      if (res.status === 400) {
        expect(res.body, q).toMatchObject({ error: 'bad_request', request_id: expect.any(String) });
      } else if (isStatus<ListProductsResponse>(res, 200)) {
        expect(Array.isArray(res.body.products), q).toBe(true);
      }
    }
  });

  // BUG: PostgreSQL text cannot hold U+0000, so a NUL byte in a free-text filter reaches the SQL
  // (src/catalogue/filters.ts: searchCondition / the brand, category and store_type conditions) and
  // fails there with a 500. textParam (src/trpc/params.ts), used by catalogueFilters, lets it through.
  // Expected: a 400 VALIDATION_FAILED (or a 200 that matches nothing), never a 500.
  it.each(['search', 'brand', 'category', 'store_type'])(
    'a NUL byte in %s is a 400, never a 500',
    async (param) => {
      const res = await app.get<ErrorBody>(`/api/v1/products?${param}=a%00b`, S.read);
      expect(res.status, `${param}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
      expect(res.body.details?.[0]?.path).toBe(param);
    },
  );
});

describe('GET /api/v1/products: security', () => {
  it.each([
    ['no key', 401, undefined],
    ['a malformed key', 401, 'not-a-key'],
    ['an unknown key', 401, `sl_test_${'a'.repeat(40)}`],
    ['the read key', 200, 'read'],
    ['the read_write key', 200, 'read_write'],
  ] as const)('%s → %i', async (_label, status, credential) => {
    const key = credential === 'read' ? S.read : credential === 'read_write' ? S.readWrite : credential;
    const res = await app.get('/api/v1/products?limit=500', key);
    expect(res.status).toBe(status);
    if (status === 401) {
      expect(res.body).toMatchObject({ error: 'unauthorized', request_id: res.headers.get('x-request-id') });
      expect(res.body).not.toHaveProperty('products');
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    } else if (isStatus<ListProductsResponse>(res, 200)) {
      expect(res.body.products.map((p) => p.id)).toEqual(byDefault(VISIBLE_TO_S));
    }
  });

  it('a key acts as its own store only', async () => {
    // Same query, different stores: S sees its listing on P1, M does not.
    const s = await list('search=oak');
    const m = await list('search=oak', M.read);
    expect(s.products.map((p) => p.in_store)).toEqual([true]);
    expect(m.products.map((p) => p.in_store)).toEqual([false]);
  });
});
