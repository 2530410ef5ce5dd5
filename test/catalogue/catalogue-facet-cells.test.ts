import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cellPlan,
  cellQuery,
  foldFacetCells,
  GRAINS,
  grainMask,
  PRICE_BANDS,
  PRICE_SLICES,
} from '../../src/catalogue/cells.ts';
import { countFacets } from '../../src/catalogue/facet-counts.ts';
import { needsTaxonomy, resolveTaxonomy } from '../../src/catalogue/filters.ts';
import { listProducts } from '../../src/catalogue/list-products.ts';
import { runReadinessPass } from '../../src/catalogue/run-readiness-pass.ts';
import { facetsInput, listInput } from '../../src/catalogue/schemas.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { loadCatalogueContext } from '../../src/store/catalogue-context.ts';
import type { PartnerContext } from '../../src/trpc/context.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { cellsEqualRecount, storeCellsEqualRecount } from '../helpers/cells.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * The precomputed facet cells (src/catalogue/cells.ts): every answer from cells equals the scan's,
 * for every filter combination cells can express, before and after folding, after every kind of
 * catalogue, stock and listing change; the cells always equal a recount of the catalogue; and
 * concurrent stock writers never wait on each other for them.
 */

type Store = Awaited<ReturnType<TestApp['createStore']>>;
let app: TestApp;
let store: Store;
let owner: Store;
let scoped: Store;
const ids: Record<string, number> = {};
const products: number[] = [];

const parse = (q: string) => facetsInput.parse(Object.fromEntries(new URLSearchParams(q)));

/** Filters cells answer (every facet has a grain), with `{s1}`-style placeholders for ids. */
const EXPRESSIBLE = [
  '',
  'brand=Acme',
  'brand=nobody',
  'category=chairs',
  'category=Tables',
  'store_type=furniture',
  'store_type=_other',
  'supplier_id={s1}',
  'pricing_type=commission',
  'purchase_mode=enquiry',
  'purchase_mode=buy_now',
  'in_stock=true',
  'in_stock=false',
  'ready_to_list=true',
  'complete_for=storefront',
  'complete_for=pinterest',
  'price_min_cents=2500',
  'price_max_cents=5000',
  'price_min_cents=2500&price_max_cents=100000',
  'price_min_cents=100000',
  'price_max_cents=0',
  'price_min_cents=0&price_max_cents=2500',
  'exclude_in_store=true',
  'exclude_in_store=false',
  'scope=all',
  'in_stock=true&category=chairs',
  'category=chairs&store_type=furniture',
  'brand=Acme&in_stock=false&pricing_type=wholesale',
  'supplier_id={s2}&purchase_mode=enquiry&ready_to_list=false',
  'store_type=garden&in_stock=true&exclude_in_store=true',
  'in_stock=true&price_min_cents=5000&complete_for=storefront&purchase_mode=buy_now',
  'exclude_in_store=true&price_max_cents=2500&in_stock=true',
  'exclude_in_store=true&brand=Birch',
  'purchase_mode=enquiry&price_min_cents=2500&price_max_cents=10000&ready_to_list=true&pricing_type=wholesale',
  'ownership=own',
  'ownership=btab&in_stock=true',
];
/** Filters cells cannot answer: the scan does. */
const SCANNED = [
  'search=walnut',
  'category=Outdoor%20Stuff',
  'price_min_cents=2600',
  'price_max_cents=99999',
  'scope=store',
  'brand=Acme&category=chairs',
  'brand=Acme&price_min_cents=2500',
  'supplier_id={s1}&complete_for=storefront',
];

const fill = (q: string) => q.replace(/\{(\w+)\}/g, (_, k: string) => String(ids[k]));

async function answer(storeId: number, q: string, path: 'auto' | 'cells' | 'scan') {
  const em = app.em();
  const ctx = await loadCatalogueContext(em, storeId);
  return countFacets(em, ctx, parse(fill(q)), path);
}

/** The catalogue list's `total_count` for the query (from cells wherever they can say it). */
async function listTotal(storeId: number, q: string): Promise<number> {
  const input = listInput.parse(Object.fromEntries(new URLSearchParams(`${fill(q)}&limit=1`)));
  return (await listProducts(partner(storeId), input)).pagination.total_count;
}

