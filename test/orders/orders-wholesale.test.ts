import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  CreateWholesaleOrderResponse,
  ErrorBody,
  GetOrderResponse,
  ListOrdersResponse,
} from '../../client/src/index.ts';
import type { Actor } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { syncStockTotal } from '../../src/inventory/stock-total.ts';
import { reserveStock } from '../../src/orders/reserve.ts';
import { createCaller } from '../../src/router.ts';
import type { Context } from '../../src/trpc/context.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { failure } from '../helpers/errors.ts';
import { fixtures, type ProductSpec } from '../helpers/fixtures.ts';
import { isStatus, send as request, type Sent } from '../helpers/http.ts';

/**
 * POST /api/v1/orders: the store buys catalogue products at wholesale. Every refusal must leave
 * stock, orders, events, jobs and the order-number sequence exactly as they were.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;
let ownSupplierId: number;
let othersOwnSupplierId: number;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Wholesale Buyer');
  other = await app.createStore('Other Store');
  const fx = fixtures(app.em());
  supplierId = await fx.supplier({ name: 'Catalogue Maker' });
  ownSupplierId = await fx.supplier({ name: 'Own Workshop', ownerStoreId: store.id });
  othersOwnSupplierId = await fx.supplier({ name: 'Their Workshop', ownerStoreId: other.id });
});
afterAll(() => app.close());

const ORDERS = '/api/v1/orders';

const CUSTOMER = { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' };
const SHIPPING = {
  address: '1 George St',
  address2: 'Level 2',
  city: 'Sydney',
  state: 'NSW',
  zip: '2000',
  country: 'au',
};

interface Line {
  product_id: unknown;
  variant_id?: unknown;
  quantity: unknown;
  price_cents?: unknown;
}

function orderBody(items: Line[], extra: Record<string, unknown> = {}) {
  return { customer: CUSTOMER, items, shipping: SHIPPING, ...extra };
}

/** A fresh catalogue product (wholesale 1000, retail 2000, one variant with 5 in stock unless told). */
function product(p: Partial<ProductSpec> = {}): Promise<number> {
  return fixtures(app.em()).product({ supplierId, ...p });
}

interface VariantRow {
  id: number;
  stock_quantity: number;
  wholesale_price_cents: number;
}

/** The product's variants in position order. */
async function variants(productId: number): Promise<VariantRow[]> {
  return rows<VariantRow>(
    app.em(),
    sql`SELECT id, stock_quantity, wholesale_price_cents FROM product_variants
      WHERE product_id = ${productId} ORDER BY position, id`,
  );
}

async function variantIds(productId: number): Promise<number[]> {
  return (await variants(productId)).map((v) => v.id);
}

/** The product's total as the stock fan-out job leaves it (the worker runs it after each change), and its variants'. */
async function stockOf(productId: number): Promise<{ product: number; variants: number[] }> {
  await syncStockTotal(app.em(), productId);
  const [p] = await rows<{ stock_quantity: number }>(
    app.em(),
    sql`SELECT stock_quantity FROM products WHERE id = ${productId}`,
  );
  return {
    product: p?.stock_quantity ?? -1,
    variants: (await variants(productId)).map((v) => v.stock_quantity),
  };
}

/** A price change as the catalogue's writes make one: the old price is remembered with the moment. */
async function setVariantPrice(variantId: number, cents: number) {
  await rows(
    app.em(),
    sql`UPDATE product_variants SET previous_wholesale_price_cents = wholesale_price_cents,
      wholesale_price_changed_at = now(), wholesale_price_cents = ${cents} WHERE id = ${variantId}`,
  );
}

/** A request as this store, unless `key` says another (null: no credential); `T` is the body expected. */
function send<T = unknown>(
  method: string,
  path: string,
  o: { body?: unknown; key?: string | null } = {},
): Promise<Sent<T>> {
  const key = o.key === null ? undefined : (o.key ?? store.readWrite);
  return request<T>(app, method, path, { key, body: o.body });
}

/** Places an order: the created order unless the test says `ErrorBody`. */
const place = <T = CreateWholesaleOrderResponse>(body: unknown, key?: string | null) =>
  send<T>('POST', ORDERS, { body, key });

async function sequence(): Promise<{ last_value: string; is_called: boolean }> {
  const [s] = await rows<{ last_value: string; is_called: boolean }>(
    app.em(),
    sql`SELECT last_value::text AS last_value, is_called FROM order_number_seq`,
  );
  if (!s) throw new Error('order_number_seq has no row');
  return s;
}

async function jobs() {
  return rows<{ task_identifier: string; key: string | null }>(
    app.em(),
    sql`SELECT task_identifier, key FROM graphile_worker.jobs ORDER BY id`,
  );
}

async function clearJobs() {
  await rows(
    app.em(),
    sql`SELECT graphile_worker.remove_job(key) FROM graphile_worker.jobs WHERE key IS NOT NULL`,
  );
  expect(await jobs()).toEqual([]);
}

const DISPATCH_JOB = [{ task_identifier: 'dispatch_events', key: 'dispatch_events' }];

async function lastEventId(): Promise<number> {
  const [found] = await rows<{ id: number }>(
    app.em(),
    sql`SELECT COALESCE(max(id), 0)::integer AS id FROM domain_events`,
  );
  return found?.id ?? 0;
}

