import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListMyProductsResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * `missing=` reads what a listing's product lacks as kept on the listing
 * (Migration20261129000000_listing_shipping_gaps): these follow it through the product's changes, a
 * removal and restore, and a listing added while its product's shipping data changes.
 */
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;

const LIST = '/api/v1/my-products';
const missing = async (what: 'weight' | 'dimensions' | 'either') => {
  const res = await app.get<ListMyProductsResponse>(`${LIST}?missing=${what}&limit=100`, store.read);
  expect(res.status).toBe(200);
  expect(res.body.pagination.total_count).toBe(res.body.products.length);
  return res.body.products.map((p) => p.product_id).sort((a, b) => a - b);
};
const gapsOf = async (productId: number) =>
  (
    await rows<{ shipping_gaps: number }>(
      app.em(),
      sql`SELECT shipping_gaps FROM listings WHERE store_id = ${store.id} AND product_id = ${productId}`,
    )
  )[0]?.shipping_gaps;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Gaps Store');
  supplierId = await fixtures(app.em()).supplier({ name: 'Gaps Maker' });
});
afterAll(() => app.close());

describe('listings missing shipping data', () => {
  it("take their product's gaps when listed and follow the product's changes, removed or not", async () => {
    const fx = fixtures(app.em());
    const whole = await fx.product({ supplierId });
    const light = await fx.product({ supplierId, weightOz: null });
    const flat = await fx.product({ supplierId });
    await rows(app.em(), sql`UPDATE products SET height_cm = NULL WHERE id = ${flat}`);
    for (const id of [whole, light, flat]) await fx.listing(store.id, id);
    expect(await missing('weight')).toEqual([light]);
    expect(await missing('dimensions')).toEqual([flat]);
    expect(await missing('either')).toEqual([light, flat]);

    await rows(app.em(), sql`UPDATE products SET weight_oz = 12 WHERE id = ${light}`);
    await rows(app.em(), sql`UPDATE products SET weight_oz = NULL, height_cm = NULL WHERE id = ${whole}`);
    expect(await missing('weight')).toEqual([whole]);
    expect(await missing('dimensions')).toEqual([whole, flat]);
    expect(await missing('either')).toEqual([whole, flat]);

    // Removed, changed while removed, restored: the restored listing reads the product as it is now.
    const removed = await app.request(`${LIST}/${flat}`, { method: 'DELETE', key: store.readWrite });
    expect(removed.status).toBe(200);
    await rows(app.em(), sql`UPDATE products SET height_cm = 5 WHERE id = ${flat}`);
    const restored = await app.request(LIST, {
      method: 'POST',
      key: store.readWrite,
      body: { product_id: flat },
      headers: { 'idempotency-key': `restore-${flat}` },
    });
    expect(restored.status).toBe(201);
    expect(await missing('either')).toEqual([whole]);
    expect(await gapsOf(flat)).toBe(0);
  });

  it("leave the inventory feed where it was when only the product's shipping data changes", async () => {
    const fx = fixtures(app.em());
    const product = await fx.product({ supplierId });
    await fx.listing(store.id, product);
    const head = (await app.get<{ next_cursor: string }>('/api/v1/inventory?limit=500', store.read)).body;
    let cursor = head.next_cursor;
    for (let more = true; more; ) {
      const page = await app.get<{ next_cursor: string; has_more: boolean }>(
        `/api/v1/inventory?limit=500&updated_since=${encodeURIComponent(cursor)}`,
        store.read,
      );
      [cursor, more] = [page.body.next_cursor, page.body.has_more];
    }
    await rows(app.em(), sql`UPDATE products SET weight_oz = NULL WHERE id = ${product}`);
    expect(await gapsOf(product)).toBe(1);
    const after = await app.get<{ items: { product_id: number }[] }>(
      `/api/v1/inventory?limit=500&updated_since=${encodeURIComponent(cursor)}`,
      store.read,
    );
    expect(after.status).toBe(200);
    expect(after.body.items.map((i) => i.product_id)).not.toContain(product);
    // A change the feed reports still moves it.
    await rows(app.em(), sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE product_id = ${product}`);
    const moved = await app.get<{ items: { product_id: number }[] }>(
      `/api/v1/inventory?limit=500&updated_since=${encodeURIComponent(cursor)}`,
      store.read,
    );
    expect(moved.body.items.map((i) => i.product_id)).toContain(product);
  });

  /** Two sessions of their own, so one can hold a transaction open while the other waits on it. */
  async function sessions() {
    const a = new pg.Client({ connectionString: app.databaseUrl });
    const b = new pg.Client({ connectionString: app.databaseUrl });
    await Promise.all([a.connect(), b.connect()]);
    return { a, b, close: () => Promise.all([a.end(), b.end()]) };
  }
  const settled = (p: Promise<unknown>) =>
    Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 300))]);

  it('a listing added while its product loses its weight takes the new gaps', async () => {
    const product = await fixtures(app.em()).product({ supplierId });
    const { a, b, close } = await sessions();
    try {
      await a.query('BEGIN');
      await a.query('UPDATE products SET weight_oz = NULL WHERE id = $1', [product]);
      const insert = b.query('INSERT INTO listings (store_id, product_id) VALUES ($1, $2)', [
        store.id,
        product,
      ]);
      // The insert waits for the product's update rather than reading the weight it is replacing.
      expect(await settled(insert)).toBe(false);
      await a.query('COMMIT');
      await insert;
      expect(await gapsOf(product)).toBe(1);
    } finally {
      await close();
    }
  });

  it('a product losing its weight while a listing of it is being added updates that listing', async () => {
    const product = await fixtures(app.em()).product({ supplierId });
    const { a, b, close } = await sessions();
    try {
      await b.query('BEGIN');
      await b.query('INSERT INTO listings (store_id, product_id) VALUES ($1, $2)', [store.id, product]);
      const update = a.query('UPDATE products SET weight_oz = NULL WHERE id = $1', [product]);
      expect(await settled(update)).toBe(false);
      await b.query('COMMIT');
      await update;
      expect(await gapsOf(product)).toBe(1);
    } finally {
      await close();
    }
  });

  it('a listing being added holds up no stock update of its product', async () => {
    const product = await fixtures(app.em()).product({ supplierId });
    const { a, b, close } = await sessions();
    try {
      await b.query('BEGIN');
      await b.query('INSERT INTO listings (store_id, product_id) VALUES ($1, $2)', [store.id, product]);
      const stock = a.query('UPDATE products SET stock_quantity = stock_quantity + 1 WHERE id = $1', [
        product,
      ]);
      expect(await settled(stock)).toBe(true);
      await b.query('COMMIT');
    } finally {
      await close();
    }
  });
});