/** The store's read key as the list procedure hands it to the use case. */
function partner(storeId: number): PartnerContext {
  return {
    ...testContext(app),
    actor: {
      storeId,
      kind: 'api_key',
      scope: 'read',
      appScopes: new Set(),
      credentialId: 0,
      canReadCustomers: false,
      livemode: true,
    },
  };
}

/**
 * Every expressible query gives the scan's answer from cells, and the list's total equals the
 * scan's count; the others fall back to the scan.
 */
async function expectCellsEqualScan(label: string) {
  for (const s of [store, owner, scoped]) {
    for (const q of EXPRESSIBLE) {
      // `scoped` browses its own scope by default, which cells do not express: ask for everything.
      const query = s === scoped ? `scope=all&${q}` : q;
      const scan = await answer(s.id, query, 'scan');
      expect(await answer(s.id, query, 'cells'), `${label}: store ${s.id} ${query}`).toEqual(scan);
      expect(await answer(s.id, query, 'auto'), `${label}: auto ${query}`).toEqual(scan);
      expect(await listTotal(s.id, query), `${label}: list total, store ${s.id} ${query}`).toBe(
        scan.total_count,
      );
    }
    expect(await answer(s.id, '', 'auto'), `${label}: store ${s.id} default`).toEqual(
      await answer(s.id, '', 'scan'),
    );
  }
  for (const q of SCANNED) {
    const scan = await answer(store.id, q, 'scan');
    expect(await answer(store.id, q, 'auto'), `${label}: ${q}`).toEqual(scan);
    expect(await listTotal(store.id, q), `${label}: list total ${q}`).toBe(scan.total_count);
  }
}

/** The cells after a fold equal a fresh count of the active catalogue at every grain. */
const expectCellsEqualRecount = () => cellsEqualRecount(app.em());
const expectStoreCellsEqualRecount = () => storeCellsEqualRecount(app.em());

/** Runs `body` in a transaction of its own connection: committed, or rolled back if it throws. */
async function inTransaction(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<void>) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await body(client);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

