import type { JobHelpers, Task } from 'graphile-worker';
import { Logger, runOnce } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddMyProductResponse, BulkAddMyProductsResponse, ErrorBody } from '../../client/src/index.ts';
import { createTaskList } from '../../jobs/tasks.ts';
import type { Actor } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { type DispatchedEvent, dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { addListing } from '../../src/listings/add-listing.ts';
import { bulkAddListings } from '../../src/listings/bulk-add-listings.ts';
import { bulkRemoveListings } from '../../src/listings/bulk-remove-listings.ts';
import { removeListing } from '../../src/listings/remove-listing.ts';
import { setPricing } from '../../src/listings/set-pricing.ts';
import { setPurchaseMode } from '../../src/listings/set-purchase-mode.ts';
import { setVendorFulfilled } from '../../src/listings/set-vendor-fulfilled.ts';
import type { PartnerContext } from '../../src/trpc/context.ts';
import { webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp, testContext } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';

/**
 * Domain events (the `domain_events` outbox) of listing changes, and the `dispatch_events` job.
 *
 * Catalogue: E1..E6 (wholesale 1000, retail 2000, so the minimum price is 1000 at margin 0),
 * EQ (quote-only in the catalogue), EI (inactive), and MANY: 1,100 products of supplier MANY.
 */

let app: TestApp;
type StoreKeys = Awaited<ReturnType<TestApp['createStore']>>;
const ids: Record<string, number> = {};
let supMany: number;
let supE: number;
const MANY_N = 1100;

function id(key: string): number {
  const v = ids[key];
  if (v === undefined) throw new Error(`no fixture ${key}`);
  return v;
}

function call<T = unknown>(method: string, path: string, key: string | undefined, body?: unknown) {
  return send<T>(app, method, path, { key, body });
}

interface EventRow {
  id: number;
  store_id: number;
  event: string;
  entity_id: number;
  data: unknown;
  dispatched_at: string | null;
}

async function events(storeId: number): Promise<EventRow[]> {
  return rows<EventRow>(
    app.em(),
    sql`SELECT id::integer AS id, store_id, event, entity_id::integer AS entity_id, data,
          dispatched_at::text AS dispatched_at
        FROM domain_events WHERE store_id = ${storeId} ORDER BY id`,
  );
}

/** The events as [event, product id] pairs, in the order written. */
async function written(storeId: number) {
  return (await events(storeId)).map((e) => [e.event, e.entity_id]);
}

async function pendingCount() {
  const [row] = await rows<{ n: number }>(
    app.em(),
    sql`SELECT count(*)::integer AS n FROM domain_events WHERE dispatched_at IS NULL`,
  );
  return row?.n ?? -1;
}

async function pendingIds(): Promise<number[]> {
  return (
    await rows<{ id: number }>(
      app.em(),
      sql`SELECT d.id::integer AS id FROM domain_events d WHERE d.dispatched_at IS NULL ORDER BY d.id`,
    )
  ).map((r) => r.id);
}

async function jobs() {
  return rows<{ task_identifier: string; key: string | null }>(
    app.em(),
    sql`SELECT task_identifier, key FROM graphile_worker.jobs ORDER BY id`,
  );
}

async function clearJobs() {
  await rows(app.em(), sql`SELECT graphile_worker.remove_job('dispatch_events')`);
  // Dispatched product events open coalescing windows (the event log keeps every store's events).
  await rows(
    app.em(),
    sql`SELECT graphile_worker.remove_job(key) FROM graphile_worker.jobs WHERE task_identifier = 'webhook_coalesce'`,
  );
  expect(await jobs()).toEqual([]);
}

const DISPATCH_JOB = [{ task_identifier: 'dispatch_events', key: 'dispatch_events' }];

async function listingState(storeId: number) {
  return rows<{
    product_id: number;
    deleted: boolean;
    custom: number | null;
    mode: string | null;
    vf: boolean;
  }>(
    app.em(),
    sql`SELECT product_id, deleted_at IS NOT NULL AS deleted, custom_retail_price_cents AS custom,
          purchase_mode AS mode, vendor_fulfilled AS vf, updated_at::text AS updated_at
        FROM listings WHERE store_id = ${storeId} ORDER BY product_id`,
  );
}

const created = (productId: number) => ['product.created', productId];
const updated = (productId: number) => ['product.updated', productId];
const deleted = (productId: number) => ['product.deleted', productId];

beforeAll(async () => {
  app = await startTestApp();
  const em = app.em();
  const fx = fixtures(em);
  supE = await fx.supplier({ name: 'Supplier E' });
  for (const k of ['E1', 'E2', 'E3', 'E4', 'E5', 'E6']) {
    ids[k] = await fx.product({
      name: `Event Product ${k}`,
      supplierId: supE,
      wholesale: 1000,
      retail: 2000,
    });
  }
  ids.EQ = await fx.product({ name: 'Quote Only', supplierId: supE, purchaseMode: 'enquiry' });
  ids.EI = await fx.product({ name: 'Retired', supplierId: supE, active: false });
  supMany = await fx.supplier({ name: 'Supplier Many' });
  await rows(
    em,
    sql`INSERT INTO products (supplier_id, name, sku, wholesale_price_cents, retail_price_cents, stock_quantity)
        SELECT ${supMany}, 'Many ' || i, 'MANY-' || i, 100, 200, 1
        FROM generate_series(1, ${MANY_N}::integer) AS i`,
  );
});

afterAll(async () => {
  await app?.close();
});

describe('each committed listing change writes exactly one event and wakes the dispatcher', () => {
  let s: StoreKeys;
  beforeAll(async () => {
    s = await app.createStore();
  });

  it('POST /my-products: product.created with the product id, undispatched, and one dispatcher job', async () => {
    await clearJobs();
    const res = await call('POST', '/api/v1/my-products', s.readWrite, { product_id: id('E1') });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const all = await events(s.id);
    expect(all).toEqual([
      {
        id: expect.any(Number),
        store_id: s.id,
        event: 'product.created',
        entity_id: id('E1'),
        data: { product_id: id('E1') },
        dispatched_at: null,
      },
    ]);
    expect(await jobs()).toEqual(DISPATCH_JOB);
    const [created_] = await rows<{ age: number }>(
      app.em(),
      sql`SELECT extract(epoch FROM now() - created_at)::float AS age FROM domain_events WHERE id = ${all[0]?.id}`,
    );
    expect(created_?.age).toBeGreaterThanOrEqual(0);
    expect(created_?.age).toBeLessThan(60);
  });

  it('DELETE: product.deleted; adding again (restore): product.created', async () => {
    await clearJobs();
    expect((await call('DELETE', `/api/v1/my-products/${id('E1')}`, s.readWrite)).status).toBe(200);
    expect(await jobs()).toEqual(DISPATCH_JOB);
    await clearJobs();
    const res = await call<AddMyProductResponse>('POST', '/api/v1/my-products', s.readWrite, {
      product_id: id('E1'),
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Product restored to your store');
    expect(await jobs()).toEqual(DISPATCH_JOB);
    expect(await written(s.id)).toEqual([created(id('E1')), deleted(id('E1')), created(id('E1'))]);
  });

  it('PUT pricing (set and clear), PATCH enquiry-mode, PATCH vendor-fulfilled: one product.updated each', async () => {
    const base = `/api/v1/my-products/${id('E1')}`;
    const before = (await events(s.id)).length;
    const changes: [string, string, unknown][] = [
      ['PUT', `${base}/pricing`, { custom_retail_price_cents: 2500 }],
      ['PUT', `${base}/pricing`, { custom_retail_price_cents: null }],
      ['PATCH', `${base}/enquiry-mode`, { purchase_mode: 'enquiry' }],
      ['PATCH', `${base}/enquiry-mode`, { purchase_mode: 'buy_now' }],
      ['PATCH', `${base}/vendor-fulfilled`, { vendor_fulfilled: true }],
    ];
    for (const [method, path, body] of changes) {
      await clearJobs();
      const res = await call(method, path, s.readWrite, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(await jobs()).toEqual(DISPATCH_JOB);
    }
    const all = await events(s.id);
    expect(all.slice(before).map((e) => [e.event, e.entity_id, e.data])).toEqual(
      changes.map(() => ['product.updated', id('E1'), { product_id: id('E1') }]),
    );
    expect(all.every((e) => e.store_id === s.id && e.dispatched_at === null)).toBe(true);
    expect((await written(s.id)).slice(before)).toEqual(changes.map(() => updated(id('E1'))));
  });

  it('many changes keep a single pending dispatcher job', async () => {
    await clearJobs();
    for (const k of ['E2', 'E3', 'E4']) {
      expect((await call('POST', '/api/v1/my-products', s.readWrite, { product_id: id(k) })).status).toBe(
        201,
      );
    }
    expect(await jobs()).toEqual(DISPATCH_JOB);
  });

  it('bulk add and bulk remove: one event per product changed, none for skips', async () => {
    const t = await app.createStore();
    await fixtures(app.em()).listing(t.id, id('E2'));
    await fixtures(app.em()).listing(t.id, id('E3'), { deleted: true, customRetail: 5000 });
    await clearJobs();
    const add = await call('POST', '/api/v1/my-products/bulk', t.readWrite, {
      mode: 'ids',
      product_ids: [id('E1'), id('E2'), id('E3'), id('E1'), id('EI'), 999_999],
    });
    expect(add.body).toMatchObject({ added: 1, restored: 1 });
    expect(await jobs()).toEqual(DISPATCH_JOB);
    const afterAdd = await events(t.id);
    expect(afterAdd.map((e) => [e.event, e.entity_id]).sort()).toEqual(
      [created(id('E1')), created(id('E3'))].sort(),
    );
    expect(
      afterAdd.map((e) => e.data).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual(
      [{ product_id: id('E1') }, { product_id: id('E3') }].sort((a, b) =>
        JSON.stringify(a).localeCompare(JSON.stringify(b)),
      ),
    );

    await clearJobs();
    const remove = await call('POST', '/api/v1/my-products/bulk-remove', t.readWrite, {
      mode: 'ids',
      product_ids: [id('E2'), id('E4'), id('E2')],
    });
    expect(remove.body).toEqual({
      removed: 1,
      skipped: expect.arrayContaining([
        { product_id: id('E2'), reason: 'duplicate' },
        { product_id: id('E4'), reason: 'not_in_store' },
      ]),
    });
    expect(await jobs()).toEqual(DISPATCH_JOB);
    await clearJobs();
    const clear = await call('POST', '/api/v1/my-products/bulk-remove', t.readWrite, {
      mode: 'filter',
      filters: {},
    });
    expect(clear.body).toEqual({ removed: 2, skipped: [] });
    expect(await jobs()).toEqual(DISPATCH_JOB);
    const all = await events(t.id);
    expect(all).toHaveLength(5);
    expect(all.slice(2, 3).map((e) => [e.event, e.entity_id, e.data])).toEqual([
      ['product.deleted', id('E2'), { product_id: id('E2') }],
    ]);
    // The filter removal writes its two events in one statement: compare them as a set.
    expect(
      all
        .slice(3)
        .map((e) => e.entity_id)
        .sort((a, b) => a - b),
    ).toEqual([id('E1'), id('E3')].sort((a, b) => a - b));
    expect(
      all
        .slice(3)
        .sort((x, y) => x.entity_id - y.entity_id)
        .map((e) => [e.event, e.data]),
    ).toEqual([id('E1'), id('E3')].sort((a, b) => a - b).map((p) => ['product.deleted', { product_id: p }]));
  });

  it('bulk add in filter mode: one product.created per match, all in the same store', async () => {
    const t = await app.createStore();
    await clearJobs();
    const res = await call('POST', '/api/v1/my-products/bulk', t.readWrite, {
      mode: 'filter',
      filters: { supplier_id: supE },
    });
    expect(res.body).toEqual({ added: 7, restored: 0, skipped: [] });
    expect(await jobs()).toEqual(DISPATCH_JOB);
    const all = await events(t.id);
    expect(all.map((e) => e.entity_id).sort((a, b) => a - b)).toEqual(
      ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'EQ'].map(id).sort((a, b) => a - b),
    );
    expect(new Set(all.map((e) => e.event))).toEqual(new Set(['product.created']));
  });
});

describe('a refused change writes no event and enqueues no job', () => {
  let s: StoreKeys;
  beforeAll(async () => {
    s = await app.createStore();
    for (const k of ['E1', 'EQ']) {
      expect((await call('POST', '/api/v1/my-products', s.readWrite, { product_id: id(k) })).status).toBe(
        201,
      );
    }
  });

  const cases: [string, string, string, 'rw' | 'read' | 'none', unknown, number, string | undefined][] = [
    ['add, already listed', 'POST', '/api/v1/my-products', 'rw', { product_id: 'E1' }, 409, 'ALREADY_LISTED'],
    ['add, unknown product', 'POST', '/api/v1/my-products', 'rw', { product_id: 999_999 }, 404, undefined],
    ['add, inactive product', 'POST', '/api/v1/my-products', 'rw', { product_id: 'EI' }, 404, undefined],
    [
      'add, price below minimum',
      'POST',
      '/api/v1/my-products',
      'rw',
      { product_id: 'E2', custom_retail_price_cents: 999 },
      400,
      'PRICE_BELOW_MINIMUM',
    ],
    [
      'add, id not an integer',
      'POST',
      '/api/v1/my-products',
      'rw',
      { product_id: 'x' },
      400,
      'VALIDATION_FAILED',
    ],
    ['add, read key', 'POST', '/api/v1/my-products', 'read', { product_id: 'E2' }, 403, 'INSUFFICIENT_SCOPE'],
    ['add, no key', 'POST', '/api/v1/my-products', 'none', { product_id: 'E2' }, 401, undefined],
    ['remove, not listed', 'DELETE', '/api/v1/my-products/:E2', 'rw', undefined, 404, undefined],
    ['remove, read key', 'DELETE', '/api/v1/my-products/:E1', 'read', undefined, 403, 'INSUFFICIENT_SCOPE'],
    [
      'pricing below minimum',
      'PUT',
      '/api/v1/my-products/:E1/pricing',
      'rw',
      { custom_retail_price_cents: 999 },
      400,
      'PRICE_BELOW_MINIMUM',
    ],
    [
      'pricing negative',
      'PUT',
      '/api/v1/my-products/:E1/pricing',
      'rw',
      { custom_retail_price_cents: -1 },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'pricing, not listed',
      'PUT',
      '/api/v1/my-products/:E2/pricing',
      'rw',
      { custom_retail_price_cents: 3000 },
      404,
      undefined,
    ],
    [
      'buy_now on a quote-only product',
      'PATCH',
      '/api/v1/my-products/:EQ/enquiry-mode',
      'rw',
      { purchase_mode: 'buy_now' },
      409,
      'PURCHASE_MODE_LOCKED',
    ],
    [
      'unknown selling mode',
      'PATCH',
      '/api/v1/my-products/:E1/enquiry-mode',
      'rw',
      { purchase_mode: 'auction' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'vendor-fulfilled not a boolean',
      'PATCH',
      '/api/v1/my-products/:E1/vendor-fulfilled',
      'rw',
      { vendor_fulfilled: 'yes' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'vendor-fulfilled, not listed',
      'PATCH',
      '/api/v1/my-products/:E3/vendor-fulfilled',
      'rw',
      { vendor_fulfilled: true },
      404,
      undefined,
    ],
    [
      'vendor-fulfilled, read key',
      'PATCH',
      '/api/v1/my-products/:E1/vendor-fulfilled',
      'read',
      { vendor_fulfilled: true },
      403,
      'INSUFFICIENT_SCOPE',
    ],
    [
      'bulk add, 501 ids',
      'POST',
      '/api/v1/my-products/bulk',
      'rw',
      { mode: 'ids', product_ids: Array.from({ length: 501 }, (_, k) => k + 1) },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'bulk remove, bad filter',
      'POST',
      '/api/v1/my-products/bulk-remove',
      'rw',
      { mode: 'filter', filters: { complete_for: 'Bad' } },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'bulk remove, read key',
      'POST',
      '/api/v1/my-products/bulk-remove',
      'read',
      { mode: 'filter', filters: {} },
      403,
      'INSUFFICIENT_SCOPE',
    ],
  ];

  it.each(cases)('%s', async (_label, method, rawPath, who, rawBody, status, code) => {
    const path = rawPath.replace(/:(E\w+)/, (_m, k: string) => String(id(k)));
    const body =
      rawBody &&
      typeof rawBody === 'object' &&
      'product_id' in rawBody &&
      typeof rawBody.product_id === 'string'
        ? {
            ...rawBody,
            product_id: rawBody.product_id === 'x' ? 'x' : id(rawBody.product_id),
          }
        : rawBody;
    const key = who === 'rw' ? s.readWrite : who === 'read' ? s.read : undefined;
    const before = { events: await events(s.id), listings: await listingState(s.id) };
    await clearJobs();
    const res = await call<ErrorBody>(method, path, key, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (code) expect(res.body.code).toBe(code);
    expect(await events(s.id)).toEqual(before.events);
    expect(await listingState(s.id)).toEqual(before.listings);
    expect(await jobs()).toEqual([]);
  });
});

describe('a rolled-back change leaves no event, no listing change and no job', () => {
  let s: StoreKeys;
  beforeAll(async () => {
    s = await app.createStore();
    const fx = fixtures(app.em());
    await fx.listing(s.id, id('E1'), { customRetail: 1500 });
    await fx.listing(s.id, id('E2'), { deleted: true, customRetail: 1800 });
    await fx.listing(s.id, id('E3'));
  });

  type Tx = Parameters<Parameters<ReturnType<TestApp['em']>['transactional']>[0]>[0];
  /** The store's context as its procedures give it, on `em` (a transaction's, so the test can roll it back). */
  const partner = (em: Tx): PartnerContext => {
    const actor: Actor = {
      storeId: s.id,
      kind: 'api_key',
      scope: 'read_write',
      appScopes: new Set(),
      credentialId: 1,
      canReadCustomers: true,
      livemode: true,
    };
    return { ...testContext(app), em, actor };
  };
  const changes: [string, (tx: Tx) => Promise<unknown>, number][] = [
    ['addListing (new)', (tx) => addListing(partner(tx), { product_id: id('E4') }), 1],
    ['addListing (restore)', (tx) => addListing(partner(tx), { product_id: id('E2') }), 1],
    [
      'addListing with a price',
      (tx) => addListing(partner(tx), { product_id: id('E5'), custom_retail_price_cents: 4000 }),
      1,
    ],
    ['removeListing', (tx) => removeListing(partner(tx), { productId: id('E1') }), 1],
    [
      'setPricing',
      (tx) => setPricing(partner(tx), { productId: id('E1'), custom_retail_price_cents: 3000 }),
      1,
    ],
    [
      'setPurchaseMode',
      (tx) => setPurchaseMode(partner(tx), { productId: id('E3'), purchase_mode: 'enquiry' }),
      1,
    ],
    [
      'setVendorFulfilled',
      (tx) => setVendorFulfilled(partner(tx), { productId: id('E3'), vendor_fulfilled: true }),
      1,
    ],
    [
      'bulkAddListings ids',
      (tx) => bulkAddListings(partner(tx), { mode: 'ids', product_ids: [id('E2'), id('E4'), id('E6')] }),
      3,
    ],
    [
      'bulkAddListings filter',
      (tx) => bulkAddListings(partner(tx), { mode: 'filter', filters: { supplier_id: supMany } }),
      MANY_N,
    ],
    [
      'bulkRemoveListings ids',
      (tx) => bulkRemoveListings(partner(tx), { mode: 'ids', product_ids: [id('E1'), id('E3')] }),
      2,
    ],
    [
      'bulkRemoveListings filter {}',
      (tx) => bulkRemoveListings(partner(tx), { mode: 'filter', filters: {} }),
      2,
    ],
  ];

  it.each(changes)('%s', async (_label, change, inside) => {
    const before = await listingState(s.id);
    expect(before.map((l) => [l.product_id, l.deleted])).toEqual(
      [
        [id('E1'), false],
        [id('E2'), true],
        [id('E3'), false],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    await clearJobs();
    let seenInside = -1;
    let jobsInside = -1;
    await expect(
      app.em().transactional(async (tx) => {
        await change(tx);
        const [n] = await rows<{ n: number }>(
          tx,
          sql`SELECT count(*)::integer AS n FROM domain_events WHERE store_id = ${s.id}`,
        );
        seenInside = n?.n ?? -1;
        const [j] = await rows<{ n: number }>(
          tx,
          sql`SELECT count(*)::integer AS n FROM graphile_worker.jobs WHERE key = 'dispatch_events'`,
        );
        jobsInside = j?.n ?? -1;
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    // The change did write its events and job inside the transaction...
    expect(seenInside).toBe(inside);
    expect(jobsInside).toBe(1);
    // ...and none of it survived the rollback.
    expect(await events(s.id)).toEqual([]);
    expect(await listingState(s.id)).toEqual(before);
    expect(await jobs()).toEqual([]);
  });

  it('the same service call committed does leave its event and job', async () => {
    await clearJobs();
    await app.em().transactional((tx) => addListing(partner(tx), { product_id: id('E4') }));
    expect(await written(s.id)).toEqual([created(id('E4'))]);
    expect(await jobs()).toEqual(DISPATCH_JOB);
    await removeListing(partner(app.em()), { productId: id('E4') });
    expect(await written(s.id)).toEqual([created(id('E4')), deleted(id('E4'))]);
  });

  it('a change whose dispatcher job cannot be enqueued rolls back with its event (HTTP 500)', async () => {
    const t = await app.createStore();
    await rows(
      app.em(),
      sql`CREATE FUNCTION test_refuse_job() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'job queue refused'; END $$;
        CREATE TRIGGER test_refuse_job BEFORE INSERT OR UPDATE ON graphile_worker._private_jobs
          FOR EACH ROW EXECUTE FUNCTION test_refuse_job();`,
    );
    try {
      await clearJobs();
      const res = await call('POST', '/api/v1/my-products', t.readWrite, { product_id: id('E1') });
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ error: 'server_error', message: 'Internal server error' });
    } finally {
      await rows(
        app.em(),
        sql`DROP TRIGGER test_refuse_job ON graphile_worker._private_jobs; DROP FUNCTION test_refuse_job();`,
      );
    }
    expect(await events(t.id)).toEqual([]);
    expect(await listingState(t.id)).toEqual([]);
    expect(await jobs()).toEqual([]);
    expect((await call('POST', '/api/v1/my-products', t.readWrite, { product_id: id('E1') })).status).toBe(
      201,
    );
    expect(await written(t.id)).toEqual([created(id('E1'))]);
  });
});

function fakeHelpers() {
  const log = { info: [] as string[], debug: [] as string[] };
  const helpers = {
    logger: {
      info: (m: string) => log.info.push(m),
      debug: (m: string) => log.debug.push(m),
    },
  } as unknown as JobHelpers;
  return { helpers, log };
}

describe('dispatching', () => {
  it('the dispatch_events task marks pending events dispatched, oldest first; a second run finds none', async () => {
    const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS).dispatch_events as Task;
    // Drain whatever earlier tests left.
    const drain = fakeHelpers();
    await task({}, drain.helpers);
    expect(await pendingCount()).toBe(0);

    const a = await app.createStore();
    const b = await app.createStore();
    const steps: [string, string, string, unknown][] = [
      [a.readWrite, 'POST', '/api/v1/my-products', { product_id: id('E5') }],
      [b.readWrite, 'POST', '/api/v1/my-products', { product_id: id('E6') }],
      [a.readWrite, 'PUT', `/api/v1/my-products/${id('E5')}/pricing`, { custom_retail_price_cents: 2100 }],
      [b.readWrite, 'DELETE', `/api/v1/my-products/${id('E6')}`, undefined],
    ];
    for (const [key, method, path, body] of steps) {
      expect((await call(method, path, key, body)).status).toBeLessThan(300);
    }
    expect(await pendingCount()).toBe(4);
    const aEvents = await events(a.id);
    expect(aEvents.map((e) => e.dispatched_at)).toEqual([null, null]);

    const run = fakeHelpers();
    await task({}, run.helpers);
    expect(run.log.debug).toEqual([
      `event product.created ${id('E5')} (store ${a.id})`,
      `event product.created ${id('E6')} (store ${b.id})`,
      `event product.updated ${id('E5')} (store ${a.id})`,
      `event product.deleted ${id('E6')} (store ${b.id})`,
    ]);
    expect(run.log.info).toEqual(['dispatched 4 events']);
    expect(await pendingCount()).toBe(0);
    for (const e of [...(await events(a.id)), ...(await events(b.id))]) {
      expect(e.dispatched_at).not.toBeNull();
    }
    // Dispatching does not touch anything else about the event.
    expect((await events(a.id)).map((e) => [e.id, e.event, e.entity_id, e.data])).toEqual(
      aEvents.map((e) => [e.id, e.event, e.entity_id, e.data]),
    );

    const again = fakeHelpers();
    await task({}, again.helpers);
    expect(again.log).toEqual({ info: [], debug: [] });
    expect(await dispatchPendingEvents(app.em(), webhookFanOut(30_000))).toBe(0);

    // A change after that is the only thing the next run dispatches.
    expect((await call('DELETE', `/api/v1/my-products/${id('E5')}`, a.readWrite)).status).toBe(200);
    const seen: DispatchedEvent[] = [];
    expect(await dispatchPendingEvents(app.em(), webhookFanOut(30_000), (e) => seen.push(e))).toBe(1);
    expect(seen).toEqual([
      {
        id: expect.any(String),
        store_id: a.id,
        event: 'product.deleted',
        entity_id: String(id('E5')),
        data: { product_id: id('E5') },
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        livemode: true,
        // Tracing is off here: no trace context is kept with the event.
        traceparent: null,
      },
    ]);
  });

  it('dispatches a backlog larger than one batch completely: oldest batch first, each event once', async () => {
    await dispatchPendingEvents(app.em(), webhookFanOut(30_000));
    const a = await app.createStore();
    const b = await app.createStore();
    for (const store of [a, b]) {
      const res = await call('POST', '/api/v1/my-products/bulk', store.readWrite, {
        mode: 'filter',
        filters: { supplier_id: supMany },
      });
      expect(res.body).toEqual({ added: MANY_N, restored: 0, skipped: [] });
    }
    const pending = (await pendingIds()).map(String);
    expect(pending).toHaveLength(2 * MANY_N);

    const seen: DispatchedEvent[] = [];
    expect(await dispatchPendingEvents(app.em(), webhookFanOut(30_000), (e) => seen.push(e))).toBe(
      2 * MANY_N,
    );
    const sorted = (list: string[]) => [...list].sort((x, y) => Number(x) - Number(y));
    // Batches of 1000, each the oldest still pending.
    for (const [from, to] of [
      [0, 1000],
      [1000, 2000],
      [2000, 2 * MANY_N],
    ] as const) {
      expect(sorted(seen.slice(from, to).map((e) => e.id))).toEqual(pending.slice(from, to));
    }
    expect(new Set(seen.map((e) => e.id)).size).toBe(2 * MANY_N);
    expect(seen.filter((e) => e.store_id === a.id)).toHaveLength(MANY_N);
    expect(new Set(seen.filter((e) => e.store_id === b.id).map((e) => e.entity_id)).size).toBe(MANY_N);
    expect(await pendingCount()).toBe(0);
    expect(await dispatchPendingEvents(app.em(), webhookFanOut(30_000))).toBe(0);
  });

  it('hands the events of each batch to onEvent oldest first', async () => {
    await dispatchPendingEvents(app.em(), webhookFanOut(30_000));
    const s = await app.createStore();
    const res = await call<BulkAddMyProductsResponse>('POST', '/api/v1/my-products/bulk', s.readWrite, {
      mode: 'filter',
      filters: { supplier_id: supMany },
    });
    expect(res.body.added).toBe(MANY_N);
    await call('POST', '/api/v1/my-products/bulk-remove', s.readWrite, { mode: 'filter', filters: {} });
    const pending = await pendingIds();
    expect(pending).toHaveLength(2 * MANY_N);
    // Rows do not stay in id order on disk (any update, such as a batch marked dispatched, writes a
    // new row version elsewhere); rewrite the oldest pending ones as such an update would.
    await rows(
      app.em(),
      sql`UPDATE domain_events SET data = data || '{}'::jsonb
        WHERE id IN (SELECT id FROM domain_events WHERE dispatched_at IS NULL ORDER BY id LIMIT 100)`,
    );
    const seen: number[] = [];
    await dispatchPendingEvents(app.em(), webhookFanOut(30_000), (e) => seen.push(Number(e.id)));
    expect(seen).toHaveLength(2 * MANY_N);
    const firstOutOfOrder = seen.findIndex((v, i) => i > 0 && v < (seen[i - 1] ?? 0));
    expect(firstOutOfOrder, `ids ${seen.slice(Math.max(0, firstOutOfOrder - 2), firstOutOfOrder + 2)}`).toBe(
      -1,
    );
    expect(seen).toEqual(pending);
  });

  it('two dispatchers at once share the backlog without dispatching an event twice', async () => {
    const s = await app.createStore();
    const res = await call<BulkAddMyProductsResponse>('POST', '/api/v1/my-products/bulk', s.readWrite, {
      mode: 'filter',
      filters: { supplier_id: supMany },
    });
    expect(res.body.added).toBe(MANY_N);
    const one: string[] = [];
    const two: string[] = [];
    const [n1, n2] = await Promise.all([
      dispatchPendingEvents(app.em(), webhookFanOut(30_000), (e) => one.push(e.id)),
      dispatchPendingEvents(app.em(), webhookFanOut(30_000), (e) => two.push(e.id)),
    ]);
    expect(n1 + n2).toBe(MANY_N);
    expect(new Set([...one, ...two]).size).toBe(MANY_N);
    expect(await pendingCount()).toBe(0);
  });

  it('the queued job, run by Graphile Worker, dispatches the events and leaves the queue empty', async () => {
    await dispatchPendingEvents(app.em(), webhookFanOut(30_000));
    await clearJobs();
    const s = await app.createStore();
    expect((await call('POST', '/api/v1/my-products', s.readWrite, { product_id: id('E6') })).status).toBe(
      201,
    );
    expect(await jobs()).toEqual(DISPATCH_JOB);
    expect(await pendingCount()).toBe(1);
    await runOnce({
      connectionString: app.databaseUrl,
      taskList: createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS),
      logger: new Logger(() => () => {}),
    });
    // What is left is the product's coalescing window, which closes after it: its event goes to the log.
    expect(await jobs()).toEqual([
      { task_identifier: 'webhook_coalesce', key: `webhook_coalesce:product.created:${id('E6')}` },
    ]);
    expect(await pendingCount()).toBe(0);
    expect((await events(s.id)).map((e) => e.dispatched_at !== null)).toEqual([true]);
  });
});
