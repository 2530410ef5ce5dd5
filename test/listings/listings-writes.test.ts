import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AddMyProductResponse,
  ErrorBody,
  GetMyProductResponse,
  GetProductResponse,
  ListMyProductsResponse,
  ListProductsResponse,
  RemoveMyProductResponse,
  SetMyProductPricingResponse,
  SetMyProductPurchaseModeResponse,
  SetMyProductVendorFulfilledResponse,
} from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, type ProductSpec } from '../helpers/fixtures.ts';
import { send as request, type Sent } from '../helpers/http.ts';

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;
let ownSupplierId: number;
let othersOwnSupplierId: number;

/** The store's minimum margin: wholesale products must sell for at least wholesale × 1.25, rounded up. */
const MIN_MARGIN_BPS = 2500;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Writer Store');
  other = await app.createStore('Other Store');
  const em = app.em();
  await rows(em, sql`UPDATE stores SET min_margin_bps = ${MIN_MARGIN_BPS} WHERE id = ${store.id}`);
  const fx = fixtures(em);
  supplierId = await fx.supplier({ name: 'Maker' });
  ownSupplierId = await fx.supplier({ name: 'Own Workshop', ownerStoreId: store.id });
  othersOwnSupplierId = await fx.supplier({ name: 'Their Workshop', ownerStoreId: other.id });
});
afterAll(() => app.close());

const LIST = '/api/v1/my-products';
const one = (id: number | string) => `${LIST}/${id}`;
const pricing = (id: number | string) => `${LIST}/${id}/pricing`;
const mode = (id: number | string) => `${LIST}/${id}/enquiry-mode`;
const fulfilled = (id: number | string) => `${LIST}/${id}/vendor-fulfilled`;

/** A fresh catalogue product for one test (wholesale 1000, retail 2000 unless told). */
function product(p: Partial<ProductSpec> = {}): Promise<number> {
  return fixtures(app.em()).product({ supplierId, ...p });
}

async function listed(productId: number, o: { customRetail?: number; deleted?: boolean } = {}) {
  await fixtures(app.em()).listing(store.id, productId, o);
}

/**
 * A request as this store, unless `key` says another (null: no credential). `T` is the body the test
 * expects; the wrappers below default to their operation's success response (a refusal is read as
 * `ErrorBody`).
 */
function send<T = unknown>(
  method: string,
  path: string,
  o: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
): Promise<Sent<T>> {
  const key = o.key === null ? undefined : (o.key ?? store.readWrite);
  return request<T>(app, method, path, { key, body: o.body, headers: o.headers });
}

const add = <T = AddMyProductResponse>(body: unknown, key?: string | null) =>
  send<T>('POST', LIST, { body, key });
const remove = <T = RemoveMyProductResponse>(id: number | string, key?: string | null) =>
  send<T>('DELETE', one(id), { key });
const setPrice = <T = SetMyProductPricingResponse>(id: number | string, body: unknown, key?: string | null) =>
  send<T>('PUT', pricing(id), { body, key });
const setMode = <T = SetMyProductPurchaseModeResponse>(
  id: number | string,
  body: unknown,
  key?: string | null,
) => send<T>('PATCH', mode(id), { body, key });
const setFulfilled = <T = SetMyProductVendorFulfilledResponse>(
  id: number | string,
  body: unknown,
  key?: string | null,
) => send<T>('PATCH', fulfilled(id), { body, key });

