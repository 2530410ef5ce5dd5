import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListProductsResponse } from '../../client/src/index.ts';
import { PAGE_WALK } from '../../src/catalogue/page-ids.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * The spread of wholesale prices and earn per sale kept per price slice
 * (Migration20261129010000_price_slice_bounds) holds every product through inserts and re-pricing,
 * and a page in those orders under a price range finds a product the last write moved.
 */
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;

/** Products whose wholesale price or catalogue earn per sale lies outside their slice's bound. */
const outside = async () =>
  (
    await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM products p
        JOIN price_slice_bounds b ON b.slice = facet_price_band(p.retail_price_cents)
        CROSS JOIN LATERAL (SELECT (CASE p.pricing_type
          WHEN 'commission' THEN (p.retail_price_cents::bigint * p.commission_rate_bps + 5000) / 10000
          ELSE p.retail_price_cents - p.wholesale_price_cents END)::integer AS earn) e
        WHERE p.wholesale_price_cents NOT BETWEEN b.wholesale_min AND b.wholesale_max
          OR e.earn NOT BETWEEN b.earn_min AND b.earn_max`,
    )
  )[0]?.n;

const page = async (query: string, limit = 100) => {
  const res = await app.get<ListProductsResponse>(`/api/v1/products?${query}&limit=${limit}`, store.read);
  expect(res.status).toBe(200);
  return res.body.products.map((p) => p.id);
};

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Bounds Store');
  supplierId = await fixtures(app.em()).supplier({ name: 'Bounds Maker' });
});
afterAll(() => app.close());

describe('price slice bounds', () => {
  it('hold every product as products are added and re-priced, and pages follow the last write', async () => {
    const fx = fixtures(app.em());
    const ids: number[] = [];
    for (let i = 0; i < 12; i++)
      ids.push(await fx.product({ supplierId, wholesale: 1000 + i * 100, retail: 3000 + i * 10 }));
    const commission = await fx.product({
      supplierId,
      pricingType: 'commission',
      commissionBps: 2000,
      wholesale: 0,
      retail: 3050,
    });
    expect(await outside()).toBe(0);

    // Beyond its slice's spread on both keys: the cheapest wholesale price and the widest earn.
    const [moved = 0, across = 0] = ids;
    await rows(app.em(), sql`UPDATE products SET wholesale_price_cents = 1 WHERE id = ${moved}`);
    // Into another slice, with a wholesale price no product of that slice had.
    await rows(
      app.em(),
      sql`UPDATE products SET retail_price_cents = 90010, wholesale_price_cents = 90000 WHERE id = ${across}`,
    );
    expect(await outside()).toBe(0);

    const range = 'price_min_cents=3000&price_max_cents=3200';
    // The commission product's wholesale price is 0.
    expect((await page(`${range}&sort_by=wholesale_price_cents&order=asc`)).slice(0, 2)).toEqual([
      commission,
      moved,
    ]);
    expect((await page(`${range}&sort_by=margin&order=desc`))[0]).toBe(moved);
    const high = 'price_min_cents=90000&price_max_cents=90020';
    expect(await page(`${high}&sort_by=wholesale_price_cents&order=desc`)).toEqual([across]);
    expect(await page(`${high}&sort_by=margin&order=asc`)).toEqual([across]);
  });

  it("walk from the bound only over products read at their own price; the store's re-priced ones read apart", async () => {
    const fx = fixtures(app.em());
    const at = (wholesale: number, retail: number) => fx.product({ supplierId, wholesale, retail });
    // In the range at their own price, in the wholesale order: a, b, c. `hidden` is in it too, but
    // the store re-prices it out; `pulled` lies far above it, and the store re-prices it in.
    const [a, b, c, hidden, pulled] = [
      await at(1200, 5010),
      await at(1300, 5020),
      await at(1500, 5030),
      await at(1250, 5040),
      await at(1400, 70000),
    ];
    await fx.listing(store.id, hidden, { customRetail: 9000 });
    await fx.listing(store.id, pulled, { customRetail: 5050 });
    const { entries, most } = PAGE_WALK;
    // A first walk of one entry never finds the page: the walk from the bound (50) does.
    Object.assign(PAGE_WALK, { entries: 1, most: 50 });
    try {
      const range = 'price_min_cents=5000&price_max_cents=5100';
      const asc = `${range}&sort_by=wholesale_price_cents&order=asc`;
      const desc = `${range}&sort_by=wholesale_price_cents&order=desc`;
      expect(await page(asc)).toEqual([a, b, pulled, c]);
      expect(await page(desc)).toEqual([c, pulled, b, a]);
      // Pages the walk from the bound answers (its own products reach the page): the whole list's
      // above is read from the matches, four being fewer than a page of 100.
      expect(await page(asc, 2)).toEqual([a, b]);
      expect(await page(desc, 2)).toEqual([c, pulled]);
    } finally {
      Object.assign(PAGE_WALK, { entries, most });
    }
  });
});