/** Everything a refused order must leave untouched. */
async function world() {
  const em = app.em();
  const [counts] = await rows(
    em,
    sql`SELECT (SELECT count(*)::integer FROM orders) AS orders,
        (SELECT count(*)::integer FROM order_lines) AS lines,
        (SELECT count(*)::integer FROM order_status_history) AS history,
        (SELECT count(*)::integer FROM domain_events) AS events,
        (SELECT COALESCE(max(id), 0)::integer FROM domain_events) AS last_event,
        (SELECT count(*)::integer FROM mail_outbox) AS mail`,
  );
  return {
    sequence: await sequence(),
    counts,
    variants: await rows(em, sql`SELECT id, stock_quantity FROM product_variants ORDER BY id`),
    products: await rows(
      em,
      sql`SELECT id, stock_quantity, updated_at::text AS updated_at FROM products ORDER BY id`,
    ),
    jobs: await jobs(),
  };
}

/** Sends an order that must be refused with this status and code, and checks nothing changed. */
async function refused(
  body: unknown,
  expected: { status: number; error: string; code: string; key?: string | null },
  label = '',
): Promise<Sent<ErrorBody>> {
  await clearJobs();
  const before = await world();
  const res = await place<ErrorBody>(body, expected.key);
  expect(res.status, `${label} ${JSON.stringify(res.body)}`).toBe(expected.status);
  expect(res.body, label).toMatchObject({ error: expected.error, code: expected.code });
  expect(typeof res.body.message, label).toBe('string');
  expect(res.body.request_id, label).toBe(res.headers.get('x-request-id'));
  expect(await world(), label).toEqual(before);
  return res;
}

const notFound = (code: string) => ({ status: 404, error: 'not_found', code });
const badRequest = (code: string) => ({ status: 400, error: 'bad_request', code });
const VALIDATION = badRequest('VALIDATION_FAILED');

async function expectValidation(body: unknown, path: string, label: string) {
  const res = await refused(body, VALIDATION, label);
  const paths = res.body.details?.map((d) => d.path);
  expect(paths, label).toContain(path);
}