async function pendingDeltas(): Promise<number> {
  const [row] = await rows<{ n: number }>(
    app.em(),
    sql`SELECT count(*)::integer AS n FROM facet_cell_deltas`,
  );
  return row?.n ?? 0;
}

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Cells Store');
  owner = await app.createStore('Cells Owner');
  scoped = await app.createStore('Cells Scoped');
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
  const brands = [await fx.brand('Acme'), await fx.brand('Birch'), await fx.brand('Cedar'), null];
  const suppliers = [
    await fx.supplier({ name: 'One' }),
    await fx.supplier({ name: 'Two' }),
    await fx.supplier({ name: 'Three' }),
  ];
  const own = await fx.supplier({ name: 'Owner own', ownerStoreId: owner.id });
  Object.assign(ids, {
    s1: suppliers[0],
    s2: suppliers[1],
    s3: suppliers[2],
    own,
    chairs,
    tables,
    planters,
    misc,
  });
  const categories = [chairs, armchairs, tables, planters, misc, null];
  // Every band edge and its neighbours.
  const prices = [0, 2499, 2500, 4999, 5000, 9999, 10000, 24999, 25000, 49999, 50000, 99999, 100000, 150000];
  for (let i = 0; i < 56; i++) {
    const category = categories[i % 6] ?? null;
    products.push(
      await fx.product({
        name: i % 9 === 0 ? `Walnut piece ${i}` : `Piece ${i}`,
        brandId: brands[i % 4] ?? null,
        categoryId: category,
        categoryRaw: category === null ? 'Outdoor Stuff' : null,
        supplierId: i % 11 === 0 ? own : (suppliers[i % 3] ?? own),
        retail: prices[i % prices.length] ?? 0,
        pricingType: i % 5 === 0 ? 'commission' : 'wholesale',
        commissionBps: i % 5 === 0 ? 1500 : 0,
        purchaseMode: i % 7 === 0 ? 'enquiry' : 'buy_now',
        stock: i % 4 === 1 ? [0] : i % 4 === 2 ? [0, 3] : [(i % 5) + 1],
        readyToList: i % 3 === 0,
        active: i % 13 !== 5,
        completeness: {
          ...(i % 2 === 0 ? { storefront: 100 } : { storefront: 80 }),
          ...(i % 3 === 1 ? { google: 100 } : {}),
          ...(i % 5 === 2 ? { meta: 100 } : {}),
        },
      }),
    );
  }
  // Listings of `store`: custom prices moving products across bands (or not), selling modes, removed.
  for (const [k, i] of [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 5].entries()) {
    const id = products[i] as number;
    const custom = [null, 1, 2500, 200000, 4999, 2600][k % 6] ?? null;
    await fx.listing(store.id, id, { customRetail: custom, deleted: k % 5 === 4 });
    if (k % 3 === 1) {
      await rows(
        em,
        sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${store.id} AND product_id = ${id}`,
      );
    }
    if (k % 4 === 2) {
      await rows(
        em,
        sql`UPDATE listings SET purchase_mode = 'buy_now' WHERE store_id = ${store.id} AND product_id = ${id}`,
      );
    }
  }
  // `owner` lists a few with custom prices too, and its own goods.
  await fx.listing(owner.id, products[1] as number, { customRetail: 100 });
  await fx.listing(owner.id, products[11] as number, { customRetail: 300000 });
  await fx.department(scoped.id, planters);
  await fx.setStoreScope(scoped.id, 'store');
});
afterAll(() => app.close());

describe('facet cells', () => {
  it('keeps the grains of the migration and the price bands and slices of the code', async () => {
    await expectCellsEqualRecount();
    const grains = await rows<{ grain: number }>(
      app.em(),
      sql`SELECT DISTINCT grain FROM facet_cells ORDER BY grain`,
    );
    expect(grains.map((g) => g.grain)).toEqual(GRAINS.map(grainMask).sort((a, b) => a - b));
    for (const [i, edge] of PRICE_SLICES.entries()) {
      const [row] = await rows<{ at: number; below: number }>(
        app.em(),
        sql`SELECT facet_price_band(${edge}::integer) AS at, facet_price_band(${Math.max(edge - 1, 0)}::integer) AS below`,
      );
      expect(row?.at, `slice of ${edge}`).toBe(i);
      expect(row?.below, `slice below ${edge}`).toBe(Math.max(i - 1, 0));
    }
    for (const [i, edge] of PRICE_BANDS.entries()) {
      const [row] = await rows<{ at: number; below: number }>(
        app.em(),
        sql`SELECT facet_band_of_slice(facet_price_band(${edge}::integer)) AS at,
          facet_band_of_slice(facet_price_band(${Math.max(edge - 1, 0)}::integer)) AS below`,
      );
      expect(row?.at, `band of ${edge}`).toBe(i);
      expect(row?.below, `band below ${edge}`).toBe(Math.max(i - 1, 0));
    }
    await expectCellsEqualRecount();
  });

  it('answers the common filters from cells and the others by scanning', async () => {
    const em = app.em();
    const can = async (storeId: number, q: string) => {
      const ctx = await loadCatalogueContext(em, storeId);
      const f = parse(fill(q));
      const tax = needsTaxonomy(ctx, f) ? await resolveTaxonomy(em, ctx, f) : undefined;
      const plan = cellPlan(ctx, f, tax);
      return plan !== undefined && cellQuery(ctx, plan) !== undefined;
    };
    for (const q of EXPRESSIBLE) expect(await can(store.id, q), q).toBe(true);
    for (const q of SCANNED) expect(await can(store.id, q), q).toBe(false);
    // A store browsing its own scope by default is scanned; asking for everything uses cells.
    expect(await can(scoped.id, '')).toBe(false);
    expect(await can(scoped.id, 'scope=all')).toBe(true);
    await expect(answer(store.id, 'search=walnut', 'cells')).rejects.toThrow(/cannot be answered/);
  });

  it('gives the scan’s exact counts for every expressible filter combination', async () => {
    await expectCellsEqualScan('initial');
  });

  it('stays exact after product inserts, updates and deletes, before and after folding', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const before = await pendingDeltas();
    // One insert, and a multi-row insert in one statement.
    products.push(
      await fx.product({ supplierId: ids.s2 as number, categoryId: ids.chairs, retail: 7000, stock: [2] }),
    );
    await rows(
      em,
      sql`INSERT INTO products (supplier_id, brand_id, category_id, name, sku, wholesale_price_cents,
          retail_price_cents, pricing_type, purchase_mode, stock_quantity)
        SELECT ${ids.s3}, NULL, ${ids.tables}, 'Bulk ' || g, 'BULK-' || g, 100, g * 1000,
          CASE WHEN g % 2 = 0 THEN 'commission' ELSE 'wholesale' END, 'buy_now', 0
        FROM generate_series(1, 30) g`,
    );
    const p = (i: number) => products[i] as number;
    // Every dimension moves: brand, category, supplier (to an own supplier: owner), band, pricing,
    // mode, active both ways, readiness and channels; and a many-row update.
    await rows(em, sql`UPDATE products SET brand_id = NULL WHERE id = ${p(0)}`);
    await rows(em, sql`UPDATE products SET category_id = ${ids.planters} WHERE id = ${p(1)}`);
    await rows(em, sql`UPDATE products SET supplier_id = ${ids.own} WHERE id = ${p(2)}`);
    await rows(em, sql`UPDATE products SET supplier_id = ${ids.s1} WHERE id = ${p(11)}`);
    await rows(em, sql`UPDATE products SET retail_price_cents = 99999 WHERE id = ${p(3)}`);
    await rows(em, sql`UPDATE products SET pricing_type = 'commission' WHERE id = ${p(4)}`);
    await rows(em, sql`UPDATE products SET purchase_mode = 'enquiry' WHERE id = ${p(8)}`);
    await rows(em, sql`UPDATE products SET active = false WHERE id = ${p(9)}`);
    await rows(em, sql`UPDATE products SET active = true WHERE id = ${p(5)}`);
    await rows(
      em,
      sql`UPDATE products SET ready_to_list = NOT ready_to_list, complete_channels = 7 WHERE id = ${p(6)}`,
    );
    await rows(em, sql`UPDATE products SET retail_price_cents = retail_price_cents + 2500 WHERE id % 3 = 0`);
    await rows(em, sql`UPDATE products SET name = name || ' (renamed)'`);
    // Deletes (variants and listings go with them).
    await rows(em, sql`DELETE FROM products WHERE id = ${p(7)}`);
    await rows(em, sql`DELETE FROM products WHERE sku LIKE 'BULK-%' AND retail_price_cents > 20000`);
    products.splice(7, 1, p(6));
    expect(await pendingDeltas()).toBeGreaterThan(before);
    await expectCellsEqualScan('after product writes, unfolded');
    await expectCellsEqualRecount();
    await expectCellsEqualScan('after product writes, folded');
  });

  it('stays exact after stock changes through the variants', async () => {
    const em = app.em();
    const p = (i: number) => products[i] as number;
    // Sold out, restocked, a new variant, a removed variant, and a many-variant statement.
    await rows(em, sql`UPDATE product_variants SET stock_quantity = 0 WHERE product_id = ${p(0)}`);
    await rows(em, sql`UPDATE product_variants SET stock_quantity = 4 WHERE product_id = ${p(1)}`);
    await rows(
      em,
      sql`INSERT INTO product_variants (product_id, sku, title, wholesale_price_cents, retail_price_cents, stock_quantity)
        VALUES (${p(5)}, 'EXTRA-5', 'Extra', 100, 200, 6)`,
    );
    await rows(em, sql`DELETE FROM product_variants WHERE product_id = ${p(2)}`);
    await rows(
      em,
      sql`UPDATE product_variants SET stock_quantity = CASE WHEN stock_quantity = 0 THEN 2 ELSE 0 END
        WHERE product_id % 2 = 0`,
    );
    await expectCellsEqualScan('after stock writes, unfolded');
    await expectCellsEqualRecount();
  });

  it('stays exact after listing changes (custom price, selling mode, removal, restore)', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const p = (i: number) => products[i] as number;
    await fx.listing(store.id, p(1), { customRetail: 150000 });
    await fx.listing(store.id, p(3), {});
    await rows(
      em,
      sql`UPDATE listings SET custom_retail_price_cents = 10 WHERE store_id = ${store.id} AND product_id = ${p(0)}`,
    );
    await rows(
      em,
      sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${store.id} AND product_id = ${p(3)}`,
    );
    await rows(
      em,
      sql`UPDATE listings SET deleted_at = now() WHERE store_id = ${store.id} AND product_id = ${p(4)}`,
    );
    await rows(
      em,
      sql`UPDATE listings SET deleted_at = NULL WHERE store_id = ${store.id} AND product_id = ${p(24)}`,
    );
    await rows(em, sql`DELETE FROM listings WHERE store_id = ${store.id} AND product_id = ${p(12)}`);
    // A listed product leaving the catalogue, and one changing band under its listing.
    await rows(em, sql`UPDATE products SET active = false WHERE id = ${p(16)}`);
    await rows(em, sql`UPDATE products SET retail_price_cents = 60000 WHERE id = ${p(20)}`);
    await expectCellsEqualScan('after listing writes');
  });

  it('stays exact through the readiness pass', async () => {
    await runReadinessPass({ em: app.em() });
    await expectCellsEqualScan('after the readiness pass');
    await expectCellsEqualRecount();
  });

  it('folds from writers every 512 deltas, and never under REPEATABLE READ', async () => {
    const em = app.em();
    await foldFacetCells(em);
    // Each statement flips 50 products between cells: ~80 delta rows; ~1,600 in all.
    const seen: number[] = [];
    for (let round = 0; round < 20; round++) {
      await rows(
        em,
        sql`UPDATE products SET ready_to_list = NOT ready_to_list WHERE id IN (SELECT id FROM products WHERE active ORDER BY id LIMIT 50)`,
      );
      seen.push(await pendingDeltas());
    }
    // Some writer folded (the backlog fell), and the backlog stays under ~512 plus one statement.
    expect(
      seen.some((n, i) => i > 0 && n < (seen[i - 1] ?? 0)),
      seen.join(','),
    ).toBe(true);
    expect(Math.max(...seen)).toBeLessThan(700);
    await expectCellsEqualScan('after writer folds');

    await rows(em, sql`UPDATE products SET ready_to_list = NOT ready_to_list WHERE id = ${products[0]}`);
    const pending = await pendingDeltas();
    expect(pending).toBeGreaterThan(0);
    await em.transactional(
      async (tx) => {
        await rows(tx, sql`SELECT facet_cells_try_fold()`);
      },
      { isolationLevel: 'repeatable read' },
    );
    expect(await pendingDeltas()).toBe(pending);
    await expectCellsEqualRecount();
  });

  it('lets concurrent stock writers on the same cells proceed without waiting or deadlocking', async () => {
    const em = app.em();
    const fx = fixtures(em);
    // Two cells A and B (same everything but category); writers touch one product in each, in
    // opposite orders, holding their transactions open meanwhile: shared counters would deadlock.
    const cellA: number[] = [];
    const cellB: number[] = [];
    for (let i = 0; i < 8; i++) {
      cellA.push(
        await fx.product({ supplierId: ids.s1 as number, categoryId: ids.chairs, retail: 3000, stock: [1] }),
      );
      cellB.push(
        await fx.product({ supplierId: ids.s1 as number, categoryId: ids.tables, retail: 3000, stock: [1] }),
      );
    }
    const pool = new pg.Pool({ connectionString: app.databaseUrl, max: 16 });
    try {
      // Each writer holds its first change for 0.5 s. Shared counters would make the others wait
      // that long for the cell; here any lock wait over 200 ms fails the writer. The folding writer
      // may wait for a fold another writer started.
      const writer = (first: number, second: number, fold: boolean) =>
        inTransaction(pool, async (client) => {
          await client.query(`SET LOCAL lock_timeout = '${fold ? '5s' : '200ms'}'`);
          await client.query('UPDATE product_variants SET stock_quantity = 0 WHERE product_id = $1', [first]);
          await client.query('SELECT pg_sleep(0.5)');
          await client.query('UPDATE product_variants SET stock_quantity = 0 WHERE product_id = $1', [
            second,
          ]);
          if (fold) await client.query('SELECT facet_cells_fold()');
        });
      const outcomes = await Promise.allSettled(
        cellA.map((a, i) => {
          const b = cellB[i] as number;
          return i % 2 === 0 ? writer(a, b, i === 4) : writer(b, a, false);
        }),
      );
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    } finally {
      await pool.end();
    }
    await expectCellsEqualScan('after concurrent writers');
    await expectCellsEqualRecount();
  });

  it('answers a store with 2,500 listings, all re-priced, from its store cells', async () => {
    const em = app.em();
    const big = await app.createStore('Big lister');
    await rows(
      em,
      sql`INSERT INTO products (supplier_id, category_id, name, sku, wholesale_price_cents, retail_price_cents)
        SELECT ${ids.s1}, ${ids.misc}, 'Many ' || g, 'MANY-' || g, 100, 1000 + g FROM generate_series(1, 2500) g`,
    );
    await rows(
      em,
      sql`INSERT INTO listings (store_id, product_id) SELECT ${big.id}, id FROM products WHERE sku LIKE 'MANY-%'`,
    );
    const queries = [
      '',
      'exclude_in_store=true',
      'price_min_cents=2500',
      'purchase_mode=enquiry&in_stock=true',
    ];
    const expectCells = async (label: string) => {
      for (const q of queries) {
        const scan = await answer(big.id, q, 'scan');
        expect(await answer(big.id, q, 'auto'), `${label}: ${q}`).toEqual(scan);
        expect(await answer(big.id, q, 'cells'), `${label}: ${q}`).toEqual(scan);
        expect(await listTotal(big.id, q), `${label}: list total ${q}`).toBe(scan.total_count);
      }
    };
    await expectCells('listed');
    // One statement re-prices them all, half across a band edge, and sets a third to enquiry.
    await rows(
      em,
      sql`UPDATE listings SET custom_retail_price_cents = CASE WHEN product_id % 2 = 0 THEN 3000 ELSE 1500 END,
          purchase_mode = CASE WHEN product_id % 3 = 0 THEN 'enquiry' END
        WHERE store_id = ${big.id}`,
    );
    await expectCells('re-priced, unfolded');
    await expectStoreCellsEqualRecount();
    await expectCells('re-priced, folded');
    await rows(em, sql`DELETE FROM stores WHERE id = ${big.id}`);
    await expectStoreCellsEqualRecount();
  });

  it('keeps store cells exact when a listing and its product change in concurrent transactions', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const pairs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const id = await fx.product({
        supplierId: ids.s2 as number,
        categoryId: ids.tables,
        retail: 4000,
        stock: [1],
      });
      await fx.listing(store.id, id, { customRetail: 4500 });
      pairs.push(id);
    }
    await foldFacetCells(em);
    const pool = new pg.Pool({ connectionString: app.databaseUrl, max: 8 });
    try {
      // Each pair: one transaction moves the product to another category and band, another re-prices
      // its listing to another band; whichever starts first holds its change for 0.3 s. Each side's
      // recount needs the other's row as committed: read unlocked, the listing's move would be
      // counted in the old category.
      const change = (sqlText: string, params: unknown[], hold: boolean) =>
        inTransaction(pool, async (client) => {
          await client.query(sqlText, params);
          if (hold) await client.query('SELECT pg_sleep(0.3)');
        });
      const outcomes = await Promise.allSettled(
        pairs.flatMap((id, i) => {
          const product = (hold: boolean) =>
            change(
              'UPDATE products SET category_id = $2, retail_price_cents = 60000 WHERE id = $1',
              [id, ids.chairs],
              hold,
            );
          const listing = (hold: boolean) =>
            change(
              'UPDATE listings SET custom_retail_price_cents = 12000 WHERE store_id = $1 AND product_id = $2',
              [store.id, id],
              hold,
            );
          const productFirst = i % 2 === 0;
          return [
            product(productFirst),
            new Promise<void>((resolve, reject) =>
              setTimeout(() => listing(!productFirst).then(resolve, reject), 100),
            ),
          ];
        }),
      );
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    } finally {
      await pool.end();
    }
    await expectStoreCellsEqualRecount();
    await expectCellsEqualScan('after concurrent listing and product writers');
  });
});
