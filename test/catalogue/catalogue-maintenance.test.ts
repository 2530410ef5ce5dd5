import { Logger, runOnce } from 'graphile-worker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  CreateWebhookResponse,
  ErrorBody,
  GetMyProductResponse,
  GetProductFacetsResponse,
  GetProductResponse,
  InventoryItem,
  ListInventoryResponse,
  ListMyProductsResponse,
  ListProductsResponse,
  WebhookEvent,
} from '../../client/src/index.ts';
import { createTaskList } from '../../jobs/tasks.ts';
import { planProductFanout } from '../../src/catalogue/product-change-propagation.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { fanOutToListingStores } from '../../src/events/listing-stores.ts';
import { createCaller } from '../../src/router.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp, testContext } from '../helpers/app.ts';
import { cellsEqualRecount } from '../helpers/cells.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { startReceiver, startWorkerProcess } from '../helpers/webhooks.ts';

/**
 * Catalogue maintenance (internal procedures under the operator credential): each change reaches
 * every store that lists the product as the spec's ids-only event, the inventory feed and the facet
 * cells stay exact, and a withdrawn product leaves the stores but its listings stay readable.
 *
 * Stores A and B list P (A at a custom price of 1500; P is wholesale 1000, retail 2000, so the
 * minimum at margin 0 is 1000); C lists only Q; D removed its listing of P.
 */

const OPERATOR_TOKEN = 'op_catalogue_maintenance_test_token';
let app: TestApp;
type Store = Awaited<ReturnType<TestApp['createStore']>>;
let A: Store;
let B: Store;
let C: Store;
let D: Store;
let P: number;
let Q: number;
let variants: number[];
let categorySlug: string;

function internal() {
  return createCaller(
    testContext(app, { authorization: `Bearer ${OPERATOR_TOKEN}`, operatorToken: OPERATOR_TOKEN }),
  ).internal;
}

async function runJobs() {
  await runOnce({
    connectionString: app.databaseUrl,
    taskList: createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS),
    logger: new Logger(() => () => {}),
  });
}

let mark = 0;
/** Events written since the last call, as [store, event, data] sorted by store then event. */
async function newEvents() {
  const got = await rows<{ id: number; store_id: number; event: string; data: Record<string, unknown> }>(
    app.em(),
    sql`SELECT id::integer AS id, store_id, event, data FROM domain_events WHERE id > ${mark} ORDER BY id`,
  );
  mark = Math.max(mark, ...got.map((e) => e.id));
  return got
    .map((e) => [e.store_id, e.event, e.data] as const)
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
}

function call<T = unknown>(method: string, path: string, key: string, body?: unknown) {
  return send<T>(app, method, path, { key, body });
}

async function feed(store: Store) {
  const all: InventoryItem[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await app.get<ListInventoryResponse>(
      `/api/v1/inventory?limit=500${cursor ? `&updated_since=${encodeURIComponent(cursor)}` : ''}`,
      store.read,
    );
    expect(page.status).toBe(200);
    all.push(...page.body.items);
    cursor = page.body.next_cursor;
    if (!page.body.has_more) return { items: all, cursor: cursor as string };
  }
}

async function facetTotal(query = '') {
  const res = await app.get<GetProductFacetsResponse>(`/api/v1/products/facets${query}`, C.read);
  expect(res.status).toBe(200);
  return res.body.total_count as number;
}

/** The facet cells and every store's cells equal a recount (they are kept by trigger). */
const cellsExact = () => cellsEqualRecount(app.em());