interface ListingRow {
  id: number;
  product_id: number;
  custom_retail_price_cents: number | null;
  purchase_mode: string | null;
  vendor_fulfilled: boolean;
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

/** The listing row as stored (any state), or undefined. */
async function row(productId: number, storeId = store.id): Promise<ListingRow | undefined> {
  const [found] = await rows<ListingRow>(
    app.em(),
    sql`SELECT id, product_id, custom_retail_price_cents, purchase_mode, vendor_fulfilled,
        deleted_at IS NOT NULL AS deleted, created_at::text, updated_at::text
      FROM listings WHERE store_id = ${storeId} AND product_id = ${productId}`,
  );
  return found;
}

/** Every listing row and domain event of a store: what a refused write must leave untouched. */
async function snapshot(storeId = store.id) {
  const listings = await rows(
    app.em(),
    sql`SELECT id, product_id, custom_retail_price_cents, purchase_mode, vendor_fulfilled,
        deleted_at::text, created_at::text, updated_at::text
      FROM listings WHERE store_id = ${storeId} ORDER BY id`,
  );
  const events = await rows(
    app.em(),
    sql`SELECT id, event, entity_id::integer, data FROM domain_events WHERE store_id = ${storeId} ORDER BY id`,
  );
  return { listings, events };
}

/** The store's events recorded after `since` (an event id), as [event, product id]. */
async function eventsSince(since: number, storeId = store.id): Promise<[string, number, unknown][]> {
  const found = await rows<{ event: string; entity_id: number; data: unknown }>(
    app.em(),
    sql`SELECT event, entity_id::integer AS entity_id, data FROM domain_events
      WHERE store_id = ${storeId} AND id > ${since} ORDER BY id`,
  );
  return found.map((e) => [e.event, e.entity_id, e.data]);
}

async function lastEventId(): Promise<number> {
  const [found] = await rows<{ id: number }>(
    app.em(),
    sql`SELECT COALESCE(max(id), 0)::integer AS id FROM domain_events`,
  );
  return found?.id ?? 0;
}

function expectValidation(res: Sent, label: string) {
  expect(res.status, label).toBe(400);
  expect(res.body, label).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
  expect((res.body as ErrorBody).details?.length, label).toBeGreaterThan(0);
}

describe('POST /api/v1/my-products', () => {
  it('adds a catalogue product: 201 with the new listing, readable at once, product.created recorded', async () => {
    const p = await product({ name: 'Oak Shelf', sku: 'SHELF-1', stock: [3] });
    const since = await lastEventId();
    const res = await add({ product_id: p });
    expect(res.status).toBe(201);
    const stored = await row(p);
    expect(res.body).toEqual({
      message: 'Product added to your store',
      vendor_product: {
        id: stored?.id,
        product_id: p,
        custom_retail_price_cents: null,
        purchase_mode: 'buy_now',
        vendor_fulfilled: false,
      },
    });
    expect(typeof res.body.vendor_product.id).toBe('number');
    expect(stored).toMatchObject({ custom_retail_price_cents: null, purchase_mode: null, deleted: false });
    expect(await eventsSince(since)).toEqual([['product.created', p, { product_id: p }]]);

    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.status).toBe(200);
    expect(detail.body.product).toMatchObject({
      id: stored?.id,
      product_id: p,
      name: 'Oak Shelf',
      custom_retail_price_cents: null,
      effective_retail_price_cents: 2000,
      purchase_mode: 'buy_now',
      vendor_fulfilled: false,
      own_goods: false,
    });
    // The newest listing comes first.
    const list = await app.get<ListMyProductsResponse>(`${LIST}?limit=1`, store.read);
    expect(list.body.products[0]?.product_id).toBe(p);
    const catalogue = await app.get<GetProductResponse>(`/api/v1/products/${p}`, store.read);
    expect(catalogue.body.product).toMatchObject({ in_store: true, custom_retail_price_cents: null });
  });

  it('takes a custom price at or above the minimum: wholesale plus the store margin, rounded up', async () => {
    const p = await product({ wholesale: 1001, retail: 2000 });
    const catalogue = await app.get<GetProductResponse>(`/api/v1/products/${p}`, store.read);
    expect(catalogue.body.product.minimum_price_cents).toBe(1252);

    const before = await snapshot();
    const low = await add({ product_id: p, custom_retail_price_cents: 1251 });
    expect(low.status).toBe(400);
    expect(low.body).toMatchObject({
      error: 'bad_request',
      code: 'PRICE_BELOW_MINIMUM',
      minimum_price_cents: 1252,
    });
    expect(typeof low.body.message).toBe('string');
    expect(await snapshot()).toEqual(before);
    expect((await app.get(one(p), store.read)).status).toBe(404);

    const ok = await add({ product_id: p, custom_retail_price_cents: 1252 });
    expect(ok.status).toBe(201);
    expect(ok.body.vendor_product).toMatchObject({ product_id: p, custom_retail_price_cents: 1252 });
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.body.product).toMatchObject({
      custom_retail_price_cents: 1252,
      effective_retail_price_cents: 1252,
    });
    expect(detail.body.product.variants.map((v) => v.price_cents)).toEqual([1252]);
  });

  it('applies only this store’s margin: another store may list at wholesale', async () => {
    const p = await product({ wholesale: 1001, retail: 2000 });
    const theirs = await add({ product_id: p, custom_retail_price_cents: 1001 }, other.readWrite);
    expect(theirs.status).toBe(201);
    expect(theirs.body.vendor_product.custom_retail_price_cents).toBe(1001);
    const q = await product({ wholesale: 1001, retail: 2000 });
    const below = await add({ product_id: q, custom_retail_price_cents: 1000 }, other.readWrite);
    expect(below.status).toBe(400);
    expect(below.body).toMatchObject({ code: 'PRICE_BELOW_MINIMUM', minimum_price_cents: 1001 });
  });

