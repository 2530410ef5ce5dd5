import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListProductsResponse } from '../../client/src/index.ts';
import { EARN_PER_SALE } from '../../src/catalogue/filters.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * `sort_by=margin` reads a store's re-priced listings in the order of the earn per sale kept on
 * each (Migration20261125100000_listing_earn): it must equal what the catalogue computes, whatever
 * changed the listing or its product.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

async function listIds(query: string, key: string): Promise<number[]> {
  const res = await app.get<ListProductsResponse>(`/api/v1/products?limit=500&${query}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.products.map((p) => p.id);
}

describe('the earn per sale kept on re-priced listings (sort_by=margin)', () => {
  it('equals the catalogue formula at the custom price through listing and product changes', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const store = await app.createStore('Earn Store');
    const supplierId = await fx.supplier();
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const id = await fx.product({
        supplierId,
        retail: 5000 + i * 100,
        wholesale: 2000 + i * 50,
        pricingType: i % 2 ? 'commission' : 'wholesale',
        commissionBps: i % 2 ? 1500 : 0,
      });
      await fx.listing(store.id, id, { customRetail: i < 4 ? 6000 + i * 7 : null });
      ids.push(id);
    }
    // Each listing's kept earn against EARN_PER_SALE's expression, evaluated fresh.
    const expectKept = async (label: string) => {
      const found = await rows<{ kept: number | null; fresh: number | null }>(
        em,
        sql`SELECT l.custom_earn_cents AS kept,
            CASE WHEN l.custom_retail_price_cents IS NULL THEN NULL ELSE ${EARN_PER_SALE} END AS fresh
          FROM listings l JOIN products p ON p.id = l.product_id WHERE l.store_id = ${store.id} ORDER BY l.id`,
      );
      expect(found.length, label).toBe(6);
      for (const r of found) expect(r.kept, label).toBe(r.fresh);
    };
    await expectKept('listed');
    const at = (i: number) => ids[i] as number;
    await rows(em, sql`UPDATE listings SET custom_retail_price_cents = 9999 WHERE product_id = ${at(0)}`);
    await rows(em, sql`UPDATE listings SET custom_retail_price_cents = NULL WHERE product_id = ${at(1)}`);
    await rows(em, sql`UPDATE listings SET custom_retail_price_cents = 7001 WHERE product_id = ${at(4)}`);
    await expectKept('re-priced');
    await rows(em, sql`UPDATE products SET wholesale_price_cents = 2500 WHERE id = ${at(0)}`);
    await rows(em, sql`UPDATE products SET commission_rate_bps = 2200 WHERE id = ${at(3)}`);
    await rows(
      em,
      sql`UPDATE products SET pricing_type = 'commission', commission_rate_bps = 1000 WHERE id = ${at(2)}`,
    );
    await rows(em, sql`UPDATE products SET name = name || ' renamed' WHERE id = ANY(${ids}::integer[])`);
    await expectKept('products changed');
    const margins = await listIds(`sort_by=margin&order=desc&supplier_id=${supplierId}`, store.read);
    const byEarn = await rows<{ id: number }>(
      em,
      sql`SELECT p.id FROM products p
        LEFT JOIN listings l ON l.product_id = p.id AND l.store_id = ${store.id} AND l.deleted_at IS NULL
        WHERE p.id = ANY(${ids}::integer[]) ORDER BY ${EARN_PER_SALE} DESC, p.id DESC`,
    );
    expect(margins).toEqual(byEarn.map((r) => r.id));
  });
});