beforeAll(async () => {
  app = await startTestApp();
  const fx = fixtures(app.em());
  const supplierId = await fx.supplier({ name: 'Maintenance Supplier' });
  categorySlug = 'maint-lighting';
  await fx.category({ slug: categorySlug, name: 'Lighting' });
  P = await fx.product({ supplierId, name: 'Brass lamp', stock: [5, 3] });
  Q = await fx.product({ supplierId, name: 'Oak shelf', stock: [4] });
  variants = (
    await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM product_variants WHERE product_id = ${P} ORDER BY position, id`,
    )
  ).map((v) => v.id);
  A = await app.createStore('Store A');
  B = await app.createStore('Store B');
  C = await app.createStore('Store C');
  D = await app.createStore('Store D');
  for (const [store, body] of [
    [A, { product_id: P, custom_retail_price_cents: 1500 }],
    [B, { product_id: P }],
    [C, { product_id: Q }],
    [D, { product_id: P }],
  ] as const) {
    expect((await call('POST', '/api/v1/my-products', store.readWrite, body)).status).toBe(201);
  }
  expect((await call('DELETE', `/api/v1/my-products/${P}`, D.readWrite)).status).toBe(200);
  await runJobs();
});
afterAll(async () => {
  await app.close();
});
beforeEach(async () => {
  await runJobs();
  await newEvents();
});

describe('catalogue maintenance reaches every listing store', () => {
  it('a change of details gives each listing store one ids-only product.updated, and the feed shows the new name', async () => {
    const before = await feed(A);
    const out = await internal().catalogue.updateProduct({
      productId: P,
      name: 'Brass desk lamp',
      description: 'A lamp for a desk, in brass, with a linen shade and a warm bulb included.',
      category: categorySlug,
      weight_oz: 48,
      images: [{ url: 'https://images.example/lamp-1.jpg', alt: 'front' }],
    });
    expect(out).toEqual({ product_id: P, custom_prices_cleared: 0 });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'product.updated', { product_id: P }],
      [B.id, 'product.updated', { product_id: P }],
    ]);
    const after = await app.get<ListInventoryResponse>(
      `/api/v1/inventory?updated_since=${encodeURIComponent(before.cursor)}`,
      A.read,
    );
    expect(after.body.items.map((i) => [i.product_id, i.name])).toEqual([[P, 'Brass desk lamp']]);
    const product = await app.get<GetProductResponse>(`/api/v1/products/${P}`, C.read);
    expect(product.body.product).toMatchObject({
      name: 'Brass desk lamp',
      metadata: { category: 'Lighting', weight_oz: 48 },
      images: [{ url: 'https://images.example/lamp-1.jpg', alt: 'front', position: 1 }],
    });
    await cellsExact();
  });

  it('many changes before the fan-out runs are one event per store', async () => {
    await internal().catalogue.updateProduct({ productId: P, retail_price_cents: 2100 });
    await internal().catalogue.updateProduct({ productId: P, hidden_channels: ['meta', 'google', 'meta'] });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'product.updated', { product_id: P }],
      [B.id, 'product.updated', { product_id: P }],
    ]);
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, B.read);
    expect(listing.body.product).toMatchObject({
      retail_price_cents: 2100,
      hidden_channels: ['google', 'meta'],
    });
    const detail = await app.get<GetProductResponse>(`/api/v1/products/${P}`, C.read);
    expect(detail.body.product.hidden_channels).toEqual(['google', 'meta']);
    expect(detail.body.product.variants.map((v) => v.retail_price_cents)).toEqual([2100, 2100]);
    await internal().catalogue.updateProduct({ productId: P, hidden_channels: [] });
    await runJobs();
    await newEvents();
  });

  it('a wholesale rise above a custom price clears it, and the store hears of it', async () => {
    // Minimum at margin 0 is the wholesale price: 1600 puts A's custom 1500 below it.
    const [before] = await rows<{ price: number }>(
      app.em(),
      sql`SELECT wholesale_price_cents AS price FROM product_variants WHERE product_id = ${P}`,
    );
    const out = await internal().catalogue.updateProduct({ productId: P, wholesale_price_cents: 1600 });
    expect(out.custom_prices_cleared).toBe(1);
    // The price it had is kept with the moment it changed, for orders sent at the old price (409, not 400);
    // the same price again changes neither.
    await internal().catalogue.updateProduct({ productId: P, wholesale_price_cents: 1600 });
    const [kept] = await rows<{ previous: number; recent: boolean }>(
      app.em(),
      sql`SELECT previous_wholesale_price_cents AS previous, wholesale_price_changed_at > now() - interval '1 minute' AS recent
        FROM product_variants WHERE product_id = ${P}`,
    );
    expect(kept).toEqual({ previous: before?.price, recent: true });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'product.updated', { product_id: P }],
      [B.id, 'product.updated', { product_id: P }],
    ]);
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, A.read);
    expect(listing.body.product).toMatchObject({
      wholesale_price_cents: 1600,
      custom_retail_price_cents: null,
      effective_retail_price_cents: 2100,
    });
    const catalogue = await app.get<ListProductsResponse>(
      `/api/v1/products?search=${encodeURIComponent('Brass desk')}`,
      A.read,
    );
    expect(catalogue.body.products[0]).toMatchObject({
      id: P,
      earn_per_sale_cents: 500,
      minimum_price_cents: 1600,
    });
    await cellsExact();
  });

  it('supplier stock and goods received give inventory.updated naming the variant, and the feed shows it', async () => {
    const before = await feed(B);
    const v = variants[1] as number;
    const received = await internal().inventory.receiveStock({ productId: P, variantId: v, quantity: 7 });
    expect(received).toMatchObject({ variant_id: v, quantity: 10, product_stock: 15 });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'inventory.updated', { product_id: P, variant_id: v }],
      [B.id, 'inventory.updated', { product_id: P, variant_id: v }],
    ]);
    const after = await app.get<ListInventoryResponse>(
      `/api/v1/inventory?updated_since=${encodeURIComponent(before.cursor)}`,
      B.read,
    );
    expect(after.body.items).toHaveLength(1);
    expect(after.body.items[0]).toMatchObject({ product_id: P, stock_quantity: 15 });
    expect(after.body.items[0]?.variants[1]).toMatchObject({ id: v, quantity_available: 10 });
  });

  it('adding, changing and retiring a variant name it in product.updated; a retired variant leaves every read', async () => {
    const added = await internal().catalogue.addVariant({
      productId: P,
      sku: 'LAMP-GREEN',
      title: 'Green',
      option_values: { Size: 'Green' },
      stock: 2,
    });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'inventory.updated', { product_id: P, variant_id: added.variant_id }],
      [A.id, 'product.updated', { product_id: P, variant_id: added.variant_id }],
      [B.id, 'inventory.updated', { product_id: P, variant_id: added.variant_id }],
      [B.id, 'product.updated', { product_id: P, variant_id: added.variant_id }],
    ]);
    const detail = await app.get<GetProductResponse>(`/api/v1/products/${P}`, C.read);
    expect(detail.body.product.options).toEqual([
      { name: 'Size', values: ['Option 1', 'Option 2', 'Green'] },
    ]);
    expect(detail.body.product.stock_quantity).toBe(17);

    await internal().catalogue.updateVariant({
      productId: P,
      variantId: added.variant_id,
      title: 'Sage green',
    });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'product.updated', { product_id: P, variant_id: added.variant_id }],
      [B.id, 'product.updated', { product_id: P, variant_id: added.variant_id }],
    ]);

    await internal().catalogue.retireVariant({ productId: P, variantId: added.variant_id });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'inventory.updated', { product_id: P, variant_id: added.variant_id }],
      [A.id, 'product.updated', { product_id: P, variant_id: added.variant_id }],
      [B.id, 'inventory.updated', { product_id: P, variant_id: added.variant_id }],
      [B.id, 'product.updated', { product_id: P, variant_id: added.variant_id }],
    ]);
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, A.read);
    expect(listing.body.product.variants.map((x) => x.id)).toEqual(variants);
    expect(listing.body.product.stock_quantity).toBe(15);
    const items = (await feed(A)).items.filter((i) => i.product_id === P);
    expect(items[0]?.variants.map((x) => x.id)).toEqual(variants);
    // Ordering a retired variant: as if it never existed.
    const order = await call<ErrorBody>('POST', '/api/v1/orders', A.readWrite, {
      customer: { email: 'bea@example.com', name: 'Bea', phone: '1' },
      items: [{ product_id: P, variant_id: added.variant_id, quantity: 1 }],
      shipping: { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' },
    });
    expect(order.status).toBe(404);
    expect(order.body.code).toBe('VARIANT_NOT_FOUND');
    expect(
      await refusal(
        internal().catalogue.updateVariant({ productId: P, variantId: added.variant_id, title: 'x' }),
      ),
    ).toBe('conflict');
    expect(
      await refusal(
        internal().inventory.receiveStock({ productId: P, variantId: added.variant_id, quantity: 1 }),
      ),
    ).toBe('conflict');
  });

  it('a listing retitled or hidden on a channel gives its store product.updated', async () => {
    await internal().listings.retitle({ storeId: B.id, productId: P, title: 'The lamp' });
    await internal().listings.setChannels({ storeId: B.id, productId: P, hidden_channels: ['storefront'] });
    expect(await newEvents()).toEqual([
      [B.id, 'product.updated', { product_id: P }],
      [B.id, 'product.updated', { product_id: P }],
    ]);
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, B.read);
    expect(listing.body.product).toMatchObject({
      name: 'Brass desk lamp',
      custom_title: 'The lamp',
      hidden_channels: ['storefront'],
    });
    expect(
      await refusal(
        createCaller(
          testContext(app, { authorization: `Bearer ${OPERATOR_TOKEN}`, operatorToken: OPERATOR_TOKEN }),
        ).internal.orders.checkoutStorefront({
          storeId: B.id,
          customer: { email: 'b@example.com', name: 'B', phone: '1' },
          shipping: { address: '1 A St', address2: '', city: 'S', state: 'N', zip: '2000', country: 'AU' },
          items: [{ product_id: P, variant_id: variants[0] as number, quantity: 1 }],
        }),
      ),
    ).toBe('bad_request');
    await internal().listings.retitle({ storeId: B.id, productId: P, title: null });
    await internal().listings.setChannels({ storeId: B.id, productId: P, hidden_channels: [] });
    expect(
      (await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, B.read)).body.product.custom_title,
    ).toBeNull();
    expect(
      await refusal(internal().listings.retitle({ storeId: C.id, productId: P, title: 'not listed' })),
    ).toBe('not_found');
  });

  it('a withdrawal gives product.deleted; the listing stays readable with nothing to sell; reinstating restores it', async () => {
    const total = await facetTotal();
    const before = await feed(A);
    const out = await internal().catalogue.withdrawProduct({ productId: P });
    expect(out.withdrawn_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'product.deleted', { product_id: P }],
      [B.id, 'product.deleted', { product_id: P }],
    ]);
    expect(await facetTotal()).toBe(total - 1);
    await cellsExact();
    expect((await app.get(`/api/v1/products/${P}`, C.read)).status).toBe(404);
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, A.read);
    expect(listing.status).toBe(200);
    expect(listing.body.product).toMatchObject({
      withdrawn_at: out.withdrawn_at,
      in_stock: false,
      stock_quantity: 0,
    });
    for (const v of listing.body.product.variants)
      expect(v).toMatchObject({ available_for_sale: false, quantity_available: 0 });
    const list = await app.get<ListMyProductsResponse>('/api/v1/my-products', A.read);
    expect(list.body.products.find((p) => p.product_id === P)?.withdrawn_at).toBe(out.withdrawn_at);
    const moved = await app.get<ListInventoryResponse>(
      `/api/v1/inventory?updated_since=${encodeURIComponent(before.cursor)}`,
      A.read,
    );
    expect(moved.body.items).toHaveLength(1);
    expect(moved.body.items[0]).toMatchObject({
      product_id: P,
      listed: true,
      withdrawn_at: out.withdrawn_at,
      in_stock: false,
      stock_quantity: 0,
    });
    // No new listing, no order of it.
    expect((await call('POST', '/api/v1/my-products', C.readWrite, { product_id: P })).status).toBe(404);
    expect(await refusal(internal().catalogue.withdrawProduct({ productId: P }))).toBe('conflict');

    await internal().catalogue.reinstateProduct({ productId: P });
    await runJobs();
    expect(await newEvents()).toEqual([
      [A.id, 'product.updated', { product_id: P }],
      [B.id, 'product.updated', { product_id: P }],
    ]);
    const back = await app.get<GetMyProductResponse>(`/api/v1/my-products/${P}`, A.read);
    expect(back.body.product).toMatchObject({ withdrawn_at: null, in_stock: true, stock_quantity: 15 });
    expect(await facetTotal()).toBe(total);
    await cellsExact();
  });
});

/** The contract category a call that must fail is refused with (validation or domain error alike). */
async function refusal(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'accepted',
    (err: unknown) => shapeError(err).body.error,
  );
}

describe('catalogue maintenance refuses bad input without writing anything', () => {
  it('unknown product, unknown category, bad channel, empty change, duplicate SKU, last variant', async () => {
    const op = internal();
    expect(await refusal(op.catalogue.updateProduct({ productId: 999_999, name: 'x' }))).toBe('not_found');
    expect(await refusal(op.catalogue.updateProduct({ productId: P, category: 'no-such-slug' }))).toBe(
      'bad_request',
    );
    expect(
      await refusal(op.catalogue.updateProduct({ productId: P, hidden_channels: ['tiktok' as 'google'] })),
    ).toBe('bad_request');
    expect(await refusal(op.catalogue.updateProduct({ productId: P }))).toBe('bad_request');
    expect(await refusal(op.catalogue.updateProduct({ productId: P, wholesale_price_cents: -1 }))).toBe(
      'bad_request',
    );
    const sku = (
      await rows<{ sku: string }>(app.em(), sql`SELECT sku FROM product_variants WHERE product_id = ${Q}`)
    )[0]?.sku as string;
    expect(
      await refusal(
        op.catalogue.addVariant({
          productId: P,
          sku,
          title: 'Dup',
          option_values: { Size: 'Dup' },
          stock: 0,
        }),
      ),
    ).toBe('conflict');
    expect(
      await refusal(
        op.catalogue.addVariant({
          productId: P,
          sku: 'LAMP-X',
          title: 'X',
          option_values: { Colour: 'L' },
          stock: 0,
        }),
      ),
    ).toBe('bad_request');
    const qVariant = (
      await rows<{ id: number }>(app.em(), sql`SELECT id FROM product_variants WHERE product_id = ${Q}`)
    )[0]?.id as number;
    expect(await refusal(op.catalogue.retireVariant({ productId: Q, variantId: qVariant }))).toBe('conflict');
    expect(await refusal(op.inventory.receiveStock({ productId: Q, quantity: 2_147_483_647 }))).toBe(
      'bad_request',
    );
    await runJobs();
    expect(await newEvents()).toEqual([]);
  });

  it('needs the operator credential', async () => {
    const anonymous = createCaller(testContext(app, { operatorToken: OPERATOR_TOKEN })).internal;
    expect(await refusal(anonymous.catalogue.withdrawProduct({ productId: P }))).toBe('unauthorized');
    const withKey = createCaller(
      testContext(app, { authorization: `Bearer ${A.readWrite}`, operatorToken: OPERATOR_TOKEN }),
    ).internal;
    expect(await refusal(withKey.catalogue.updateProduct({ productId: P, name: 'x' }))).toBe('unauthorized');
  });
});

describe('fan-out in batches', () => {
  it('reaches every listing store once across batches, and merged payloads plan one event per kind', async () => {
    const fx = fixtures(app.em());
    const product = await fx.product({ supplierId: (await fx.supplier()) as number, stock: [1] });
    const stores: number[] = [];
    for (let i = 0; i < 7; i++) {
      const s = await app.createStore(`Batch ${i}`);
      stores.push(s.id);
      await rows(app.em(), sql`INSERT INTO listings (store_id, product_id) VALUES (${s.id}, ${product})`);
    }
    await runJobs();
    await newEvents();
    const reached = await fanOutToListingStores(
      app.em(),
      product,
      { events: [{ event: 'product.updated', data: { product_id: product } }], touchFeed: true },
      3,
    );
    expect(reached).toBe(7);
    expect((await newEvents()).map(([store, event]) => [store, event])).toEqual(
      stores.map((s) => [s, 'product.updated']),
    );
    expect(
      planProductFanout([
        { product_id: 5, event: 'product.updated', variant_ids: [9], feed: false },
        { product_id: 5, event: 'product.updated', variant_ids: [9], feed: false },
        { product_id: 5, event: 'product.deleted', variant_ids: null, feed: true },
      ]),
    ).toEqual({
      productId: 5,
      events: [
        { event: 'product.updated', data: { product_id: 5, variant_id: 9 } },
        { event: 'product.deleted', data: { product_id: 5 } },
      ],
      touchFeed: true,
    });
    expect(
      planProductFanout([
        { product_id: 5, event: 'product.updated', variant_ids: [9], feed: false },
        { product_id: 5, event: 'product.updated', variant_ids: [10], feed: false },
      ])?.events,
    ).toEqual([{ event: 'product.updated', data: { product_id: 5 } }]);
    expect(planProductFanout([{ product_id: 'x' }])).toBeNull();
  });
});

/** Every event dispatched and every coalescing window closed (by the worker process). */
async function settled(timeoutMs = 30_000) {
  const started = Date.now();
  for (;;) {
    const [open] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT (SELECT count(*) FROM domain_events WHERE dispatched_at IS NULL)::integer
        + (SELECT count(*) FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t
            ON t.id = j.task_id WHERE t.identifier IN ('dispatch_events', 'webhook_coalesce'))::integer AS n`,
    );
    if (open?.n === 0) return;
    if (Date.now() - started > timeoutMs) throw new Error('events did not settle');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('webhook receivers of the listing stores', () => {
  it('each gets exactly one coalesced, ids-only delivery per event; stores without the listing get none', async () => {
    const receiver = await startReceiver();
    // A window wide enough that three changes fall in one even on a loaded machine.
    const worker = await startWorkerProcess(app.databaseUrl, receiver.caFile, {
      WEBHOOK_COALESCE_WINDOW: '4s',
    });
    try {
      // Earlier tests' changes (stock, listings) must reach the log before the subscriptions exist:
      // an open window of theirs would close into them.
      await settled();
      const hooks = new Map<number, number>();
      for (const store of [A, B, C, D]) {
        const res = await call<CreateWebhookResponse>('POST', '/api/v1/vendor/webhooks', store.readWrite, {
          url: `${receiver.url}/s${store.id}`,
          events: ['product.updated', 'product.deleted', 'inventory.updated'],
        });
        expect(res.status).toBe(201);
        hooks.set(res.body.webhook.id, store.id);
      }
      // Three changes inside one coalescing window (4 s here, 30 s by default).
      await internal().catalogue.updateProduct({ productId: P, name: 'Brass lamp, large' });
      await internal().catalogue.updateProduct({ productId: P, retail_price_cents: 2200 });
      await internal().catalogue.updateProduct({ productId: P, description: 'Large brass lamp.' });
      const got = await receiver.waitFor(2);
      await new Promise((r) => setTimeout(r, 2500));
      expect(got).toHaveLength(2);
      const byStore = got
        .map((r) => {
          const [hook] = String(r.headers['x-stockless-delivery-id']).split(':');
          const body: WebhookEvent = JSON.parse(r.body);
          return { store: hooks.get(Number(hook)), event: r.headers['x-stockless-event'], body };
        })
        .sort((a, b) => (a.store ?? 0) - (b.store ?? 0));
      expect(byStore.map((d) => [d.store, d.event, d.body.data])).toEqual([
        [A.id, 'product.updated', { product_id: P }],
        [B.id, 'product.updated', { product_id: P }],
      ]);
      for (const d of byStore)
        expect(d.body.event_key).toMatch(new RegExp(`^product\\.updated:${P}\\.\\d+$`));

      await internal().catalogue.withdrawProduct({ productId: P });
      const all = await receiver.waitFor(4);
      await new Promise((r) => setTimeout(r, 2500));
      expect(all).toHaveLength(4);
      expect(
        all
          .slice(2)
          .map(
            (r) =>
              [
                hooks.get(Number(String(r.headers['x-stockless-delivery-id']).split(':')[0])),
                JSON.parse(r.body) as WebhookEvent,
              ] as const,
          )
          .sort((a, b) => Number(a[0]) - Number(b[0]))
          .map(([store, body]) => [store, body.event, body.data]),
      ).toEqual([
        [A.id, 'product.deleted', { product_id: P }],
        [B.id, 'product.deleted', { product_id: P }],
      ]);
      await internal().catalogue.reinstateProduct({ productId: P });
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
