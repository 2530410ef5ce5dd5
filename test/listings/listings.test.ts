import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetMyProductResponse, ListMyProductsResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;

/** Catalogue product ids. */
const P = {
  desk: 0,
  stool: 0,
  rug: 0,
  scale: 0,
  vase: 0,
  lamp: 0,
  wool: 0,
  retired: 0,
  clock: 0,
  removed: 0,
  otherDesk: 0,
  unlisted: 0,
  othersOwn: 0,
};
/** Listing ids of the main store, by the same keys. */
const L: Partial<Record<keyof typeof P, number>> = {};
/** Variant ids by product key. */
const V: Partial<Record<keyof typeof P, number[]>> = {};

/** The store's live listings, newest first (retired and clock share a created_at; clock has the higher id). */
const ORDER = ['desk', 'stool', 'rug', 'scale', 'vase', 'lamp', 'wool', 'clock', 'retired'] as const;

const at = (second: number) => `2026-03-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const UPDATED = '2026-04-02T10:00:00.000Z';

async function listingId(storeId: number, productId: number): Promise<number> {
  const [row] = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM listings WHERE store_id = ${storeId} AND product_id = ${productId}`,
  );
  if (!row) throw new Error('no listing');
  return row.id;
}

async function variantIds(productId: number): Promise<number[]> {
  const found = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY position, id`,
  );
  return found.map((r) => r.id);
}

/** Lists the product and pins its timestamps so the order and the answer are exact. */
async function list(
  storeId: number,
  productId: number,
  second: number,
  o: { customRetail?: number; deleted?: boolean } = {},
) {
  const em = app.em();
  await fixtures(em).listing(storeId, productId, o);
  await rows(
    em,
    sql`UPDATE listings SET created_at = ${at(second)}::timestamptz, updated_at = ${UPDATED}::timestamptz
      WHERE store_id = ${storeId} AND product_id = ${productId}`,
  );
}

const ids = (body: ListMyProductsResponse) => body.products.map((p) => p.product_id);
const keys = (...names: (keyof typeof P)[]) => names.map((n) => P[n]);

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Listing Store');
  other = await app.createStore('Other Store');
  const em = app.em();
  const fx = fixtures(em);
  const supplierId = await fx.supplier({ name: 'Maker' });
  const ownSupplier = await fx.supplier({ name: 'Own Workshop', ownerStoreId: store.id });
  const othersOwnSupplier = await fx.supplier({ name: 'Their Workshop', ownerStoreId: other.id });

  P.desk = await fx.product({
    name: 'Standing Desk',
    sku: 'DESK-1',
    supplierId,
    wholesale: 30000,
    retail: 59900,
    imageUrl: 'https://img.example/desk.jpg',
    stock: [3, 0, 7],
  });
  P.stool = await fx.product({
    name: 'Plain Stool',
    sku: 'STOOL-1',
    supplierId,
    wholesale: 1000,
    retail: 2000,
    imageUrl: null,
    weightOz: null,
    dimensions: null,
    stock: [0],
  });
  // Only the width known: missing dimensions, weight present.
  P.rug = await fx.product({ name: 'Jute Rug', sku: 'RUG-9', supplierId, dimensions: null, stock: [1] });
  await rows(em, sql`UPDATE products SET width_cm = 80 WHERE id = ${P.rug}`);
  // Weight missing, dimensions complete; the second variant has its own retail price.
  P.scale = await fx.product({
    name: 'Kitchen Scale',
    sku: 'SCALE-2',
    supplierId,
    wholesale: 1500,
    retail: 3900,
    weightOz: null,
    stock: [1, 2],
  });
  P.vase = await fx.product({
    name: 'Commission Vase',
    sku: 'VASE-7',
    supplierId,
    pricingType: 'commission',
    commissionBps: 1500,
    purchaseMode: 'enquiry',
    wholesale: 0,
    retail: 10000,
    stock: [4],
  });
  P.lamp = await fx.product({
    name: 'Own Lamp',
    sku: 'LAMP-OWN',
    supplierId: ownSupplier,
    wholesale: 2000,
    retail: 5000,
    imageUrl: 'https://img.example/lamp.jpg',
    stock: [2],
  });
  P.wool = await fx.product({ name: '100% Wool_Throw', sku: 'THROW-1', supplierId, stock: [6] });
  P.retired = await fx.product({ name: 'Retired Chair', sku: 'CHAIR-0', supplierId, stock: [5] });
  P.clock = await fx.product({ name: 'Wall Clock', sku: 'CLOCK-3', supplierId, stock: [8] });
  P.removed = await fx.product({
    name: 'Removed Desk Mat',
    sku: 'MAT-1',
    supplierId,
    weightOz: null,
    dimensions: null,
  });
  P.otherDesk = await fx.product({
    name: 'Other Desk',
    sku: 'ODESK-1',
    supplierId,
    weightOz: null,
    dimensions: null,
  });
  P.unlisted = await fx.product({ name: 'Unlisted Desk', sku: 'UDESK-1', supplierId });
  P.othersOwn = await fx.product({ name: 'Their Lamp', sku: 'LAMP-THEIRS', supplierId: othersOwnSupplier });

  await list(store.id, P.desk, 9, { customRetail: 64900 });
  await list(store.id, P.stool, 8);
  await list(store.id, P.rug, 7);
  await list(store.id, P.scale, 6);
  await list(store.id, P.vase, 5);
  await list(store.id, P.lamp, 4);
  await list(store.id, P.wool, 3);
  await list(store.id, P.retired, 2);
  await list(store.id, P.clock, 2);
  await list(store.id, P.removed, 10, { customRetail: 9999, deleted: true });
  await list(other.id, P.desk, 11, { customRetail: 70000 });
  await list(other.id, P.otherDesk, 11);
  await list(other.id, P.othersOwn, 12);

  // Withdrawn from the catalogue after listing; the listing stays but nothing can be bought.
  await rows(em, sql`UPDATE products SET active = false WHERE id = ${P.retired}`);
  // The listing overrides the selling mode and is shipped by the vendor.
  await rows(
    em,
    sql`UPDATE listings SET purchase_mode = 'enquiry', vendor_fulfilled = true
      WHERE store_id = ${store.id} AND product_id = ${P.clock}`,
  );
  for (const key of Object.keys(P) as (keyof typeof P)[]) {
    V[key] = await variantIds(P[key]);
    const [row] = await rows<{ id: number }>(
      em,
      sql`SELECT id FROM listings WHERE store_id = ${store.id} AND product_id = ${P[key]}`,
    );
    if (row) L[key] = row.id;
  }
  await rows(em, sql`UPDATE product_variants SET retail_price_cents = 4500 WHERE id = ${V.scale?.[1]}`);
  // Fixture timestamps stay exact (stock and variant triggers may bump them).
  await rows(em, sql`UPDATE products SET updated_at = created_at`);
});
afterAll(() => app.close());

const LIST = '/api/v1/my-products';

describe('GET /api/v1/my-products', () => {
  it('answers the live listings of this store, newest listing first, with the pagination envelope', async () => {
    const res = await app.get<ListMyProductsResponse>(LIST, store.read);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['pagination', 'products']);
    expect(ids(res.body)).toEqual(keys(...ORDER));
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total_count: 9, total_pages: 1 });
    // Same created_at: the higher listing id comes first.
    expect(L.clock).toBeGreaterThan(L.retired as number);
  });

  it('answers every field of a listing item exactly', async () => {
    const res = await app.get<ListMyProductsResponse>(LIST, store.read);
    const byProduct = new Map(res.body.products.map((p) => [p.product_id, p]));
    expect(byProduct.get(P.desk)).toEqual({
      id: L.desk,
      product_id: P.desk,
      name: 'Standing Desk',
      custom_title: null,
      sku: 'DESK-1',
      image_url: 'https://img.example/desk.jpg',
      wholesale_price_cents: 30000,
      retail_price_cents: 59900,
      custom_retail_price_cents: 64900,
      effective_retail_price_cents: 64900,
      purchase_mode: 'buy_now',
      vendor_fulfilled: false,
      own_goods: false,
      in_stock: true,
      stock_quantity: 10,
      hidden_channels: [],
      withdrawn_at: null,
      created_at: at(9),
      updated_at: UPDATED,
    });
    expect(byProduct.get(P.stool)).toEqual({
      id: L.stool,
      product_id: P.stool,
      name: 'Plain Stool',
      custom_title: null,
      sku: 'STOOL-1',
      image_url: null,
      wholesale_price_cents: 1000,
      retail_price_cents: 2000,
      custom_retail_price_cents: null,
      effective_retail_price_cents: 2000,
      purchase_mode: 'buy_now',
      vendor_fulfilled: false,
      own_goods: false,
      in_stock: false,
      stock_quantity: 0,
      hidden_channels: [],
      withdrawn_at: null,
      created_at: at(8),
      updated_at: UPDATED,
    });
    expect(byProduct.get(P.vase)).toMatchObject({
      purchase_mode: 'enquiry',
      retail_price_cents: 10000,
      effective_retail_price_cents: 10000,
      wholesale_price_cents: 0,
      own_goods: false,
    });
    expect(byProduct.get(P.lamp)).toMatchObject({
      id: L.lamp,
      name: 'Own Lamp',
      own_goods: true,
      vendor_fulfilled: false,
      stock_quantity: 2,
      in_stock: true,
    });
    expect(byProduct.get(P.clock)).toMatchObject({ purchase_mode: 'enquiry', vendor_fulfilled: true });
    expect(byProduct.get(P.scale)).toMatchObject({ stock_quantity: 3, retail_price_cents: 3900 });
    for (const item of res.body.products) {
      expect(item).not.toHaveProperty('options');
      expect(item).not.toHaveProperty('variants');
    }
  });

  it('never shows a removed listing or another store’s listings', async () => {
    const res = await app.get<ListMyProductsResponse>(`${LIST}?limit=500`, store.read);
    expect(ids(res.body)).not.toContain(P.removed);
    expect(ids(res.body)).not.toContain(P.otherDesk);
    expect(ids(res.body)).not.toContain(P.othersOwn);

    const theirs = await app.get<ListMyProductsResponse>(LIST, other.read);
    expect(theirs.status).toBe(200);
    expect(ids(theirs.body)).toEqual([P.othersOwn, P.otherDesk, P.desk]);
    expect(theirs.body.pagination.total_count).toBe(3);
    const theirDesk = theirs.body.products.find((p) => p.product_id === P.desk);
    // Each store has its own listing and price of the same product.
    expect(theirDesk).toMatchObject({
      id: await listingId(other.id, P.desk),
      custom_retail_price_cents: 70000,
      effective_retail_price_cents: 70000,
      own_goods: false,
    });
    // toMatchObject above fails when it is missing.
    expect(theirDesk?.id).not.toBe(L.desk);
    const theirLamp = theirs.body.products.find((p) => p.product_id === P.othersOwn);
    expect(theirLamp?.own_goods).toBe(true);
  });

  it('pages by page and limit; a page past the end is empty and keeps the counts', async () => {
    const second = await app.get<ListMyProductsResponse>(`${LIST}?page=2&limit=2`, store.read);
    expect(second.status).toBe(200);
    expect(ids(second.body)).toEqual(keys('rug', 'scale'));
    expect(second.body.pagination).toEqual({ page: 2, limit: 2, total_count: 9, total_pages: 5 });

    const last = await app.get<ListMyProductsResponse>(`${LIST}?page=5&limit=2`, store.read);
    expect(ids(last.body)).toEqual(keys('retired'));

    const beyond = await app.get<ListMyProductsResponse>(`${LIST}?page=6&limit=2`, store.read);
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({
      products: [],
      pagination: { page: 6, limit: 2, total_count: 9, total_pages: 5 },
    });

    const max = await app.get<ListMyProductsResponse>(`${LIST}?limit=500`, store.read);
    expect(max.status).toBe(200);
    expect(max.body.pagination).toEqual({ page: 1, limit: 500, total_count: 9, total_pages: 1 });

    // Walking every page of one gives the full order exactly once.
    const walked: number[] = [];
    for (let page = 1; page <= 9; page++) {
      walked.push(
        ...ids((await app.get<ListMyProductsResponse>(`${LIST}?page=${page}&limit=1`, store.read)).body),
      );
    }
    expect(walked).toEqual(keys(...ORDER));
  });

  it('answers 400 VALIDATION_FAILED for an out-of-range or non-integer page or limit', async () => {
    for (const query of [
      'limit=0',
      'limit=501',
      'limit=abc',
      'limit=-1',
      'limit=1.5',
      'limit=',
      'page=0',
      'page=-1',
      'page=abc',
      'page=1e2',
    ]) {
      const res = await app.get<ErrorBody>(`${LIST}?${query}`, store.read);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
      expect(res.body.details?.length, query).toBeGreaterThan(0);
    }
  });

  it('searches product name and SKU, case-insensitively, as a substring', async () => {
    const cases: [string, number[]][] = [
      ['desk', keys('desk')],
      ['STANDING', keys('desk')],
      ['scale-', keys('scale')],
      ['ock', keys('clock')],
      ['lamp-own', keys('lamp')],
      ['l', keys('stool', 'scale', 'lamp', 'wool', 'clock')],
      ['  stool  ', keys('stool')],
      ['nothing-like-this', []],
    ];
    for (const [term, expected] of cases) {
      const res = await app.get<ListMyProductsResponse>(
        `${LIST}?search=${encodeURIComponent(term)}`,
        store.read,
      );
      expect(res.status, term).toBe(200);
      expect(ids(res.body), term).toEqual(expected);
      expect(res.body.pagination.total_count, term).toBe(expected.length);
    }
  });

  it('treats % and _ in a search as literal characters', async () => {
    const cases: [string, number[]][] = [
      ['%', keys('wool')],
      ['_', keys('wool')],
      ['100%', keys('wool')],
      // As LIKE wildcards these would match DESK-1 and STOOL-1.
      ['desk_1', []],
      ['sto%1', []],
    ];
    for (const [term, expected] of cases) {
      const res = await app.get<ListMyProductsResponse>(
        `${LIST}?search=${encodeURIComponent(term)}`,
        store.read,
      );
      expect(res.status, term).toBe(200);
      expect(ids(res.body), term).toEqual(expected);
    }
  });

  it('pages a search and counts only its matches', async () => {
    const res = await app.get<ListMyProductsResponse>(`${LIST}?search=l&limit=2&page=2`, store.read);
    expect(ids(res.body)).toEqual(keys('lamp', 'wool'));
    expect(res.body.pagination).toEqual({ page: 2, limit: 2, total_count: 5, total_pages: 3 });
  });

  it('treats an empty search as no search, and refuses one over 100 characters', async () => {
    const empty = await app.get<ListMyProductsResponse>(`${LIST}?search=`, store.read);
    expect(empty.status).toBe(200);
    expect(empty.body.pagination.total_count).toBe(9);

    const hundred = await app.get<ListMyProductsResponse>(`${LIST}?search=${'x'.repeat(100)}`, store.read);
    expect(hundred.status).toBe(200);
    expect(hundred.body.products).toEqual([]);

    const tooLong = await app.get<ErrorBody>(`${LIST}?search=${'x'.repeat(101)}`, store.read);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    expect(tooLong.body.details?.[0]?.path).toBe('search');
  });

  it('filters listings missing shipping data by weight, dimensions or either', async () => {
    const cases: [string, number[]][] = [
      ['weight', keys('stool', 'scale')],
      ['dimensions', keys('stool', 'rug')],
      ['either', keys('stool', 'rug', 'scale')],
    ];
    for (const [missing, expected] of cases) {
      const res = await app.get<ListMyProductsResponse>(`${LIST}?missing=${missing}`, store.read);
      expect(res.status, missing).toBe(200);
      expect(ids(res.body), missing).toEqual(expected);
      expect(res.body.pagination.total_count, missing).toBe(expected.length);
    }
    const paged = await app.get<ListMyProductsResponse>(`${LIST}?missing=either&limit=1&page=3`, store.read);
    expect(ids(paged.body)).toEqual(keys('scale'));
    expect(paged.body.pagination).toEqual({ page: 3, limit: 1, total_count: 3, total_pages: 3 });
    const combined = await app.get<ListMyProductsResponse>(`${LIST}?missing=either&search=rug`, store.read);
    expect(ids(combined.body)).toEqual(keys('rug'));
  });

  it('ignores an unrecognised missing value', async () => {
    for (const missing of ['colour', 'WEIGHT', '', 'weight,dimensions']) {
      const res = await app.get<ListMyProductsResponse>(
        `${LIST}?missing=${encodeURIComponent(missing)}`,
        store.read,
      );
      expect(res.status, missing).toBe(200);
      expect(ids(res.body), missing).toEqual(keys(...ORDER));
    }
  });

  it('adds option titles and per-variant stock with include=variants', async () => {
    const res = await app.get<ListMyProductsResponse>(`${LIST}?include=variants`, store.read);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(keys(...ORDER));
    const byProduct = new Map(res.body.products.map((p) => [p.product_id, p]));
    const desk = byProduct.get(P.desk) as Record<string, unknown>;
    expect(desk).toMatchObject({ id: L.desk, custom_retail_price_cents: 64900, stock_quantity: 10 });
    expect(desk.options).toEqual(['Size']);
    expect(desk.variants).toEqual([
      {
        id: V.desk?.[0],
        sku: 'DESK-1-1',
        title: 'Option 1',
        option_values: { Size: 'Option 1' },
        available_for_sale: true,
        quantity_available: 3,
      },
      {
        id: V.desk?.[1],
        sku: 'DESK-1-2',
        title: 'Option 2',
        option_values: { Size: 'Option 2' },
        available_for_sale: false,
        quantity_available: 0,
      },
      {
        id: V.desk?.[2],
        sku: 'DESK-1-3',
        title: 'Option 3',
        option_values: { Size: 'Option 3' },
        available_for_sale: true,
        quantity_available: 7,
      },
    ]);
    expect(byProduct.get(P.stool)).toMatchObject({
      options: [],
      variants: [
        {
          id: V.stool?.[0],
          sku: 'STOOL-1',
          title: 'Default',
          option_values: {},
          available_for_sale: false,
          quantity_available: 0,
        },
      ],
    });
    const sale = (key: keyof typeof P) =>
      (byProduct.get(P[key]) as { variants: { available_for_sale: boolean; quantity_available: number }[] })
        .variants;
    // In stock but not for sale: quote-only in the catalogue, overridden to enquiry, withdrawn.
    expect(sale('vase')).toEqual([
      expect.objectContaining({ available_for_sale: false, quantity_available: 4 }),
    ]);
    expect(sale('clock')).toEqual([
      expect.objectContaining({ available_for_sale: false, quantity_available: 8 }),
    ]);
    expect(sale('retired')).toEqual([
      expect.objectContaining({ available_for_sale: false, quantity_available: 5 }),
    ]);
    expect(sale('lamp')).toEqual([
      expect.objectContaining({ available_for_sale: true, quantity_available: 2 }),
    ]);
    // Variants carry no price in the list.
    expect(sale('scale').map((v) => Object.keys(v).sort())).toEqual([
      ['available_for_sale', 'id', 'option_values', 'quantity_available', 'sku', 'title'],
      ['available_for_sale', 'id', 'option_values', 'quantity_available', 'sku', 'title'],
    ]);
  });

  it('keeps the base fields identical with and without include=variants', async () => {
    const plain = await app.get<ListMyProductsResponse>(`${LIST}?limit=3&page=2`, store.read);
    const rich = await app.get<ListMyProductsResponse>(`${LIST}?limit=3&page=2&include=variants`, store.read);
    expect(rich.body.pagination).toEqual(plain.body.pagination);
    expect(
      rich.body.products.map(({ options, variants, ...rest }) => {
        expect(Array.isArray(options)).toBe(true);
        expect(Array.isArray(variants)).toBe(true);
        return rest;
      }),
    ).toEqual(plain.body.products);
  });

  it('accepts variants in a comma list of include values; any other include adds nothing', async () => {
    const listed = await app.get<ListMyProductsResponse>(
      `${LIST}?include=images,variants&limit=1`,
      store.read,
    );
    expect(listed.body.products[0]?.options).toEqual(['Size']);
    expect(listed.body.products[0]?.variants).toHaveLength(3);
    for (const include of ['images', 'VARIANTS', '']) {
      const res = await app.get<ListMyProductsResponse>(`${LIST}?include=${include}&limit=1`, store.read);
      expect(res.status, include).toBe(200);
      expect(res.body.products[0], include).not.toHaveProperty('options');
      expect(res.body.products[0], include).not.toHaveProperty('variants');
    }
    // An empty page with include=variants is still an empty page.
    const empty = await app.get<ListMyProductsResponse>(
      `${LIST}?include=variants&search=nothing-here`,
      store.read,
    );
    expect(empty.body).toEqual({
      products: [],
      pagination: { page: 1, limit: 20, total_count: 0, total_pages: 0 },
    });
  });

  it('shows only own goods with own_goods=true, and counts that set', async () => {
    const res = await app.get<ListMyProductsResponse>(`${LIST}?own_goods=true`, store.read);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(keys('lamp'));
    expect(res.body.products[0]?.own_goods).toBe(true);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total_count: 1, total_pages: 1 });

    const none = await app.get<ListMyProductsResponse>(`${LIST}?own_goods=true&search=desk`, store.read);
    expect(none.body).toEqual({
      products: [],
      pagination: { page: 1, limit: 20, total_count: 0, total_pages: 0 },
    });

    const theirs = await app.get<ListMyProductsResponse>(`${LIST}?own_goods=true`, other.read);
    expect(ids(theirs.body)).toEqual([P.othersOwn]);

    const all = await app.get<ListMyProductsResponse>(`${LIST}?own_goods=false`, store.read);
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual(keys(...ORDER));

    for (const bad of ['yes', '1', 'TRUE']) {
      const res = await app.get<ErrorBody>(`${LIST}?own_goods=${bad}`, store.read);
      expect(res.status, bad).toBe(400);
      expect(res.body.code, bad).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses unknown query keys, naming them', async () => {
    const res = await app.get<ErrorBody>(`${LIST}?colour=red&sort_by=name`, store.read);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'colour', message: 'unknown parameter' },
      { path: 'sort_by', message: 'unknown parameter' },
    ]);
  });

  it('serves HEAD like GET', async () => {
    const get = await app.request(`${LIST}?limit=2`, { key: store.read });
    const head = await app.request(`${LIST}?limit=2`, { key: store.read, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('needs a credential: 401 without one, 200 with read and read_write keys', async () => {
    const none = await app.get(LIST);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized' });
    expect(none.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
    );
    expect((await app.get(LIST, `sl_test_${'y'.repeat(40)}`)).status).toBe(401);
    // 401 before validation.
    expect((await app.get(`${LIST}?limit=0`)).status).toBe(401);
    const read = await app.get<ListMyProductsResponse>(LIST, store.read);
    const readWrite = await app.get<ListMyProductsResponse>(LIST, store.readWrite);
    expect(read.status).toBe(200);
    expect(readWrite.status).toBe(200);
    expect(readWrite.body).toEqual(read.body);
  });
});

const one = (id: number | string) => `/api/v1/my-products/${id}`;

describe('GET /api/v1/my-products/{productId}', () => {
  it('answers the listing with its options and variants priced at the custom price', async () => {
    const res = await app.get<GetMyProductResponse>(one(P.desk), store.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      product: {
        id: L.desk,
        product_id: P.desk,
        name: 'Standing Desk',
        custom_title: null,
        sku: 'DESK-1',
        image_url: 'https://img.example/desk.jpg',
        wholesale_price_cents: 30000,
        retail_price_cents: 59900,
        custom_retail_price_cents: 64900,
        effective_retail_price_cents: 64900,
        purchase_mode: 'buy_now',
        vendor_fulfilled: false,
        own_goods: false,
        in_stock: true,
        stock_quantity: 10,
        hidden_channels: [],
        withdrawn_at: null,
        created_at: at(9),
        updated_at: UPDATED,
        options: [{ name: 'Size', values: ['Option 1', 'Option 2', 'Option 3'] }],
        variants: [
          {
            id: V.desk?.[0],
            sku: 'DESK-1-1',
            title: 'Option 1',
            option_values: { Size: 'Option 1' },
            price_cents: 64900,
            available_for_sale: true,
            quantity_available: 3,
          },
          {
            id: V.desk?.[1],
            sku: 'DESK-1-2',
            title: 'Option 2',
            option_values: { Size: 'Option 2' },
            price_cents: 64900,
            available_for_sale: false,
            quantity_available: 0,
          },
          {
            id: V.desk?.[2],
            sku: 'DESK-1-3',
            title: 'Option 3',
            option_values: { Size: 'Option 3' },
            price_cents: 64900,
            available_for_sale: true,
            quantity_available: 7,
          },
        ],
      },
    });
  });

  it('prices each variant at its own retail price when there is no custom price', async () => {
    const res = await app.get<GetMyProductResponse>(one(P.scale), store.read);
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({
      custom_retail_price_cents: null,
      effective_retail_price_cents: 3900,
      stock_quantity: 3,
    });
    expect(res.body.product.variants).toEqual([
      {
        id: V.scale?.[0],
        sku: 'SCALE-2-1',
        title: 'Option 1',
        option_values: { Size: 'Option 1' },
        price_cents: 3900,
        available_for_sale: true,
        quantity_available: 1,
      },
      {
        id: V.scale?.[1],
        sku: 'SCALE-2-2',
        title: 'Option 2',
        option_values: { Size: 'Option 2' },
        price_cents: 4500,
        available_for_sale: true,
        quantity_available: 2,
      },
    ]);
  });

  it('answers a bare listing: no options, one default variant, out of stock', async () => {
    const res = await app.get<GetMyProductResponse>(one(P.stool), store.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      product: {
        id: L.stool,
        product_id: P.stool,
        name: 'Plain Stool',
        custom_title: null,
        sku: 'STOOL-1',
        image_url: null,
        wholesale_price_cents: 1000,
        retail_price_cents: 2000,
        custom_retail_price_cents: null,
        effective_retail_price_cents: 2000,
        purchase_mode: 'buy_now',
        vendor_fulfilled: false,
        own_goods: false,
        in_stock: false,
        stock_quantity: 0,
        hidden_channels: [],
        withdrawn_at: null,
        created_at: at(8),
        updated_at: UPDATED,
        options: [],
        variants: [
          {
            id: V.stool?.[0],
            sku: 'STOOL-1',
            title: 'Default',
            option_values: {},
            price_cents: 2000,
            available_for_sale: false,
            quantity_available: 0,
          },
        ],
      },
    });
  });

  it('is not for sale when quote-only, switched to enquiry, or withdrawn from the catalogue', async () => {
    const cases: [keyof typeof P, Record<string, unknown>][] = [
      ['vase', { purchase_mode: 'enquiry', vendor_fulfilled: false, in_stock: true }],
      ['clock', { purchase_mode: 'enquiry', vendor_fulfilled: true, in_stock: true }],
      ['retired', { purchase_mode: 'buy_now', vendor_fulfilled: false, in_stock: true }],
    ];
    for (const [key, fields] of cases) {
      const res = await app.get<GetMyProductResponse>(one(P[key]), store.read);
      expect(res.status, key).toBe(200);
      expect(res.body.product, key).toMatchObject({ id: L[key], product_id: P[key], ...fields });
      expect(
        res.body.product.variants.map((v) => v.available_for_sale),
        key,
      ).toEqual([false]);
      expect(res.body.product.variants[0]?.quantity_available, key).toBeGreaterThan(0);
    }
    const lamp = await app.get<GetMyProductResponse>(one(P.lamp), store.read);
    expect(lamp.body.product).toMatchObject({ own_goods: true, purchase_mode: 'buy_now' });
    expect(lamp.body.product.variants[0]).toMatchObject({
      price_cents: 5000,
      available_for_sale: true,
      quantity_available: 2,
    });
  });

  it('carries the same base fields as the list item', async () => {
    const listed = await app.get<ListMyProductsResponse>(`${LIST}?limit=500`, store.read);
    for (const item of listed.body.products) {
      const res = await app.get<GetMyProductResponse>(one(item.product_id), store.read);
      const { options, variants, ...base } = res.body.product;
      expect(base, String(item.product_id)).toEqual(item);
    }
  });

  it("answers another store's own listing of the same product", async () => {
    const res = await app.get<GetMyProductResponse>(one(P.desk), other.read);
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({
      id: await listingId(other.id, P.desk),
      custom_retail_price_cents: 70000,
      effective_retail_price_cents: 70000,
    });
    expect(res.body.product.variants.map((v) => v.price_cents)).toEqual([70000, 70000, 70000]);
  });

  it('answers 404 NOT_IN_STORE for a product not listed, removed, or listed only by another store', async () => {
    for (const id of [P.unlisted, P.removed, P.otherDesk, P.othersOwn, 999_999, 2_147_483_647]) {
      const res = await app.get<ErrorBody>(one(id), store.read);
      expect(res.status, String(id)).toBe(404);
      expect(res.body, String(id)).toMatchObject({ error: 'not_found', code: 'NOT_IN_STORE' });
      expect(typeof res.body.message).toBe('string');
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('answers 400 VALIDATION_FAILED for an id that is not a positive 32-bit integer', async () => {
    for (const id of ['abc', '1.5', '0', '-1', '1e3', '0x10', '2147483648']) {
      const res = await app.get<ErrorBody>(one(id), store.read);
      expect(res.status, id).toBe(400);
      expect(res.body, id).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    }
  });

  it('serves HEAD like GET: same status and headers, no body', async () => {
    for (const id of [P.desk, P.unlisted]) {
      const get = await app.request(one(id), { key: store.read });
      const head = await app.request(one(id), { key: store.read, method: 'HEAD' });
      expect(head.status, String(id)).toBe(get.status);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(await head.text()).toBe('');
    }
    expect((await app.request(one(P.unlisted), { key: store.read, method: 'HEAD' })).status).toBe(404);
  });

  it('needs a credential: 401 without one, 200 with read and read_write keys', async () => {
    const none = await app.get(one(P.desk));
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized' });
    expect((await app.get(one('abc'))).status).toBe(401);
    const read = await app.get<GetMyProductResponse>(one(P.desk), store.read);
    const readWrite = await app.get<GetMyProductResponse>(one(P.desk), store.readWrite);
    expect(read.status).toBe(200);
    expect(readWrite.status).toBe(200);
    expect(readWrite.body).toEqual(read.body);
  });
});
