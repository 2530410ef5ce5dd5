import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * Pages at offsets of 10,000 and more (list-products.ts DEEP_OFFSET): the total is read first and a
 * page past the last match answers empty without skipping the matches; a page before it is the same
 * page as ever. 10,050 products, so the last page of 500 at offset 10,000 holds 50.
 */
const PRODUCTS = 10_050;

type ListBody = {
  products: { id: number }[];
  pagination: Record<string, number | boolean>;
};

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Deep Pages');
  const em = app.em();
  const supplier = await fixtures(em).supplier();
  await rows(
    em,
    sql`INSERT INTO products (supplier_id, name, description, sku, wholesale_price_cents, retail_price_cents,
        pricing_type, commission_rate_bps, purchase_mode, stock_quantity, ready_to_list, created_at)
      SELECT ${supplier}::integer, 'Deep ' || g, '', 'DEEP-' || g, 1000, 1500 + (g * 37) % 9000,
        'wholesale', 0, 'buy_now', g % 5, true, timestamptz '2026-01-01' + (g % 977) * interval '1 minute'
      FROM generate_series(1, ${PRODUCTS}) g`,
  );
});
afterAll(() => app.close());

/** Every visible product in the list's default order (created_at, then id, newest first). */
async function plainOrder(filter = sql`true`): Promise<number[]> {
  const found = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM products p WHERE p.active AND p.owner_store_id IS NULL AND ${filter}
      ORDER BY created_at DESC, id DESC`,
  );
  return found.map((r) => r.id);
}

describe('deep pages', () => {
  it('reads the last page at offset 10,000 as any page, and answers empty past it', async () => {
    const all = await plainOrder();
    expect(all.length).toBe(PRODUCTS);
    const last = await app.get<ListBody>('/api/v1/products?limit=500&page=21', store.read);
    expect(last.status).toBe(200);
    expect(last.body.products.map((p) => p.id)).toEqual(all.slice(10_000));
    expect(last.body.pagination).toEqual({
      page: 21,
      limit: 500,
      total_count: PRODUCTS,
      total_pages: 21,
      total_count_is_lower_bound: false,
    });
    for (const page of [22, 1_000, 9_007_199_254_740_991]) {
      const past = await app.get<ListBody>(`/api/v1/products?limit=500&page=${page}`, store.read);
      expect(past.status).toBe(200);
      expect(past.body.products).toEqual([]);
      expect(past.body.pagination.total_count).toBe(PRODUCTS);
    }
  });

  it('counts the filters before deciding, so a filtered deep page past its matches is empty', async () => {
    const inStock = await plainOrder(sql`p.stock_quantity > 0`);
    // Offset 10,000 is past the 8,040 products in stock, but not past the catalogue.
    const past = await app.get<ListBody>('/api/v1/products?limit=500&page=21&in_stock=true', store.read);
    expect(past.body.products).toEqual([]);
    expect(past.body.pagination.total_count).toBe(inStock.length);
    const within = await app.get<ListBody>(
      '/api/v1/products?limit=100&page=101&price_min_cents=1500&price_max_cents=10501',
      store.read,
    );
    // A price range off the band edges covering every price: counted in parts, the page still read.
    expect(within.body.pagination.total_count).toBe(PRODUCTS);
    expect(within.body.products.map((p) => p.id)).toEqual((await plainOrder()).slice(10_000, 10_050));
  });
});
