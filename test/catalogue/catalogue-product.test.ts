import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetProductResponse, ListProductsResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;
let ownSupplierId: number;
let desk: number;
let plain: number;
let inactive: number;
let othersOwn: number;
let storesOwn: number;
let widthOnly: number;
let commission: number;
let deskVariantIds: number[];
let plainVariantId: number;

const T0 = '2026-01-01T00:00:00.000Z';

async function variantIds(productId: number): Promise<number[]> {
  const found = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY position, id`,
  );
  return found.map((r) => r.id);
}

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Detail Store');
  other = await app.createStore('Other Store');
  const em = app.em();
  const fx = fixtures(em);
  const desks = await fx.category({ slug: 'desks', name: 'Desks' });
  const oakline = await fx.brand('Oakline');
  supplierId = await fx.supplier({ name: 'Desk Maker' });
  const othersSupplier = await fx.supplier({ name: 'Other Own', ownerStoreId: other.id });
  ownSupplierId = await fx.supplier({ name: 'Store Own', ownerStoreId: store.id });

  desk = await fx.product({
    name: 'Standing Desk',
    description: 'Electric, adjustable height',
    sku: 'DESK-1',
    supplierId,
    brandId: oakline,
    categoryId: desks,
    wholesale: 30000,
    retail: 59900,
    imageUrl: 'https://img.example/desk.jpg',
    weightOz: 12.5,
    dimensions: [120, 60, 75.5],
    stock: [3, 0, 7],
    drawings: 2,
  });
  // Inserted out of position order: the answer orders by position, then insertion.
  for (const [url, alt, position] of [
    ['https://img.example/desk-back.jpg', 'Back', 2],
    ['https://img.example/desk-front.jpg', 'Front', 0],
    ['https://img.example/desk-side.jpg', 'Side', 1],
    ['https://img.example/desk-top.jpg', 'Top', 2],
  ] as const) {
    await rows(
      em,
      sql`INSERT INTO product_images (product_id, url, alt, position) VALUES (${desk}, ${url}, ${alt}, ${position})`,
    );
  }
  await fx.listing(store.id, desk, { customRetail: 64900 });

  plain = await fx.product({
    name: 'Plain Stool',
    sku: 'STOOL-1',
    supplierId,
    categoryRaw: 'Seating',
    wholesale: 1000,
    retail: 2000,
    imageUrl: null,
    weightOz: null,
    dimensions: null,
    stock: [0],
  });
  // A removed listing: its custom price no longer applies.
  await fx.listing(store.id, plain, { customRetail: 2500, deleted: true });

  inactive = await fx.product({ name: 'Retired', supplierId, active: false, images: 1 });
  othersOwn = await fx.product({ name: 'Other Own Lamp', supplierId: othersSupplier, stock: [4] });
  storesOwn = await fx.product({
    name: 'Store Own Lamp',
    sku: 'OWN-1',
    supplierId: ownSupplierId,
    retail: 5000,
    wholesale: 2000,
    imageUrl: 'https://img.example/own.jpg',
    stock: [4],
  });
  widthOnly = await fx.product({ name: 'Rug', supplierId, dimensions: null });
  await rows(em, sql`UPDATE products SET width_cm = 12.5 WHERE id = ${widthOnly}`);
  commission = await fx.product({
    name: 'Commission Vase',
    supplierId,
    pricingType: 'commission',
    commissionBps: 1500,
    purchaseMode: 'enquiry',
    wholesale: 0,
    retail: 10000,
  });

  deskVariantIds = await variantIds(desk);
  [plainVariantId] = (await variantIds(plain)) as [number];
});
afterAll(() => app.close());

const path = (id: number | string) => `/api/v1/products/${id}`;

describe('GET /api/v1/products/{id}', () => {
  it('answers the full product: list fields, images by position, options, variants, dimensions, drawings', async () => {
    const res = await app.get(path(desk), store.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      product: {
        id: desk,
        name: 'Standing Desk',
        description: 'Electric, adjustable height',
        sku: 'DESK-1',
        wholesale_price_cents: 30000,
        retail_price_cents: 59900,
        custom_retail_price_cents: 64900,
        image_url: 'https://img.example/desk.jpg',
        in_stock: true,
        stock_quantity: 10,
        metadata: { category: 'Desks', weight_oz: 12.5 },
        earn_per_sale_cents: 34900,
        minimum_price_cents: 30000,
        brand: 'Oakline',
        supplier_id: supplierId,
        pricing_type: 'wholesale',
        purchase_mode: 'buy_now',
        in_store: true,
        created_at: T0,
        updated_at: T0,
        images: [
          { url: 'https://img.example/desk-front.jpg', alt: 'Front', position: 0 },
          { url: 'https://img.example/desk-side.jpg', alt: 'Side', position: 1 },
          { url: 'https://img.example/desk-back.jpg', alt: 'Back', position: 2 },
          { url: 'https://img.example/desk-top.jpg', alt: 'Top', position: 2 },
        ],
        options: [{ name: 'Size', values: ['Option 1', 'Option 2', 'Option 3'] }],
        variants: [
          {
            id: deskVariantIds[0],
            sku: 'DESK-1-1',
            title: 'Option 1',
            option_values: { Size: 'Option 1' },
            wholesale_price_cents: 30000,
            retail_price_cents: 59900,
            in_stock: true,
            stock_quantity: 3,
          },
          {
            id: deskVariantIds[1],
            sku: 'DESK-1-2',
            title: 'Option 2',
            option_values: { Size: 'Option 2' },
            wholesale_price_cents: 30000,
            retail_price_cents: 59900,
            in_stock: false,
            stock_quantity: 0,
          },
          {
            id: deskVariantIds[2],
            sku: 'DESK-1-3',
            title: 'Option 3',
            option_values: { Size: 'Option 3' },
            wholesale_price_cents: 30000,
            retail_price_cents: 59900,
            in_stock: true,
            stock_quantity: 7,
          },
        ],
        assembled_dimensions: { width_cm: 120, depth_cm: 60, height_cm: 75.5 },
        drawings: [
          { url: `https://img.example/d/${desk}/1.pdf`, title: 'Drawing' },
          { url: `https://img.example/d/${desk}/2.pdf`, title: 'Drawing' },
        ],
        hidden_channels: [],
      },
    });
    expect(deskVariantIds).toHaveLength(3);
  });

  it('carries the same list fields as the catalogue list item', async () => {
    const detail = await app.get<GetProductResponse>(path(desk), store.read);
    const list = await app.get<ListProductsResponse>('/api/v1/products?search=DESK-1&limit=5', store.read);
    expect(list.status).toBe(200);
    const item = list.body.products.find((p) => p.id === desk);
    const { images, options, variants, assembled_dimensions, drawings, hidden_channels, ...listFields } =
      detail.body.product;
    expect(listFields).toEqual(item);
  });

  it("shows the store's own view: another store sees no listing price and not in_store", async () => {
    const res = await app.get<GetProductResponse>(path(desk), other.read);
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({
      id: desk,
      custom_retail_price_cents: null,
      in_store: false,
      earn_per_sale_cents: 29900,
      minimum_price_cents: 30000,
      stock_quantity: 10,
    });
  });

  it('answers empty collections, null dimensions and out of stock for a bare product', async () => {
    const res = await app.get(path(plain), store.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      product: {
        id: plain,
        name: 'Plain Stool',
        description: '',
        sku: 'STOOL-1',
        wholesale_price_cents: 1000,
        retail_price_cents: 2000,
        custom_retail_price_cents: null,
        image_url: null,
        in_stock: false,
        stock_quantity: 0,
        metadata: { category: 'Seating', weight_oz: null },
        earn_per_sale_cents: 1000,
        minimum_price_cents: 1000,
        brand: null,
        supplier_id: supplierId,
        pricing_type: 'wholesale',
        purchase_mode: 'buy_now',
        in_store: false,
        created_at: T0,
        updated_at: T0,
        images: [],
        options: [],
        variants: [
          {
            id: plainVariantId,
            sku: 'STOOL-1',
            title: 'Default',
            option_values: {},
            wholesale_price_cents: 1000,
            retail_price_cents: 2000,
            in_stock: false,
            stock_quantity: 0,
          },
        ],
        assembled_dimensions: null,
        drawings: [],
        hidden_channels: [],
      },
    });
  });

  it('answers partial dimensions with the missing ones null', async () => {
    const res = await app.get<GetProductResponse>(path(widthOnly), store.read);
    expect(res.status).toBe(200);
    expect(res.body.product.assembled_dimensions).toEqual({
      width_cm: 12.5,
      depth_cm: null,
      height_cm: null,
    });
  });

  it('prices a commission product by its commission', async () => {
    const res = await app.get<GetProductResponse>(path(commission), store.read);
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({
      pricing_type: 'commission',
      purchase_mode: 'enquiry',
      retail_price_cents: 10000,
      earn_per_sale_cents: 1500,
      minimum_price_cents: 10000,
    });
  });

  it('keeps product stock equal to the sum of its variants after a stock change', async () => {
    await rows(
      app.em(),
      sql`UPDATE product_variants SET stock_quantity = 0 WHERE id IN (${deskVariantIds[0]}, ${deskVariantIds[2]})`,
    );
    try {
      const res = await app.get<GetProductResponse>(path(desk), store.read);
      expect(res.status).toBe(200);
      expect(res.body.product.stock_quantity).toBe(0);
      expect(res.body.product.in_stock).toBe(false);
      expect(res.body.product.variants.map((v) => [v.stock_quantity, v.in_stock])).toEqual([
        [0, false],
        [0, false],
        [0, false],
      ]);
      await rows(
        app.em(),
        sql`UPDATE product_variants SET stock_quantity = 11 WHERE id = ${deskVariantIds[1]}`,
      );
      const after = await app.get<GetProductResponse>(path(desk), store.read);
      expect(after.body.product.stock_quantity).toBe(11);
      expect(after.body.product.in_stock).toBe(true);
      expect(after.body.product.variants.map((v) => v.stock_quantity)).toEqual([0, 11, 0]);
    } finally {
      await rows(
        app.em(),
        sql`UPDATE product_variants SET stock_quantity = CASE id
          WHEN ${deskVariantIds[0]} THEN 3 WHEN ${deskVariantIds[1]} THEN 0 ELSE 7 END
          WHERE product_id = ${desk}`,
      );
      await rows(app.em(), sql`UPDATE products SET updated_at = created_at WHERE id = ${desk}`);
    }
  });

  it("answers the store's own goods to that store", async () => {
    const res = await app.get<GetProductResponse>(path(storesOwn), store.read);
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({
      id: storesOwn,
      name: 'Store Own Lamp',
      sku: 'OWN-1',
      supplier_id: ownSupplierId,
      stock_quantity: 4,
      in_stock: true,
      in_store: false,
    });
  });

  it("answers 404 not_found for an unknown id, an inactive product and another store's own goods", async () => {
    for (const id of [2_147_483_647, 999_999, inactive, othersOwn]) {
      const res = await app.get<ErrorBody>(path(id), store.read);
      expect(res.status, String(id)).toBe(404);
      expect(res.body, String(id)).toMatchObject({ error: 'not_found', code: 'PRODUCT_NOT_FOUND' });
      expect(typeof res.body.message).toBe('string');
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
    // The owning store does see its own goods.
    const owned = await app.get<GetProductResponse>(path(othersOwn), other.read);
    expect(owned.status).toBe(200);
    expect(owned.body.product.name).toBe('Other Own Lamp');
  });

  it('answers 400 VALIDATION_FAILED for an id that is not a positive 32-bit integer', async () => {
    for (const id of ['abc', '1.5', '0', '-1', '99999999999', '2147483648']) {
      const res = await app.get(path(id), store.read);
      expect(res.status, id).toBe(400);
      expect(res.body, id).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    }
  });

  it('serves HEAD like GET: same status and headers, no body', async () => {
    for (const id of [desk, 999_999]) {
      const get = await app.request(path(id), { key: store.read });
      const head = await app.request(path(id), { key: store.read, method: 'HEAD' });
      expect(head.status).toBe(get.status);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(await head.text()).toBe('');
    }
  });

  it('needs a credential: 401 without or with a bad key, 200 with read and read_write keys', async () => {
    const none = await app.get(path(desk));
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIAL' });
    expect(none.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
    );
    for (const key of [`sl_test_${'x'.repeat(40)}`, 'garbage']) {
      const bad = await app.get<ErrorBody>(path(desk), key);
      expect(bad.status, key).toBe(401);
      expect(bad.body.error).toBe('unauthorized');
    }
    const read = await app.get(path(desk), store.read);
    const readWrite = await app.get(path(desk), store.readWrite);
    expect(read.status).toBe(200);
    expect(readWrite.status).toBe(200);
    expect(readWrite.body).toEqual(read.body);
    // 401 before validation: an unauthenticated bad id is still 401.
    expect((await app.get(path('abc'))).status).toBe(401);
  });
});