  it('uses the suggested retail as the minimum of a commission product', async () => {
    const p = await product({ pricingType: 'commission', commissionBps: 1500, wholesale: 0, retail: 10000 });
    for (const price of [0, 9999]) {
      const res = await add({ product_id: p, custom_retail_price_cents: price });
      expect(res.status, String(price)).toBe(400);
      expect(res.body, String(price)).toMatchObject({
        code: 'PRICE_BELOW_MINIMUM',
        minimum_price_cents: 10000,
      });
    }
    expect(await row(p)).toBeUndefined();
    const ok = await add({ product_id: p, custom_retail_price_cents: 10000 });
    expect(ok.status).toBe(201);
    expect(ok.body.vendor_product.custom_retail_price_cents).toBe(10000);

    const q = await product({ pricingType: 'commission', commissionBps: 1500, wholesale: 0, retail: 10000 });
    const above = await add({ product_id: q, custom_retail_price_cents: 15000 });
    expect(above.status).toBe(201);
    expect(above.body.vendor_product.custom_retail_price_cents).toBe(15000);
  });

  it('answers the catalogue selling mode of a quote-only product', async () => {
    const p = await product({ purchaseMode: 'enquiry' });
    const res = await add({ product_id: p });
    expect(res.status).toBe(201);
    expect(res.body.vendor_product).toMatchObject({ product_id: p, purchase_mode: 'enquiry' });
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.body.product.purchase_mode).toBe('enquiry');
    expect(detail.body.product.variants[0]?.available_for_sale).toBe(false);
  });

  it('adds the store’s own goods, marked own_goods', async () => {
    const p = await product({ supplierId: ownSupplierId, name: 'Own Bowl' });
    const res = await add({ product_id: p });
    expect(res.status).toBe(201);
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.body.product.own_goods).toBe(true);
    const own = await app.get<ListMyProductsResponse>(`${LIST}?own_goods=true&limit=500`, store.read);
    expect(own.body.products.map((x) => x.product_id)).toContain(p);
  });

  it("answers 404 PRODUCT_NOT_FOUND for an unknown or inactive product or another store's own goods", async () => {
    const inactive = await product({ active: false });
    const othersOwn = await product({ supplierId: othersOwnSupplierId });
    const before = await snapshot();
    for (const id of [999_999, 2_147_483_647, inactive, othersOwn]) {
      const res = await add<ErrorBody>({ product_id: id });
      expect(res.status, String(id)).toBe(404);
      expect(res.body, String(id)).toMatchObject({ error: 'not_found', code: 'PRODUCT_NOT_FOUND' });
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
    // A custom price does not change the answer.
    expect((await add({ product_id: inactive, custom_retail_price_cents: 5000 })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    // The owner may list its own goods.
    expect((await add({ product_id: othersOwn }, other.readWrite)).status).toBe(201);
  });

  it('answers 409 ALREADY_LISTED for a product in the store and changes nothing', async () => {
    const p = await product();
    await listed(p, { customRetail: 2400 });
    const before = await snapshot();
    for (const body of [{ product_id: p }, { product_id: p, custom_retail_price_cents: 3000 }]) {
      const res = await add(body);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'conflict', code: 'ALREADY_LISTED', product_id: p });
    }
    expect(await snapshot()).toEqual(before);
    expect((await row(p))?.custom_retail_price_cents).toBe(2400);
  });

  it('answers 400 VALIDATION_FAILED for a missing or malformed product id or price, and writes nothing', async () => {
    const p = await product();
    const before = await snapshot();
    const bodies: unknown[] = [
      {},
      { product_id: 'abc' },
      { product_id: 1.5 },
      { product_id: 0 },
      { product_id: -1 },
      { product_id: null },
      { product_id: true },
      { product_id: 2_147_483_648 },
      { product_id: [p] },
      { custom_retail_price_cents: 2500 },
      { product_id: p, custom_retail_price_cents: -1 },
      { product_id: p, custom_retail_price_cents: 2500.5 },
      { product_id: p, custom_retail_price_cents: 'abc' },
      { product_id: p, custom_retail_price_cents: 2_147_483_648 },
      [],
      // A JSON string (the helper sends strings as they are).
      '"product"',
      'null',
    ];
    for (const body of bodies) expectValidation(await add(body), JSON.stringify(body));
    expect(await snapshot()).toEqual(before);
    expect(await row(p)).toBeUndefined();
  });

  it('answers 415 for a body that is not JSON, and 400 INVALID_JSON for malformed JSON', async () => {
    const p = await product();
    const before = await snapshot();
    const plain = await send('POST', LIST, {
      body: JSON.stringify({ product_id: p }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    expect(plain.body).toMatchObject({ error: 'bad_request', code: 'UNSUPPORTED_MEDIA_TYPE' });
    const form = await send('POST', LIST, {
      body: `product_id=${p}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const broken = await send('POST', LIST, { body: '{"product_id": ' });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ error: 'bad_request', code: 'INVALID_JSON' });
    expect(await snapshot()).toEqual(before);
  });

  it('reads a JSON body sent with a UTF-8 charset parameter, and refuses other charsets', async () => {
    const p = await product();
    const res = await send<AddMyProductResponse>('POST', LIST, {
      body: JSON.stringify({ product_id: p }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(res.status).toBe(201);
    expect(res.body.vendor_product.product_id).toBe(p);
    const latin = await send('POST', LIST, {
      body: JSON.stringify({ product_id: await product() }),
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    expect(latin.status).toBe(415);
    expect(latin.body).toMatchObject({ error: 'bad_request', code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('restoring a removed listing', () => {
  it('restores the same listing with its earlier price, selling mode and fulfilment', async () => {
    const p = await product({ wholesale: 1000, retail: 2000 });
    const added = await add({ product_id: p });
    expect(added.status).toBe(201);
    expect((await setPrice(p, { custom_retail_price_cents: 2600 })).status).toBe(200);
    expect((await setMode(p, { purchase_mode: 'enquiry' })).status).toBe(200);
    expect((await setFulfilled(p, { vendor_fulfilled: true })).status).toBe(200);
    expect((await remove(p)).status).toBe(200);
    expect((await app.get(one(p), store.read)).status).toBe(404);

    const since = await lastEventId();
    const res = await add({ product_id: p });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Product restored to your store',
      vendor_product: {
        id: added.body.vendor_product.id,
        product_id: p,
        custom_retail_price_cents: 2600,
        purchase_mode: 'enquiry',
        vendor_fulfilled: true,
      },
    });
    expect(await eventsSince(since)).toEqual([['product.created', p, { product_id: p }]]);
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.status).toBe(200);
    expect(detail.body.product).toMatchObject({
      id: added.body.vendor_product.id,
      custom_retail_price_cents: 2600,
      effective_retail_price_cents: 2600,
      purchase_mode: 'enquiry',
      vendor_fulfilled: true,
    });
    // Restored means listed again: adding once more is a conflict.
    expect((await add({ product_id: p })).status).toBe(409);
  });

  it('restores at a new price when one is given', async () => {
    const p = await product();
    await listed(p, { customRetail: 2600, deleted: true });
    const id = (await row(p))?.id;
    const res = await add({ product_id: p, custom_retail_price_cents: 3100 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Product restored to your store',
      vendor_product: {
        id,
        product_id: p,
        custom_retail_price_cents: 3100,
        purchase_mode: 'buy_now',
        vendor_fulfilled: false,
      },
    });
    expect(await row(p)).toMatchObject({ id, deleted: false, custom_retail_price_cents: 3100 });
  });

  it('restores without a price when none was set', async () => {
    const p = await product();
    await listed(p, { deleted: true });
    const res = await add({ product_id: p });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Product restored to your store');
    expect(res.body.vendor_product.custom_retail_price_cents).toBeNull();
  });

  it('drops an earlier price that is now below the minimum', async () => {
    const p = await product({ wholesale: 1000, retail: 4000 });
    await listed(p, { customRetail: 1300, deleted: true });
    await rows(app.em(), sql`UPDATE products SET wholesale_price_cents = 2000 WHERE id = ${p}`);
    const res = await add({ product_id: p });
    expect(res.status).toBe(201);
    expect(res.body.vendor_product.custom_retail_price_cents).toBeNull();
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.body.product).toMatchObject({
      custom_retail_price_cents: null,
      effective_retail_price_cents: 4000,
    });
  });

  it('keeps the listing removed when the new price is below the minimum', async () => {
    const p = await product({ wholesale: 1000 });
    await listed(p, { customRetail: 2600, deleted: true });
    const before = await snapshot();
    const res = await add({ product_id: p, custom_retail_price_cents: 1249 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'PRICE_BELOW_MINIMUM', minimum_price_cents: 1250 });
    expect(await snapshot()).toEqual(before);
    expect(await row(p)).toMatchObject({ deleted: true, custom_retail_price_cents: 2600 });
    expect((await app.get(one(p), store.read)).status).toBe(404);
  });

  it('does not restore a removed listing of a product since withdrawn from the catalogue', async () => {
    const p = await product();
    await listed(p, { deleted: true });
    await rows(app.em(), sql`UPDATE products SET active = false WHERE id = ${p}`);
    const res = await add<ErrorBody>({ product_id: p });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('PRODUCT_NOT_FOUND');
    expect((await row(p))?.deleted).toBe(true);
  });
});

describe('DELETE /api/v1/my-products/{productId}', () => {
  it('removes the listing: 200, gone from the reads, back in the catalogue as not in the store', async () => {
    const maker = await fixtures(app.em()).supplier({ name: 'Delete Maker' });
    const p = await product({ supplierId: maker, name: 'Teak Bench' });
    const q = await product({ supplierId: maker, name: 'Teak Table' });
    await listed(p, { customRetail: 2500 });
    const catalogue = (extra: string) =>
      app.get<ListProductsResponse>(
        `/api/v1/products?supplier_id=${maker}${extra}&sort_by=name&order=asc`,
        store.read,
      );
    const pids = (body: ListProductsResponse) => body.products.map((x) => x.id);
    expect(pids((await catalogue('&exclude_in_store=true')).body)).toEqual([q]);

    const id = (await row(p))?.id;
    const since = await lastEventId();
    const res = await remove(p);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Product removed from your store' });
    expect(await eventsSince(since)).toEqual([['product.deleted', p, { product_id: p }]]);
    // A soft delete: the row stays, marked removed.
    expect(await row(p)).toMatchObject({ id, deleted: true });

    const gone = await app.get(one(p), store.read);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: 'not_found', code: 'NOT_IN_STORE' });
    const list = await app.get<ListMyProductsResponse>(`${LIST}?limit=500`, store.read);
    expect(list.body.products.map((x) => x.product_id)).not.toContain(p);

    expect(pids((await catalogue('&exclude_in_store=true')).body)).toEqual([p, q]);
    const all = await catalogue('');
    expect(all.body.products.map((x) => [x.id, x.in_store, x.custom_retail_price_cents])).toEqual([
      [p, false, null],
      [q, false, null],
    ]);
  });

  it('answers 404 NOT_IN_STORE the second time, and for a product never listed or listed by another store', async () => {
    const p = await product();
    const theirs = await product();
    await listed(p);
    await fixtures(app.em()).listing(other.id, theirs);
    expect((await remove(p)).status).toBe(200);
    const before = await snapshot();
    const theirsBefore = await snapshot(other.id);
    for (const id of [p, theirs, 999_999]) {
      const res = await remove(id);
      expect(res.status, String(id)).toBe(404);
      expect(res.body, String(id)).toMatchObject({ error: 'not_found', code: 'NOT_IN_STORE' });
    }
    expect(await snapshot()).toEqual(before);
    expect(await snapshot(other.id)).toEqual(theirsBefore);
    expect((await app.get(one(theirs), other.read)).status).toBe(200);
  });

  it('answers 400 for an id that is not a positive integer', async () => {
    for (const id of ['abc', '1.5', '0', '-3', '2147483648']) {
      expectValidation(await remove(id), id);
    }
  });
});

describe('PUT /api/v1/my-products/{productId}/pricing', () => {
  it('sets the custom price: 200 with the listing; reads, variants and the catalogue follow', async () => {
    const p = await product({ wholesale: 1000, retail: 2000, stock: [1, 2] });
    await listed(p);
    await rows(
      app.em(),
      sql`UPDATE listings SET updated_at = '2026-01-01T00:00:00Z' WHERE store_id = ${store.id} AND product_id = ${p}`,
    );
    const since = await lastEventId();
    const res = await setPrice(p, { custom_retail_price_cents: 2500 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Price updated',
      vendor_product: {
        id: (await row(p))?.id,
        product_id: p,
        custom_retail_price_cents: 2500,
        purchase_mode: 'buy_now',
        vendor_fulfilled: false,
      },
    });
    expect(await eventsSince(since)).toEqual([['product.updated', p, { product_id: p }]]);
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.body.product).toMatchObject({
      retail_price_cents: 2000,
      custom_retail_price_cents: 2500,
      effective_retail_price_cents: 2500,
    });
    expect(detail.body.product.updated_at).not.toBe('2026-01-01T00:00:00.000Z');
    expect(detail.body.product.variants.map((v) => v.price_cents)).toEqual([2500, 2500]);
    const catalogue = await app.get<GetProductResponse>(`/api/v1/products/${p}`, store.read);
    expect(catalogue.body.product).toMatchObject({
      custom_retail_price_cents: 2500,
      earn_per_sale_cents: 1500,
    });
  });

  it('clears the custom price with null: back to the suggested price', async () => {
    const p = await product({ wholesale: 1000, retail: 2000 });
    await listed(p, { customRetail: 2700 });
    const res = await setPrice(p, { custom_retail_price_cents: null });
    expect(res.status).toBe(200);
    expect(res.body.vendor_product).toMatchObject({ product_id: p, custom_retail_price_cents: null });
    expect((await row(p))?.custom_retail_price_cents).toBeNull();
    const detail = await app.get<GetMyProductResponse>(one(p), store.read);
    expect(detail.body.product).toMatchObject({
      custom_retail_price_cents: null,
      effective_retail_price_cents: 2000,
    });
    expect(detail.body.product.variants[0]?.price_cents).toBe(2000);
    // Clearing again is fine.
    expect((await setPrice(p, { custom_retail_price_cents: null })).status).toBe(200);
  });

  it('refuses a price below the minimum with 400 PRICE_BELOW_MINIMUM and keeps the old price', async () => {
    const p = await product({ wholesale: 1001, retail: 2000 });
    await listed(p, { customRetail: 1800 });
    const before = await snapshot();
    const res = await setPrice(p, { custom_retail_price_cents: 1251 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      code: 'PRICE_BELOW_MINIMUM',
      minimum_price_cents: 1252,
    });
    expect(await snapshot()).toEqual(before);
    expect(
      (await app.get<GetMyProductResponse>(one(p), store.read)).body.product.effective_retail_price_cents,
    ).toBe(1800);

    const ok = await setPrice(p, { custom_retail_price_cents: 1252 });
    expect(ok.status).toBe(200);
    expect(ok.body.vendor_product.custom_retail_price_cents).toBe(1252);
  });

  it('holds a commission product to its suggested retail', async () => {
    const p = await product({ pricingType: 'commission', commissionBps: 1000, wholesale: 0, retail: 8000 });
    await listed(p);
    const low = await setPrice(p, { custom_retail_price_cents: 7999 });
    expect(low.status).toBe(400);
    expect(low.body).toMatchObject({ code: 'PRICE_BELOW_MINIMUM', minimum_price_cents: 8000 });
    expect((await setPrice(p, { custom_retail_price_cents: 8000 })).status).toBe(200);
    expect(
      (await setPrice(p, { custom_retail_price_cents: 9000 })).body.vendor_product.custom_retail_price_cents,
    ).toBe(9000);
  });

  it('answers 400 VALIDATION_FAILED for a missing, negative or malformed price and changes nothing', async () => {
    const p = await product();
    await listed(p, { customRetail: 2200 });
    const before = await snapshot();
    const bodies: unknown[] = [
      {},
      { custom_retail_price_cents: -1 },
      { custom_retail_price_cents: 2500.5 },
      { custom_retail_price_cents: 'abc' },
      { custom_retail_price_cents: true },
      { custom_retail_price_cents: 2_147_483_648 },
      { price: 2500 },
    ];
    for (const body of bodies) expectValidation(await setPrice(p, body), JSON.stringify(body));
    const plain = await send('PUT', pricing(p), {
      body: JSON.stringify({ custom_retail_price_cents: 2500 }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    const broken = await send<ErrorBody>('PUT', pricing(p), { body: '{"custom_retail_price_cents": 25' });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('INVALID_JSON');
    expect(await snapshot()).toEqual(before);
  });

  it('answers 404 NOT_IN_STORE for a product not listed, removed, or listed by another store', async () => {
    const unlisted = await product();
    const removed = await product();
    const theirs = await product();
    await listed(removed, { customRetail: 2500, deleted: true });
    await fixtures(app.em()).listing(other.id, theirs, { customRetail: 2600 });
    const before = await snapshot();
    const theirsBefore = await snapshot(other.id);
    for (const id of [unlisted, removed, theirs, 999_999]) {
      const res = await setPrice(id, { custom_retail_price_cents: 3000 });
      expect(res.status, String(id)).toBe(404);
      expect(res.body, String(id)).toMatchObject({ error: 'not_found', code: 'NOT_IN_STORE' });
    }
    expect(await snapshot()).toEqual(before);
    expect(await snapshot(other.id)).toEqual(theirsBefore);
    expectValidation(await setPrice('abc', { custom_retail_price_cents: 3000 }), 'abc');
  });

  it("refuses a productId in the body (the product is the path's), changing neither listing", async () => {
    const p = await product();
    const q = await product();
    await listed(p);
    await listed(q);
    const res = await setPrice<ErrorBody>(p, { productId: q, custom_retail_price_cents: 2900 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: 'productId', message: 'unknown field (taken from the path)' }],
    });
    expect((await row(p))?.custom_retail_price_cents).toBeNull();
    expect((await row(q))?.custom_retail_price_cents).toBeNull();
  });
});

describe('PATCH /api/v1/my-products/{productId}/enquiry-mode', () => {
  it('switches a listing to enquiry and back; reads and availability follow', async () => {
    const p = await product({ stock: [2, 0] });
    await listed(p);
    const since = await lastEventId();
    const res = await setMode(p, { purchase_mode: 'enquiry' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Selling mode updated',
      vendor_product: {
        id: (await row(p))?.id,
        product_id: p,
        custom_retail_price_cents: null,
        purchase_mode: 'enquiry',
        vendor_fulfilled: false,
      },
    });
    expect(await eventsSince(since)).toEqual([['product.updated', p, { product_id: p }]]);
    const sale = async () => {
      const detail = await app.get<GetMyProductResponse>(one(p), store.read);
      return [
        detail.body.product.purchase_mode,
        detail.body.product.variants.map((v) => v.available_for_sale),
      ];
    };
    expect(await sale()).toEqual(['enquiry', [false, false]]);
    const listedItem = (
      await app.get<ListMyProductsResponse>(`${LIST}?limit=500&include=variants`, store.read)
    ).body.products.find((x) => x.product_id === p);
    expect(listedItem?.purchase_mode).toBe('enquiry');
    expect(listedItem?.variants?.map((v) => v.available_for_sale)).toEqual([false, false]);
    // The catalogue shows the store's selling mode too.
    expect(
      (await app.get<GetProductResponse>(`/api/v1/products/${p}`, store.read)).body.product.purchase_mode,
    ).toBe('enquiry');
    expect(
      (await app.get<GetProductResponse>(`/api/v1/products/${p}`, other.read)).body.product.purchase_mode,
    ).toBe('buy_now');

    const back = await setMode(p, { purchase_mode: 'buy_now' });
    expect(back.status).toBe(200);
    expect(back.body.vendor_product.purchase_mode).toBe('buy_now');
    expect(await sale()).toEqual(['buy_now', [true, false]]);
  });

  it('refuses buy_now for a quote-only catalogue product with 409 PURCHASE_MODE_LOCKED; enquiry is fine', async () => {
    const p = await product({ purchaseMode: 'enquiry' });
    await listed(p);
    const before = await snapshot();
    const res = await setMode(p, { purchase_mode: 'buy_now' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', code: 'PURCHASE_MODE_LOCKED' });
    expect(typeof res.body.message).toBe('string');
    expect(await snapshot()).toEqual(before);
    expect((await app.get<GetMyProductResponse>(one(p), store.read)).body.product.purchase_mode).toBe(
      'enquiry',
    );

    const ok = await setMode(p, { purchase_mode: 'enquiry' });
    expect(ok.status).toBe(200);
    expect(ok.body.vendor_product).toMatchObject({ product_id: p, purchase_mode: 'enquiry' });
  });

  it('answers 400 VALIDATION_FAILED for a missing or unknown mode and changes nothing', async () => {
    const p = await product();
    await listed(p);
    const before = await snapshot();
    for (const body of [
      {},
      { purchase_mode: 'BUY_NOW' },
      { purchase_mode: 'quote' },
      { purchase_mode: '' },
      { purchase_mode: null },
      { purchase_mode: 1 },
      { purchase_mode: ['enquiry'] },
    ]) {
      expectValidation(await setMode(p, body), JSON.stringify(body));
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers 404 NOT_IN_STORE for a product not in the store', async () => {
    const unlisted = await product();
    const removed = await product();
    await listed(removed, { deleted: true });
    for (const id of [unlisted, removed, 999_999]) {
      const res = await setMode<ErrorBody>(id, { purchase_mode: 'enquiry' });
      expect(res.status, String(id)).toBe(404);
      expect(res.body.code, String(id)).toBe('NOT_IN_STORE');
    }
    expect((await row(removed))?.purchase_mode).toBeNull();
  });
});

describe('PATCH /api/v1/my-products/{productId}/vendor-fulfilled', () => {
  it('marks and unmarks the listing as shipped by the vendor', async () => {
    const p = await product();
    await listed(p, { customRetail: 2300 });
    const since = await lastEventId();
    const res = await setFulfilled(p, { vendor_fulfilled: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Fulfilment updated',
      vendor_product: {
        id: (await row(p))?.id,
        product_id: p,
        custom_retail_price_cents: 2300,
        purchase_mode: 'buy_now',
        vendor_fulfilled: true,
      },
    });
    expect(await eventsSince(since)).toEqual([['product.updated', p, { product_id: p }]]);
    expect((await app.get<GetMyProductResponse>(one(p), store.read)).body.product.vendor_fulfilled).toBe(
      true,
    );

    const off = await setFulfilled(p, { vendor_fulfilled: false });
    expect(off.status).toBe(200);
    expect(off.body.vendor_product.vendor_fulfilled).toBe(false);
    expect((await app.get<GetMyProductResponse>(one(p), store.read)).body.product.vendor_fulfilled).toBe(
      false,
    );
  });

  it('accepts the strings "true" and "false" and never reads "false" as true', async () => {
    const p = await product();
    await listed(p);
    const on = await setFulfilled(p, { vendor_fulfilled: 'true' });
    expect(on.status).toBe(200);
    expect(on.body.vendor_product.vendor_fulfilled).toBe(true);
    expect((await row(p))?.vendor_fulfilled).toBe(true);
    const off = await setFulfilled(p, { vendor_fulfilled: 'false' });
    expect(off.status).toBe(200);
    expect(off.body.vendor_product.vendor_fulfilled).toBe(false);
    expect((await row(p))?.vendor_fulfilled).toBe(false);
    expect((await app.get<GetMyProductResponse>(one(p), store.read)).body.product.vendor_fulfilled).toBe(
      false,
    );
  });

  it('answers 400 VALIDATION_FAILED for anything but a boolean and changes nothing', async () => {
    const p = await product();
    await listed(p);
    await setFulfilled(p, { vendor_fulfilled: true });
    const before = await snapshot();
    for (const body of [
      {},
      { vendor_fulfilled: null },
      { vendor_fulfilled: 1 },
      { vendor_fulfilled: 0 },
      { vendor_fulfilled: 'yes' },
      { vendor_fulfilled: 'TRUE' },
      { vendor_fulfilled: 'False' },
      { vendor_fulfilled: '' },
      { vendor_fulfilled: [false] },
    ]) {
      expectValidation(await setFulfilled(p, body), JSON.stringify(body));
    }
    expect(await snapshot()).toEqual(before);
    expect((await row(p))?.vendor_fulfilled).toBe(true);
  });

  it('answers 404 NOT_IN_STORE for a product not in the store', async () => {
    const unlisted = await product();
    const theirs = await product();
    await fixtures(app.em()).listing(other.id, theirs);
    for (const id of [unlisted, theirs, 999_999]) {
      const res = await setFulfilled<ErrorBody>(id, { vendor_fulfilled: true });
      expect(res.status, String(id)).toBe(404);
      expect(res.body.code, String(id)).toBe('NOT_IN_STORE');
    }
    expect((await row(theirs, other.id))?.vendor_fulfilled).toBe(false);
  });
});

describe('credentials and scopes on the listing writes', () => {
  it('401 without a credential, 403 INSUFFICIENT_SCOPE for a read key, nothing changed; read_write works', async () => {
    const p = await product({ wholesale: 1000, retail: 2000 });
    const fresh = await product();
    const bulkOne = await product();
    await listed(p);
    const writes: [string, string, unknown, number][] = [
      ['POST', LIST, { product_id: fresh }, 201],
      ['POST', `${LIST}/bulk`, { mode: 'ids', product_ids: [bulkOne] }, 200],
      ['PUT', pricing(p), { custom_retail_price_cents: 3000 }, 200],
      ['PATCH', mode(p), { purchase_mode: 'enquiry' }, 200],
      ['PATCH', fulfilled(p), { vendor_fulfilled: true }, 200],
      ['POST', `${LIST}/bulk-remove`, { mode: 'ids', product_ids: [bulkOne] }, 200],
      ['DELETE', one(p), undefined, 200],
    ];
    const before = await snapshot();
    for (const [method, path, body] of writes) {
      const label = `${method} ${path}`;
      const none = await send(method, path, { body, key: null });
      expect(none.status, label).toBe(401);
      expect(none.body, label).toMatchObject({ error: 'unauthorized' });
      expect(none.headers.get('www-authenticate'), label).toBe(
        'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
      );
      const bad = await send(method, path, { body, key: `sl_test_${'z'.repeat(40)}` });
      expect(bad.status, label).toBe(401);

      const read = await send<ErrorBody>(method, path, { body, key: store.read });
      expect(read.status, label).toBe(403);
      expect(read.body, label).toMatchObject({
        error: 'forbidden',
        code: 'INSUFFICIENT_SCOPE',
        required_scope: 'read_write',
      });
      expect(read.body.request_id, label).toBe(read.headers.get('x-request-id'));
      // The scope is checked before the input: a read key with a bad body is still a 403.
      if (method !== 'DELETE') {
        const readBad = await send(method, path, { body: { nonsense: true }, key: store.read });
        expect(readBad.status, label).toBe(403);
      }
    }
    expect(await snapshot()).toEqual(before);
    expect((await app.get<GetMyProductResponse>(one(p), store.read)).body.product).toMatchObject({
      custom_retail_price_cents: null,
      purchase_mode: 'buy_now',
      vendor_fulfilled: false,
    });
    expect((await app.get(one(fresh), store.read)).status).toBe(404);

    // Reads stay open to the read key.
    expect((await app.get(LIST, store.read)).status).toBe(200);
    expect((await app.get(one(p), store.read)).status).toBe(200);

    for (const [method, path, body, status] of writes) {
      const res = await send(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(status);
    }
    expect(await row(p)).toMatchObject({
      custom_retail_price_cents: 3000,
      purchase_mode: 'enquiry',
      vendor_fulfilled: true,
      deleted: true,
    });
    expect(await row(fresh)).toMatchObject({ deleted: false });
    expect(await row(bulkOne)).toMatchObject({ deleted: true });
  });
});