describe('POST /api/v1/orders: a placed order', () => {
  it('answers 201 with the created order at variant wholesale prices and reserves exactly the ordered stock', async () => {
    const a = await product({ name: 'Oak Chair', sku: 'OAK-CHAIR', wholesale: 1000, stock: [7] });
    const b = await product({ name: 'Linen Throw', sku: 'THROW', wholesale: 1000, stock: [4, 6, 8] });
    const untouched = await product({ stock: [9] });
    const [a1] = await variantIds(a);
    const [, b2, b3] = await variantIds(b);
    await setVariantPrice(b2 as number, 1500);
    await clearJobs();
    const since = await lastEventId();
    const seqBefore = await sequence();

    const res = await place(
      orderBody(
        [
          { product_id: a, quantity: 2, price_cents: 1000 },
          { product_id: b, variant_id: b2, quantity: 3 },
          { product_id: b, variant_id: b3, quantity: 1, price_cents: 1000 },
        ],
        { payment: { method: 'card', transaction_id: 'txn_123', amount_cents: 7500 } },
      ),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      order: {
        id: expect.any(Number),
        order_number: expect.stringMatching(/^SL-\d+$/),
        status: 'pending',
        order_type: 'wholesale_api',
        total_cents: 2 * 1000 + 3 * 1500 + 1 * 1000,
        livemode: true,
        created_at: expect.any(String),
      },
    });
    const { order } = res.body;
    expect(new Date(order.created_at).toISOString()).toBe(order.created_at);
    expect(Math.abs(Date.now() - Date.parse(order.created_at))).toBeLessThan(60_000);

    // The number is the sequence's next value.
    const seqAfter = await sequence();
    expect(order.order_number).toBe(`SL-${seqAfter.last_value}`);
    expect(BigInt(seqAfter.last_value)).toBe(BigInt(seqBefore.last_value) + (seqBefore.is_called ? 1n : 0n));

    // Stock: each variant down by exactly its ordered quantity; product stock is the sum.
    expect(await stockOf(a)).toEqual({ product: 5, variants: [5] });
    expect(await stockOf(b)).toEqual({ product: 4 + 3 + 7, variants: [4, 3, 7] });
    expect(await stockOf(untouched)).toEqual({ product: 9, variants: [9] });

    // The full order.
    const read = await app.get<GetOrderResponse>(`${ORDERS}/${order.id}`, store.read);
    expect(read.status).toBe(200);
    expect(read.body.order).toMatchObject({
      id: order.id,
      order_number: order.order_number,
      status: 'pending',
      order_type: 'wholesale_api',
      channel: 'direct',
      currency: 'AUD',
      total_cents: 7500,
      subtotal_cents: 7500,
      items_count: 3,
      tracking_number: null,
      invoice_number: null,
      invoice_issued_at: null,
      created_at: order.created_at,
      customer: CUSTOMER,
      shipping: { ...SHIPPING, country: 'AU' },
    });
    expect(read.body.order.items).toEqual([
      {
        product_id: a,
        variant_id: a1,
        sku: 'OAK-CHAIR',
        name: 'Oak Chair',
        quantity: 2,
        price_cents: 1000,
        shipped_quantity: 0,
      },
      {
        product_id: b,
        variant_id: b2,
        sku: 'THROW-2',
        name: 'Linen Throw',
        quantity: 3,
        price_cents: 1500,
        shipped_quantity: 0,
      },
      {
        product_id: b,
        variant_id: b3,
        sku: 'THROW-3',
        name: 'Linen Throw',
        quantity: 1,
        price_cents: 1000,
        shipped_quantity: 0,
      },
    ]);

    // Payment is stored as sent.
    const [stored] = await rows(
      app.em(),
      sql`SELECT store_id, payment_method, payment_transaction_id, payment_amount_cents FROM orders WHERE id = ${order.id}`,
    );
    expect(stored).toEqual({
      store_id: store.id,
      payment_method: 'card',
      payment_transaction_id: 'txn_123',
      payment_amount_cents: 7500,
    });

    // The first status, the event and the dispatcher's job, all in the order's transaction.
    expect(
      await rows(
        app.em(),
        sql`SELECT from_status, to_status FROM order_status_history WHERE order_id = ${order.id} ORDER BY id`,
      ),
    ).toEqual([{ from_status: null, to_status: 'pending' }]);
    expect(
      await rows(
        app.em(),
        sql`SELECT store_id, event, entity_id::integer AS entity_id, data FROM domain_events
          WHERE id > ${since} AND event LIKE 'order.%' ORDER BY id`,
      ),
    ).toEqual([
      { store_id: store.id, event: 'order.created', entity_id: order.id, data: { order_id: order.id } },
    ]);
    // The dispatcher, and a stock fan-out for each product whose variants the order reserved.
    const queued = await jobs();
    expect(queued.filter((j) => j.task_identifier === 'dispatch_events')).toEqual(DISPATCH_JOB);
    expect(
      queued
        .filter((j) => j.task_identifier === 'inventory_fanout')
        .map((j) => j.key)
        .sort(),
    ).toEqual(
      [...new Set(read.body.order.items.map((i) => `inventory_fanout:shard:${i.product_id % 64}`))].sort(),
    );
  });

  it('fills optional fields: phone and address2 default to empty, prices need not be sent', async () => {
    const p = await product({ wholesale: 2500, stock: [3] });
    const { phone: _phone, ...customer } = CUSTOMER;
    const { address2: _address2, ...shipping } = SHIPPING;
    const res = await place({
      customer,
      items: [{ product_id: p, quantity: 3 }],
      shipping: { ...shipping, country: 'nz' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.total_cents).toBe(7500);
    expect(await stockOf(p)).toEqual({ product: 0, variants: [0] });
    const read = await app.get<GetOrderResponse>(`${ORDERS}/${res.body.order.id}`, store.read);
    expect(read.body.order.customer).toEqual({ ...customer, phone: '' });
    expect(read.body.order.shipping).toEqual({ ...shipping, address2: '', country: 'NZ' });
  });

  it('sums several lines of one variant and takes the whole stock; a product with images but no image_url is orderable', async () => {
    const p = await product({ imageUrl: null, images: 1, stock: [6] });
    const res = await place(
      orderBody([
        { product_id: p, quantity: 2 },
        { product_id: p, quantity: 4 },
      ]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.total_cents).toBe(6000);
    expect(await stockOf(p)).toEqual({ product: 0, variants: [0] });
  });

  it('takes the bounds: 100 lines and a quantity of 10,000', async () => {
    const many = await product({ wholesale: 1, stock: [100] });
    const hundred = await place(
      orderBody(Array.from({ length: 100 }, () => ({ product_id: many, quantity: 1 }))),
    );
    expect(hundred.status, JSON.stringify(hundred.body)).toBe(201);
    expect(hundred.body.order.total_cents).toBe(100);
    expect(await stockOf(many)).toEqual({ product: 0, variants: [0] });

    const bulk = await product({ wholesale: 3, stock: [10_000] });
    const big = await place(orderBody([{ product_id: bulk, quantity: 10_000 }]));
    expect(big.status, JSON.stringify(big.body)).toBe(201);
    expect(big.body.order.total_cents).toBe(30_000);
    expect(await stockOf(bulk)).toEqual({ product: 0, variants: [0] });
  });

  it('is the store’s own: another store cannot read it, and it is in the store’s list', async () => {
    const p = await product();
    const res = await place(orderBody([{ product_id: p, quantity: 1 }]));
    expect(res.status).toBe(201);
    const id = res.body.order.id;
    expect((await app.get(`${ORDERS}/${id}`, other.readWrite)).status).toBe(404);
    const list = await app.get<ListOrdersResponse>(`${ORDERS}?sort_by=id&limit=1`, store.read);
    expect(list.body.orders[0]).toMatchObject({ id, order_type: 'wholesale_api', items_count: 1 });
    const theirs = await app.get<ListOrdersResponse>(`${ORDERS}?limit=500`, other.read);
    expect(theirs.body.orders.map((o) => o.id)).not.toContain(id);
  });

  it('numbers orders consecutively: refused orders in between take no number', async () => {
    const p = await product({ stock: [50] });
    const inactive = await product({ active: false });
    const first = await place(orderBody([{ product_id: p, quantity: 1 }]));
    expect(first.status).toBe(201);
    const n = Number(first.body.order.order_number.slice(3));

    const refusals: [unknown, number][] = [
      [orderBody([{ product_id: 2_000_000_000, quantity: 1 }]), 404],
      [orderBody([{ product_id: inactive, quantity: 1 }]), 400],
      [orderBody([{ product_id: p, quantity: 51 }]), 400],
      [orderBody([{ product_id: p, quantity: 1, price_cents: 999 }]), 400],
      [
        orderBody([{ product_id: p, quantity: 1 }], {
          payment: { method: 'card', transaction_id: 't', amount_cents: 1 },
        }),
        400,
      ],
      [orderBody([{ product_id: p, quantity: 0 }]), 400],
    ];
    for (const [body, status] of refusals) expect((await place(body)).status).toBe(status);

    const second = await place(orderBody([{ product_id: p, quantity: 1 }]));
    expect(second.status).toBe(201);
    expect(second.body.order.order_number).toBe(`SL-${n + 1}`);
    expect(await stockOf(p)).toEqual({ product: 48, variants: [48] });
  });
});

describe('POST /api/v1/orders: refusals change nothing', () => {
  beforeEach(async () => {
    await clearJobs();
  });

  it('404 PRODUCT_NOT_FOUND for an unknown product, also when another line is fine', async () => {
    const ok = await product({ stock: [5] });
    const res = await refused(
      orderBody([{ product_id: 2_000_000_000, quantity: 1 }]),
      notFound('PRODUCT_NOT_FOUND'),
    );
    expect(res.body.message).toContain('2000000000');
    await refused(
      orderBody([
        { product_id: ok, quantity: 1 },
        { product_id: 2_000_000_001, quantity: 1 },
      ]),
      notFound('PRODUCT_NOT_FOUND'),
    );
    expect(await stockOf(ok)).toEqual({ product: 5, variants: [5] });
  });

  it("404 PRODUCT_NOT_FOUND for another store's own goods", async () => {
    const theirs = await product({ supplierId: othersOwnSupplierId, stock: [5] });
    await refused(orderBody([{ product_id: theirs, quantity: 1 }]), notFound('PRODUCT_NOT_FOUND'));
    expect(await stockOf(theirs)).toEqual({ product: 5, variants: [5] });
  });

  it('404 VARIANT_NOT_FOUND for an unknown variant or a variant of another product', async () => {
    const p = await product({ stock: [5, 5] });
    const q = await product({ stock: [5] });
    const [qv] = await variantIds(q);
    await refused(
      orderBody([{ product_id: p, variant_id: 2_000_000_000, quantity: 1 }]),
      notFound('VARIANT_NOT_FOUND'),
    );
    await refused(orderBody([{ product_id: p, variant_id: qv, quantity: 1 }]), notFound('VARIANT_NOT_FOUND'));
    // Also for a single-variant product named with a foreign variant.
    const [pv] = await variantIds(p);
    await refused(orderBody([{ product_id: q, variant_id: pv, quantity: 1 }]), notFound('VARIANT_NOT_FOUND'));
    expect(await stockOf(p)).toEqual({ product: 10, variants: [5, 5] });
    expect(await stockOf(q)).toEqual({ product: 5, variants: [5] });
  });

  it('400 VARIANT_REQUIRED for a product with several variants and no variant_id, listing the ids', async () => {
    const p = await product({ stock: [5, 5, 5] });
    const res = await refused(orderBody([{ product_id: p, quantity: 1 }]), badRequest('VARIANT_REQUIRED'));
    expect(res.body).toMatchObject({ product_id: p, variant_ids: await variantIds(p) });
  });

  it('400 PRODUCT_NOT_ORDERABLE for an inactive product', async () => {
    const p = await product({ active: false, stock: [5] });
    const res = await refused(
      orderBody([{ product_id: p, quantity: 1 }]),
      badRequest('PRODUCT_NOT_ORDERABLE'),
    );
    expect(res.body.product_id).toBe(p);
    expect(await stockOf(p)).toEqual({ product: 5, variants: [5] });
  });

  it('400 PRODUCT_NOT_ORDERABLE for a product without images, also after a fine line', async () => {
    const ok = await product({ stock: [5] });
    const bare = await product({ imageUrl: null, images: 0, stock: [5] });
    const res = await refused(
      orderBody([
        { product_id: ok, quantity: 1 },
        { product_id: bare, quantity: 1 },
      ]),
      badRequest('PRODUCT_NOT_ORDERABLE'),
    );
    expect(res.body.product_id).toBe(bare);
    expect(await stockOf(ok)).toEqual({ product: 5, variants: [5] });
  });

  it("400 PRODUCT_NOT_ORDERABLE for the store's own goods", async () => {
    const mine = await product({ supplierId: ownSupplierId, stock: [5] });
    const res = await refused(
      orderBody([{ product_id: mine, quantity: 1 }]),
      badRequest('PRODUCT_NOT_ORDERABLE'),
    );
    expect(res.body.product_id).toBe(mine);
    expect(await stockOf(mine)).toEqual({ product: 5, variants: [5] });
  });

  it('400 INSUFFICIENT_STOCK naming the short line, with nothing reserved', async () => {
    const p = await product({ stock: [3] });
    const [v] = await variantIds(p);
    const res = await refused(orderBody([{ product_id: p, quantity: 4 }]), badRequest('INSUFFICIENT_STOCK'));
    expect(res.body.lines).toEqual([{ product_id: p, variant_id: v, requested: 4, available: 3 }]);
    expect(await stockOf(p)).toEqual({ product: 3, variants: [3] });

    const empty = await product({ stock: [0] });
    const [ev] = await variantIds(empty);
    const none = await refused(
      orderBody([{ product_id: empty, quantity: 1 }]),
      badRequest('INSUFFICIENT_STOCK'),
    );
    expect(none.body.lines).toEqual([{ product_id: empty, variant_id: ev, requested: 1, available: 0 }]);
  });

  it('400 INSUFFICIENT_STOCK when two lines of one variant together exceed its stock', async () => {
    const p = await product({ stock: [5] });
    const [v] = await variantIds(p);
    const res = await refused(
      orderBody([
        { product_id: p, quantity: 3 },
        { product_id: p, quantity: 3 },
      ]),
      badRequest('INSUFFICIENT_STOCK'),
    );
    expect(res.body.lines).toEqual([{ product_id: p, variant_id: v, requested: 6, available: 5 }]);
    expect(await stockOf(p)).toEqual({ product: 5, variants: [5] });
  });

  it('400 INSUFFICIENT_STOCK when the second line is short: the first is not reserved', async () => {
    const plenty = await product({ stock: [100] });
    const scarce = await product({ stock: [1, 2] });
    const [, s2] = await variantIds(scarce);
    const res = await refused(
      orderBody([
        { product_id: plenty, quantity: 10 },
        { product_id: scarce, variant_id: s2, quantity: 5 },
      ]),
      badRequest('INSUFFICIENT_STOCK'),
    );
    expect(res.body.lines).toEqual([{ product_id: scarce, variant_id: s2, requested: 5, available: 2 }]);
    expect(await stockOf(plenty)).toEqual({ product: 100, variants: [100] });
    expect(await stockOf(scarce)).toEqual({ product: 3, variants: [1, 2] });
  });

  it('409 PRICE_CHANGED with the current price of each line sent at its price before a change', async () => {
    const p = await product({ wholesale: 1000, stock: [5] });
    const [pv] = await variantIds(p);
    await setVariantPrice(pv as number, 1100);
    const multi = await product({ wholesale: 1000, stock: [5, 5] });
    const [, m2] = await variantIds(multi);
    await setVariantPrice(m2 as number, 1500);
    const res = await refused(
      orderBody([
        { product_id: p, quantity: 1, price_cents: 1000 },
        // The product's price is not the variant's: the variant's counts.
        { product_id: multi, variant_id: m2, quantity: 1, price_cents: 1000 },
      ]),
      { status: 409, error: 'conflict', code: 'PRICE_CHANGED' },
    );
    expect(res.body.lines).toEqual([
      { product_id: p, variant_id: pv, price_cents: 1100 },
      { product_id: multi, variant_id: m2, price_cents: 1500 },
    ]);

    // A fresh line is not listed next to a stale one.
    const fresh = await refused(
      orderBody([
        { product_id: p, quantity: 1, price_cents: 1100 },
        { product_id: multi, variant_id: m2, quantity: 1, price_cents: 1000 },
      ]),
      { status: 409, error: 'conflict', code: 'PRICE_CHANGED' },
    );
    expect(fresh.body.lines).toEqual([{ product_id: multi, variant_id: m2, price_cents: 1500 }]);
    expect(await stockOf(multi)).toEqual({ product: 10, variants: [5, 5] });
  });

  it('400 PRICE_MISMATCH for a price a line never had, and 400 once the change is over 30 days old', async () => {
    const p = await product({ wholesale: 1000, stock: [5] });
    const [pv] = await variantIds(p);
    const never = await refused(orderBody([{ product_id: p, quantity: 1, price_cents: 1499 }]), {
      status: 400,
      error: 'bad_request',
      code: 'PRICE_MISMATCH',
    });
    expect(never.body.details).toEqual([
      {
        path: 'items.0.price_cents',
        message: `1499 is not the wholesale price of product ${p} (1000), nor was it recently`,
      },
    ]);
    await setVariantPrice(pv as number, 1200);
    await rows(
      app.em(),
      sql`UPDATE product_variants SET wholesale_price_changed_at = now() - interval '31 days' WHERE id = ${pv}`,
    );
    await refused(orderBody([{ product_id: p, quantity: 1, price_cents: 1000 }]), {
      status: 400,
      error: 'bad_request',
      code: 'PRICE_MISMATCH',
    });
    expect(await stockOf(p)).toEqual({ product: 5, variants: [5] });
  });

  it('400 PAYMENT_MISMATCH when payment.amount_cents differs from the total', async () => {
    const p = await product({ wholesale: 1250, stock: [5] });
    for (const amount of [2499, 2501, 0]) {
      const res = await refused(
        orderBody([{ product_id: p, quantity: 2 }], {
          payment: { method: 'card', transaction_id: 'txn_1', amount_cents: amount },
        }),
        badRequest('PAYMENT_MISMATCH'),
        `amount ${amount}`,
      );
      expect(res.body.total_cents).toBe(2500);
    }
    expect(await stockOf(p)).toEqual({ product: 5, variants: [5] });
  });

  it('400 ORDER_TOO_LARGE when the total does not fit, with nothing reserved', async () => {
    const p = await product({ wholesale: 1_000_000, stock: [10_000] });
    await refused(orderBody([{ product_id: p, quantity: 10_000 }]), badRequest('ORDER_TOO_LARGE'));
    expect(await stockOf(p)).toEqual({ product: 10_000, variants: [10_000] });
  });
});

describe('POST /api/v1/orders: validation', () => {
  let p: number;
  beforeAll(async () => {
    p = await product({ stock: [10_000] });
  });

  it('400 VALIDATION_FAILED for a bad quantity', async () => {
    const cases: [string, unknown][] = [
      ['zero', 0],
      ['negative', -1],
      ['fractional', 1.5],
      ['fractional string', '1.5'],
      ['over 10,000', 10_001],
      ['null', null],
      ['boolean', true],
    ];
    for (const [label, quantity] of cases) {
      await expectValidation(orderBody([{ product_id: p, quantity }]), 'items.0.quantity', label);
    }
    const { customer, shipping } = orderBody([]);
    await expectValidation({ customer, shipping, items: [{ product_id: p }] }, 'items.0.quantity', 'missing');
  });

  it('400 VALIDATION_FAILED for no items, more than 100, or a bad product or variant id', async () => {
    await expectValidation(orderBody([]), 'items', 'empty');
    await expectValidation(
      orderBody(Array.from({ length: 101 }, () => ({ product_id: p, quantity: 1 }))),
      'items',
      '101 items',
    );
    const { customer, shipping } = orderBody([]);
    await expectValidation({ customer, shipping }, 'items', 'no items key');
    await expectValidation(orderBody([{ product_id: 0, quantity: 1 }]), 'items.0.product_id', 'product 0');
    await expectValidation(
      orderBody([{ product_id: 'abc', quantity: 1 }]),
      'items.0.product_id',
      'product abc',
    );
    await expectValidation(
      orderBody([{ product_id: 2_147_483_648, quantity: 1 }]),
      'items.0.product_id',
      'product over int',
    );
    await expectValidation(
      orderBody([{ product_id: p, variant_id: -3, quantity: 1 }]),
      'items.0.variant_id',
      'variant',
    );
    await expectValidation(
      orderBody([{ product_id: p, quantity: 1, price_cents: -1 }]),
      'items.0.price_cents',
      'price',
    );
  });

  it('400 VALIDATION_FAILED for each missing or blank shipping field', async () => {
    for (const field of ['address', 'city', 'state', 'zip', 'country'] as const) {
      const { [field]: _gone, ...rest } = SHIPPING;
      await expectValidation(
        { ...orderBody([{ product_id: p, quantity: 1 }]), shipping: rest },
        `shipping.${field}`,
        `no ${field}`,
      );
      await expectValidation(
        { ...orderBody([{ product_id: p, quantity: 1 }]), shipping: { ...SHIPPING, [field]: '   ' } },
        `shipping.${field}`,
        `blank ${field}`,
      );
    }
    const { shipping: _s, ...noShipping } = orderBody([{ product_id: p, quantity: 1 }]);
    await expectValidation(noShipping, 'shipping', 'no shipping');
  });

  it('400 VALIDATION_FAILED for a country that is not two letters', async () => {
    for (const country of ['AUS', 'A', 'A1', '']) {
      await expectValidation(
        { ...orderBody([{ product_id: p, quantity: 1 }]), shipping: { ...SHIPPING, country } },
        'shipping.country',
        `country ${country}`,
      );
    }
  });

  it('400 VALIDATION_FAILED for a bad customer', async () => {
    for (const email of ['not-an-email', 'bea@', '', 42]) {
      await expectValidation(
        { ...orderBody([{ product_id: p, quantity: 1 }]), customer: { ...CUSTOMER, email } },
        'customer.email',
        `email ${email}`,
      );
    }
    const { name: _n, ...noName } = CUSTOMER;
    await expectValidation(
      { ...orderBody([{ product_id: p, quantity: 1 }]), customer: noName },
      'customer.name',
      'no name',
    );
    const { customer: _c, ...noCustomer } = orderBody([{ product_id: p, quantity: 1 }]);
    await expectValidation(noCustomer, 'customer', 'no customer');
  });

  it('400 VALIDATION_FAILED for a bad payment', async () => {
    const body = (payment: unknown) => orderBody([{ product_id: p, quantity: 1 }], { payment });
    await expectValidation(body({ method: 'card', amount_cents: 1000 }), 'payment.transaction_id', 'no txn');
    await expectValidation(
      body({ method: 'card', transaction_id: 't', amount_cents: -1 }),
      'payment.amount_cents',
      'negative amount',
    );
    await expectValidation(
      body({ method: '', transaction_id: 't', amount_cents: 1000 }),
      'payment.method',
      'blank method',
    );
  });

  it('400 VALIDATION_FAILED for unknown keys in the body, a line or the payment', async () => {
    await expectValidation(
      { ...orderBody([{ product_id: p, quantity: 1 }]), coupon: 'FREE' },
      'coupon',
      'top level',
    );
    await expectValidation(
      orderBody([{ product_id: p, quantity: 1, sku: 'X' } as Line]),
      'items.0.sku',
      'line',
    );
    await expectValidation(
      orderBody([{ product_id: p, quantity: 1 }], {
        payment: { method: 'card', transaction_id: 't', amount_cents: 1000, currency: 'AUD' },
      }),
      'payment.currency',
      'payment',
    );
  });

  // docs/decisions.md: "All bodies are strict", nested objects included.
  it('400 VALIDATION_FAILED for unknown keys in customer or shipping', async () => {
    await expectValidation(
      { ...orderBody([{ product_id: p, quantity: 1 }]), customer: { ...CUSTOMER, company: 'Acme' } },
      'customer.company',
      'customer',
    );
    await expectValidation(
      { ...orderBody([{ product_id: p, quantity: 1 }]), shipping: { ...SHIPPING, postcode: '2000' } },
      'shipping.postcode',
      'shipping',
    );
  });

  it('400 for a body that is not a JSON object', async () => {
    for (const body of ['[]', '"order"', 'null']) {
      const res = await refused(body, VALIDATION, body);
      expect(res.body.details?.length).toBeGreaterThan(0);
    }
  });
});

describe('POST /api/v1/orders: credentials', () => {
  it('401 without a credential or with an invalid one', async () => {
    const p = await product({ stock: [5] });
    const body = orderBody([{ product_id: p, quantity: 1 }]);
    const res = await refused(body, {
      status: 401,
      error: 'unauthorized',
      code: 'INVALID_CREDENTIAL',
      key: null,
    });
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
    );
    await refused(body, {
      status: 401,
      error: 'unauthorized',
      code: 'INVALID_CREDENTIAL',
      key: `${store.readWrite}x`,
    });
    expect(await stockOf(p)).toEqual({ product: 5, variants: [5] });
  });

  it('403 INSUFFICIENT_SCOPE for a read key, with nothing written', async () => {
    const p = await product({ stock: [5] });
    const res = await refused(orderBody([{ product_id: p, quantity: 1 }]), {
      status: 403,
      error: 'forbidden',
      code: 'INSUFFICIENT_SCOPE',
      key: store.read,
    });
    expect(res.body.required_scope).toBe('read_write');
    expect(await stockOf(p)).toEqual({ product: 5, variants: [5] });
  });

  it('refuses an app token with APP_TOKEN_NOT_ALLOWED, even with write_orders, with nothing written', async () => {
    const p = await product({ stock: [5] });
    const actor: Actor = {
      storeId: store.id,
      kind: 'app',
      scope: 'read_write',
      appScopes: new Set(['write_orders', 'read_orders']),
      credentialId: 1,
      appId: 1,
      canReadCustomers: false,
      livemode: true,
    };
    const context = (): Context => testContext(app, { actor, requestId: 'req_wholesale_test' });
    // The same actor may read orders (read_orders): the refusal is about creating them.
    const listed = await createCaller(context()).orders.list({});
    expect(listed.pagination.total_count).toBeGreaterThanOrEqual(0);

    await clearJobs();
    const before = await world();
    const err = await failure(
      createCaller(context()).orders.create({
        customer: CUSTOMER,
        items: [{ product_id: p, quantity: 1 }],
        shipping: SHIPPING,
      }),
    );
    expect(err.appCode).toBe('APP_TOKEN_NOT_ALLOWED');
    expect(err.category).toBe('forbidden');
    expect(err.status).toBe(403);
    expect(await world()).toEqual(before);

    // And an API key of the same store can place the same order.
    expect((await place(orderBody([{ product_id: p, quantity: 1 }]))).status).toBe(201);
  });
});

describe('POST /api/v1/orders: concurrency', () => {
  it('50 concurrent orders for 10 units sell exactly 10', async () => {
    const p = await product({ stock: [10] });
    const [v] = await variantIds(p);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => place<unknown>(orderBody([{ product_id: p, quantity: 1 }]))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 400)).toHaveLength(40);
    for (const r of results.filter((x) => isStatus<ErrorBody>(x, 400))) {
      expect(r.body.code).toBe('INSUFFICIENT_STOCK');
      expect(r.body.lines).toEqual([{ product_id: p, variant_id: v, requested: 1, available: 0 }]);
    }
    expect(await stockOf(p)).toEqual({ product: 0, variants: [0] });

    const created = results
      .filter((r) => isStatus<CreateWholesaleOrderResponse>(r, 201))
      .map((r) => r.body.order);
    expect(new Set(created.map((o) => o.order_number)).size).toBe(10);
    const [sold] = await rows<{ orders: number; units: number; ids: number[] }>(
      app.em(),
      sql`SELECT count(DISTINCT order_id)::integer AS orders, COALESCE(sum(quantity), 0)::integer AS units,
          array_agg(order_id ORDER BY order_id) AS ids
        FROM order_lines WHERE variant_id = ${v}`,
    );
    expect(sold).toMatchObject({ orders: 10, units: 10 });
    expect(sold?.ids).toEqual(created.map((o) => o.id).sort((a, b) => a - b));
  });

  it('a mixed race of multi-line orders locking variants in different orders never deadlocks or oversells', async () => {
    const a = await product({ stock: [15] });
    const b = await product({ stock: [15] });
    const c = await product({ stock: [10, 10] });
    const [va] = (await variantIds(a)) as [number];
    const [vb] = (await variantIds(b)) as [number];
    const [vc1, vc2] = (await variantIds(c)) as [number, number];
    const initial = new Map([
      [va, 15],
      [vb, 15],
      [vc1, 10],
      [vc2, 10],
    ]);
    const productOf = new Map([
      [va, a],
      [vb, b],
      [vc1, c],
      [vc2, c],
    ]);
    const line = (variant: number, quantity: number) => ({
      product_id: productOf.get(variant) as number,
      variant_id: variant,
      quantity,
    });
    // The same variants named in opposite orders, so a lock taken in request order would deadlock.
    const shapes = [
      [line(va, 1), line(vb, 1)],
      [line(vb, 1), line(va, 1)],
      [line(vc2, 2), line(va, 1)],
      [line(va, 1), line(vc1, 1), line(vb, 2)],
      [line(vb, 1), line(vc1, 1)],
      [line(vc2, 1), line(vb, 1), line(vc1, 1), line(va, 1)],
    ];
    const bodies = Array.from(
      { length: 60 },
      (_, i) => shapes[i % shapes.length] as ReturnType<typeof line>[],
    );
    const results = await Promise.all(bodies.map((items) => place<unknown>(orderBody(items))));

    for (const r of results) {
      expect([201, 400], JSON.stringify(r.body)).toContain(r.status);
      if (isStatus<ErrorBody>(r, 400)) expect(r.body.code).toBe('INSUFFICIENT_STOCK');
    }
    const ok = results.filter((r) => isStatus<CreateWholesaleOrderResponse>(r, 201));
    expect(ok.length).toBeGreaterThan(0);
    // 50 orders want a unit of the 15 of variant A.
    expect(results.length - ok.length).toBeGreaterThanOrEqual(35);

    // What the answers say was sold is what the order lines hold and what left stock, variant by variant.
    const sold = new Map([...initial.keys()].map((v) => [v, 0]));
    results.forEach((r, i) => {
      if (r.status !== 201) return;
      for (const l of bodies[i] ?? []) sold.set(l.variant_id, (sold.get(l.variant_id) ?? 0) + l.quantity);
    });
    const stored = await rows<{ variant_id: number; units: number }>(
      app.em(),
      sql`SELECT variant_id, sum(quantity)::integer AS units FROM order_lines
        WHERE variant_id = ANY(${[...initial.keys()]}::integer[]) GROUP BY variant_id`,
    );
    expect(new Map([...sold].filter(([, n]) => n > 0))).toEqual(
      new Map(stored.map((s) => [s.variant_id, s.units])),
    );
    const [orders] = await rows<{ n: number; ids: number[] }>(
      app.em(),
      sql`SELECT count(DISTINCT order_id)::integer AS n, array_agg(DISTINCT order_id ORDER BY order_id) AS ids
        FROM order_lines WHERE variant_id = ANY(${[...initial.keys()]}::integer[])`,
    );
    expect(orders?.n).toBe(ok.length);
    expect(orders?.ids).toEqual(ok.map((r) => r.body.order.id).sort((x, y) => x - y));
    for (const [v, start] of initial) {
      const [left] = await rows<{ stock_quantity: number }>(
        app.em(),
        sql`SELECT stock_quantity FROM product_variants WHERE id = ${v}`,
      );
      expect(left?.stock_quantity, `variant ${v}`).toBe(start - (sold.get(v) ?? 0));
      expect(left?.stock_quantity, `variant ${v}`).toBeGreaterThanOrEqual(0);
    }
    // Single-variant products: the product's stock follows its variant. (Several variants of one
    // product under concurrent orders: see the next test.)
    expect(await stockOf(a)).toEqual({
      product: 15 - (sold.get(va) ?? 0),
      variants: [15 - (sold.get(va) ?? 0)],
    });
    expect(await stockOf(b)).toEqual({
      product: 15 - (sold.get(vb) ?? 0),
      variants: [15 - (sold.get(vb) ?? 0)],
    });
  });

  // Two transactions changing different variants of one product: the second waits on the product
  // row; a total recomputed from its snapshot would overwrite the first's decrement (the product
  // trigger applies deltas instead; see Migration20261122030000_stock_deltas).
  it('keeps product stock the sum of its variants when concurrent orders take different variants', async () => {
    const p = await product({ stock: [5, 5] });
    const [v1, v2] = (await variantIds(p)) as [number, number];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reserved: () => void = () => {};
    const firstReserved = new Promise<void>((resolve) => {
      reserved = resolve;
    });
    // Another order, mid-transaction: it has reserved one unit of variant 1.
    const first = app.em().transactional(async (tx) => {
      await reserveStock(tx, [{ variantId: v1, productId: p, quantity: 1 }]);
      reserved();
      await gate;
    });
    await firstReserved;
    const second = place(orderBody([{ product_id: p, variant_id: v2, quantity: 2 }]));
    // Wait until the HTTP order waits on a lock the first holds (the product's waiting fan-out).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [w] = await rows<{ n: number }>(
        app.em(),
        sql`SELECT count(*)::integer AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if ((w?.n ?? 0) > 0) break;
      if (Date.now() > deadline) throw new Error('the second order never waited on the first');
      await new Promise((r) => setTimeout(r, 20));
    }
    release();
    await first;
    expect((await second).status).toBe(201);
    const s = await stockOf(p);
    expect(s.variants).toEqual([4, 3]);
    expect(s.product).toBe(7);
  });

  it('the total the fan-out job writes ends equal to the variants, however orders and jobs interleave', async () => {
    const p = await product({ stock: [50, 50, 50, 50] });
    const ids = await variantIds(p);
    // Each lane places an order, then runs the job's step for it, as the worker would after the commit.
    const lanes = Array.from({ length: 12 }, async (_, i) => {
      const placed = await place(
        orderBody([{ product_id: p, variant_id: ids[i % 4], quantity: 1 + (i % 3) }]),
      );
      expect(placed.status).toBe(201);
      await syncStockTotal(app.em(), p);
    });
    await Promise.all(lanes);
    const [stored] = await rows<{ stock_quantity: number }>(
      app.em(),
      sql`SELECT stock_quantity FROM products WHERE id = ${p}`,
    );
    const left = (await variants(p)).map((v) => v.stock_quantity);
    expect(left.reduce((n, q) => n + q, 0)).toBe(200 - 24);
    expect(stored?.stock_quantity).toBe(200 - 24);
  });
});
