import type { JobHelpers, Task } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskList } from '../../jobs/tasks.ts';
import { createLogger } from '../../server/logger.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { syncStockTotal } from '../../src/inventory/stock-total.ts';
import { advanceOrder } from '../../src/orders/advance-order.ts';
import { createCaller } from '../../src/router.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp, testContext } from '../helpers/app.ts';
import { type CliRun, runCli } from '../helpers/cli.ts';
import { failure } from '../helpers/errors.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * Storefront orders through their lifecycle: the state machine, its events and history, stock
 * reservation and release, invoice numbering, and the operator CLI.
 */

const OPERATOR_TOKEN = 'op_lifecycle_token_0123456789abcdefghijkl';
const _log = createLogger('silent');

type Status = 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
const STATUSES: Status[] = ['pending', 'processing', 'fulfilled', 'shipped', 'delivered', 'cancelled'];
/** The path from pending to each status. */
const PATH: Record<Status, Status[]> = {
  pending: [],
  processing: ['processing'],
  fulfilled: ['processing', 'fulfilled'],
  shipped: ['processing', 'fulfilled', 'shipped'],
  delivered: ['processing', 'fulfilled', 'shipped', 'delivered'],
  cancelled: ['cancelled'],
};
/** The only moves the contract allows. */
const ALLOWED = new Set([
  'pending>processing',
  'processing>fulfilled',
  'fulfilled>shipped',
  'shipped>delivered',
  'pending>cancelled',
  'processing>cancelled',
  'fulfilled>cancelled',
]);
const EVENT_OF: Record<Exclude<Status, 'pending'>, string[]> = {
  processing: ['order.updated'],
  fulfilled: ['order.fulfilled'],
  shipped: ['order.shipped', 'invoice.issued'],
  delivered: ['order.completed'],
  cancelled: ['order.cancelled'],
};

const BUYER = { email: 'buyer@example.com', name: 'Bea Buyer', phone: '0400 000 000' };
const SHIPPING = {
  address: '1 Harbour Street',
  address2: '',
  city: 'Sydney',
  state: 'NSW',
  zip: '2000',
  country: 'AU',
};

/** The operator's internal procedures on the given app, a fresh context per call. */
function internalOf(target: TestApp) {
  return createCaller(
    testContext(target, {
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      operatorToken: OPERATOR_TOKEN,
      requestId: 'req_lifecycle',
    }),
  ).internal;
}

function period(): string {
  const d = new Date();
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}
const invoiceNo = (n: number) => `INV-${period()}-${String(n).padStart(6, '0')}`;

/** A catalogue product with one variant per stock entry, listed in the given store. */
async function listedProduct(
  target: TestApp,
  supplierId: number,
  storeId: number,
  o: { stock?: number[]; retail?: number; name?: string; purchaseMode?: 'buy_now' | 'enquiry' } = {},
) {
  const fx = fixtures(target.em());
  const productId = await fx.product({
    supplierId,
    stock: o.stock ?? [100],
    retail: o.retail ?? 2500,
    name: o.name,
    purchaseMode: o.purchaseMode,
  });
  await fx.listing(storeId, productId);
  const variants = await rows<{ id: number }>(
    target.em(),
    sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY position, id`,
  );
  return { productId, variantIds: variants.map((v) => v.id) };
}

async function stockOf(target: TestApp, variantIds: number[]): Promise<number[]> {
  const found = await rows<{ id: number; stock_quantity: number }>(
    target.em(),
    sql`SELECT id, stock_quantity FROM product_variants WHERE id = ANY(${variantIds}::integer[])`,
  );
  return variantIds.map((id) => found.find((v) => v.id === id)?.stock_quantity ?? -1);
}

/** The product's total as the stock fan-out job leaves it (the worker runs it after each change). */
async function productStock(target: TestApp, productId: number): Promise<number | undefined> {
  await syncStockTotal(target.em(), productId);
  const [row] = await rows<{ stock_quantity: number }>(
    target.em(),
    sql`SELECT stock_quantity FROM products WHERE id = ${productId}`,
  );
  return row?.stock_quantity;
}

interface OrderRow {
  status: Status;
  tracking_number: string | null;
  invoice_number: string | null;
  invoice_issued_at: string | null;
  updated_at: string;
  cancel_reason: string | null;
  cancelled_at: string | null;
  channel: string;
  order_type: string;
  total_cents: number;
}

async function orderRow(target: TestApp, orderId: number): Promise<OrderRow> {
  const [row] = await rows<OrderRow>(
    target.em(),
    sql`SELECT status, tracking_number, invoice_number, invoice_issued_at::text AS invoice_issued_at,
        updated_at::text AS updated_at, cancel_reason, cancelled_at::text AS cancelled_at, channel, order_type,
        total_cents
      FROM orders WHERE id = ${orderId}`,
  );
  if (!row) throw new Error(`no order ${orderId}`);
  return row;
}

async function eventsOf(target: TestApp, orderId: number) {
  return rows<{ event: string; store_id: number; data: unknown }>(
    target.em(),
    sql`SELECT event, store_id, data FROM domain_events
      WHERE entity_id = ${orderId} AND (event LIKE 'order.%' OR event LIKE 'invoice.%') ORDER BY id`,
  );
}

async function historyOf(target: TestApp, orderId: number) {
  return (
    await rows<{ from_status: string | null; to_status: string; note: string | null }>(
      target.em(),
      sql`SELECT from_status, to_status, note FROM order_status_history WHERE order_id = ${orderId} ORDER BY id`,
    )
  ).map((h) => [h.from_status, h.to_status]);
}

async function linesOf(target: TestApp, orderId: number) {
  return rows<{ variant_id: number; quantity: number; shipped_quantity: number }>(
    target.em(),
    sql`SELECT variant_id, quantity, shipped_quantity FROM order_lines WHERE order_id = ${orderId} ORDER BY id`,
  );
}

async function count(target: TestApp, statement: ReturnType<typeof sql<{ n: number }>>) {
  const [row] = await rows<{ n: number }>(target.em(), statement);
  return row?.n ?? -1;
}

/** Everything a refused move must leave exactly as it was. */
async function snapshot(target: TestApp, orderId: number, variantIds: number[]) {
  return {
    order: await orderRow(target, orderId),
    lines: await linesOf(target, orderId),
    events: await eventsOf(target, orderId),
    history: await historyOf(target, orderId),
    stock: await stockOf(target, variantIds),
    mail: await count(
      target,
      sql`SELECT count(*)::integer AS n FROM mail_outbox WHERE order_id = ${orderId}`,
    ),
    counter: await count(
      target,
      sql`SELECT COALESCE(sum(last_value), 0)::integer AS n FROM invoice_counters`,
    ),
  };
}

let app: TestApp;
let storeA: Awaited<ReturnType<TestApp['createStore']>>;
let supplierId: number;
let main: { productId: number; variantIds: number[] };

const internal = () => internalOf(app);

async function checkout(
  storeId: number,
  items: { product_id: number; variant_id?: number; quantity: number }[],
  target: TestApp = app,
) {
  return internalOf(target).orders.checkoutStorefront({
    storeId,
    channel: 'direct',
    customer: BUYER,
    shipping: SHIPPING,
    items,
  });
}

/** A fresh order of `main` (2 units) moved along the path to `status`. */
async function orderAt(status: Status, quantity = 2): Promise<number> {
  const order = await checkout(storeA.id, [{ product_id: main.productId, quantity }]);
  for (const step of PATH[status]) {
    await internal().orders.advance({
      orderId: order.id,
      status: step,
      tracking: step === 'shipped' ? `TRK-${order.id}` : undefined,
    });
  }
  return order.id;
}

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN });
  storeA = await app.createStore('Lifecycle Store');
  supplierId = await fixtures(app.em()).supplier();
  main = await listedProduct(app, supplierId, storeA.id, { stock: [100_000] });
});
afterAll(() => app.close());

describe('checkout', () => {
  it('creates a pending storefront order at the listing price, reserving stock, with order.created', async () => {
    const p = await listedProduct(app, supplierId, storeA.id, { stock: [10], retail: 1999 });
    const order = await internal().orders.checkoutStorefront({
      storeId: storeA.id,
      channel: 'google',
      customer: BUYER,
      shipping: SHIPPING,
      items: [{ product_id: p.productId, quantity: 3 }],
    });
    expect(order).toMatchObject({
      id: expect.any(Number),
      order_number: expect.stringMatching(/^SL-\d+$/),
      status: 'pending',
      order_type: 'storefront',
      total_cents: 3 * 1999,
    });
    expect(await stockOf(app, p.variantIds)).toEqual([7]);
    expect(await productStock(app, p.productId)).toBe(7);
    const row = await orderRow(app, order.id);
    expect(row).toMatchObject({ status: 'pending', channel: 'google', order_type: 'storefront' });
    expect(row.invoice_number).toBeNull();
    expect(await linesOf(app, order.id)).toEqual([
      { variant_id: p.variantIds[0], quantity: 3, shipped_quantity: 0 },
    ]);
    expect((await eventsOf(app, order.id)).map((e) => e.event)).toEqual(['order.created']);
    expect(await historyOf(app, order.id)).toEqual([[null, 'pending']]);
  });

  it('reserves the named variant of a product with several', async () => {
    const p = await listedProduct(app, supplierId, storeA.id, { stock: [5, 6, 7] });
    await checkout(storeA.id, [{ product_id: p.productId, variant_id: p.variantIds[1], quantity: 4 }]);
    expect(await stockOf(app, p.variantIds)).toEqual([5, 2, 7]);
    expect(await productStock(app, p.productId)).toBe(14);
  });

  describe('refusals reserve nothing and create nothing', () => {
    async function refused(
      items: { product_id: number; quantity: number; variant_id?: number }[],
      watch: number[],
      appCode: string,
    ) {
      const before = {
        stock: await stockOf(app, watch),
        orders: await count(app, sql`SELECT count(*)::integer AS n FROM orders`),
        lines: await count(app, sql`SELECT count(*)::integer AS n FROM order_lines`),
        events: await count(app, sql`SELECT count(*)::integer AS n FROM domain_events`),
        seq: await count(app, sql`SELECT last_value::integer AS n FROM order_number_seq`),
      };
      const err = await failure(checkout(storeA.id, items));
      expect(err.category).toBe('bad_request');
      expect(err.appCode).toBe(appCode);
      expect(shapeError(err).status).toBe(400);
      expect({
        stock: await stockOf(app, watch),
        orders: await count(app, sql`SELECT count(*)::integer AS n FROM orders`),
        lines: await count(app, sql`SELECT count(*)::integer AS n FROM order_lines`),
        events: await count(app, sql`SELECT count(*)::integer AS n FROM domain_events`),
        seq: await count(app, sql`SELECT last_value::integer AS n FROM order_number_seq`),
      }).toEqual(before);
      return err;
    }

    it('PRODUCT_NOT_FOR_SALE for a product the store does not list, alongside a good line', async () => {
      const good = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
      const unlisted = await fixtures(app.em()).product({ supplierId, stock: [10] });
      const err = await refused(
        [
          { product_id: good.productId, quantity: 1 },
          { product_id: unlisted, quantity: 1 },
        ],
        good.variantIds,
        'PRODUCT_NOT_FOR_SALE',
      );
      expect(err.extra).toMatchObject({ product_id: unlisted });
      expect(await stockOf(app, good.variantIds)).toEqual([10]);
    });

    it('PRODUCT_NOT_FOR_SALE for a listing the store removed', async () => {
      const removed = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
      await rows(
        app.em(),
        sql`UPDATE listings SET deleted_at = now() WHERE store_id = ${storeA.id} AND product_id = ${removed.productId}`,
      );
      await refused(
        [{ product_id: removed.productId, quantity: 1 }],
        removed.variantIds,
        'PRODUCT_NOT_FOR_SALE',
      );
    });

    it('PRODUCT_NOT_FOR_SALE for an enquiry-mode product, and for a listing switched to enquiry', async () => {
      const good = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
      const quoteOnly = await listedProduct(app, supplierId, storeA.id, {
        stock: [10],
        purchaseMode: 'enquiry',
      });
      await refused(
        [
          { product_id: good.productId, quantity: 2 },
          { product_id: quoteOnly.productId, quantity: 1 },
        ],
        [...good.variantIds, ...quoteOnly.variantIds],
        'PRODUCT_NOT_FOR_SALE',
      );
      const switched = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
      await rows(
        app.em(),
        sql`UPDATE listings SET purchase_mode = 'enquiry' WHERE store_id = ${storeA.id} AND product_id = ${switched.productId}`,
      );
      await refused(
        [{ product_id: switched.productId, quantity: 1 }],
        switched.variantIds,
        'PRODUCT_NOT_FOR_SALE',
      );
    });

    it('PRODUCT_NOT_FOR_SALE for a listed product the catalogue switched off', async () => {
      const off = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
      await rows(app.em(), sql`UPDATE products SET active = false WHERE id = ${off.productId}`);
      await refused([{ product_id: off.productId, quantity: 1 }], off.variantIds, 'PRODUCT_NOT_FOR_SALE');
    });

    it('PRODUCT_NOT_FOR_SALE for a product another store lists but this one does not', async () => {
      const other = await app.createStore('Other Lister');
      const theirs = await listedProduct(app, supplierId, other.id, { stock: [10] });
      await refused(
        [{ product_id: theirs.productId, quantity: 1 }],
        theirs.variantIds,
        'PRODUCT_NOT_FOR_SALE',
      );
    });

    it('INSUFFICIENT_STOCK when one line is short: the other line keeps its stock', async () => {
      const plenty = await listedProduct(app, supplierId, storeA.id, { stock: [50] });
      const scarce = await listedProduct(app, supplierId, storeA.id, { stock: [2] });
      const err = await refused(
        [
          { product_id: plenty.productId, quantity: 5 },
          { product_id: scarce.productId, quantity: 3 },
        ],
        [...plenty.variantIds, ...scarce.variantIds],
        'INSUFFICIENT_STOCK',
      );
      expect(err.extra).toEqual({
        lines: [
          { product_id: scarce.productId, variant_id: scarce.variantIds[0], requested: 3, available: 2 },
        ],
      });
      expect(await stockOf(app, [...plenty.variantIds, ...scarce.variantIds])).toEqual([50, 2]);
    });

    it('INSUFFICIENT_STOCK when two lines of the same variant together exceed it', async () => {
      const p = await listedProduct(app, supplierId, storeA.id, { stock: [4] });
      await refused(
        [
          { product_id: p.productId, quantity: 3 },
          { product_id: p.productId, quantity: 2 },
        ],
        p.variantIds,
        'INSUFFICIENT_STOCK',
      );
      // Exactly the stock is fine, and leaves none.
      await checkout(storeA.id, [{ product_id: p.productId, quantity: 4 }]);
      expect(await stockOf(app, p.variantIds)).toEqual([0]);
      await refused([{ product_id: p.productId, quantity: 1 }], p.variantIds, 'INSUFFICIENT_STOCK');
    });

    it('the next good order takes the next order number after refusals', async () => {
      const p = await listedProduct(app, supplierId, storeA.id, { stock: [1] });
      const first = await checkout(storeA.id, [{ product_id: main.productId, quantity: 1 }]);
      await refused([{ product_id: p.productId, quantity: 2 }], p.variantIds, 'INSUFFICIENT_STOCK');
      const second = await checkout(storeA.id, [{ product_id: main.productId, quantity: 1 }]);
      expect(Number(second.order_number.slice(3))).toBe(Number(first.order_number.slice(3)) + 1);
    });
  });
});

describe('state machine', () => {
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const key = `${from}>${to}`;
      const allowed = ALLOWED.has(key);
      it(`${from} → ${to}: ${allowed ? 'moves' : 'INVALID_TRANSITION, nothing changed'}`, async () => {
        const orderId = await orderAt(from);
        const before = await snapshot(app, orderId, main.variantIds);
        const call = internal().orders.advance({
          orderId,
          status: to,
          tracking: to === 'shipped' ? `TRK-NEW-${orderId}` : undefined,
        });
        if (!allowed) {
          const err = await failure(call);
          expect(err.category).toBe('conflict');
          expect(err.appCode).toBe('INVALID_TRANSITION');
          expect(err.extra).toEqual({ status: from });
          expect(shapeError(err)).toMatchObject({
            status: 409,
            body: { error: 'conflict', code: 'INVALID_TRANSITION', status: from },
          });
          expect(err.message).toContain(from);
          expect(err.message).toContain(to);
          expect(await snapshot(app, orderId, main.variantIds)).toEqual(before);
          return;
        }
        const result = await call;
        expect(result).toMatchObject({ id: orderId, status: to });
        const after = await snapshot(app, orderId, main.variantIds);
        expect(after.order.status).toBe(to);
        expect(after.history).toEqual([...before.history, [from, to]]);
        expect(after.events.map((e) => e.event)).toEqual([
          ...before.events.map((e) => e.event),
          ...EVENT_OF[to as Exclude<Status, 'pending'>],
        ]);
        expect(after.mail).toBe(before.mail + (to === 'shipped' ? 1 : 0));
        expect(after.counter).toBe(before.counter + (to === 'shipped' ? 1 : 0));
        expect(after.stock).toEqual(to === 'cancelled' ? [(before.stock[0] ?? 0) + 2] : before.stock);
      });
    }
  }

  it('walks one step at a time to delivered, each move recorded with its event', async () => {
    const orderId = await orderAt('pending');
    const steps: [Status, string | undefined][] = [
      ['processing', undefined],
      ['fulfilled', undefined],
      ['shipped', 'TRK-WALK'],
      ['delivered', undefined],
    ];
    let answer: Awaited<ReturnType<ReturnType<typeof internal>['orders']['advance']>> | undefined;
    for (const [status, tracking] of steps) {
      answer = await internal().orders.advance({ orderId, status, tracking, note: `to ${status}` });
      expect(answer.status).toBe(status);
      expect((await orderRow(app, orderId)).status).toBe(status);
    }
    // The last answer says what the delivered order holds: the tracking and invoice of its shipping.
    expect(answer).toMatchObject({
      tracking_number: 'TRK-WALK',
      invoice_number: expect.stringMatching(/^INV-/),
    });
    const history = await rows<{ from_status: string | null; to_status: string; note: string | null }>(
      app.em(),
      sql`SELECT from_status, to_status, note FROM order_status_history WHERE order_id = ${orderId} ORDER BY id`,
    );
    expect(history).toEqual([
      { from_status: null, to_status: 'pending', note: null },
      { from_status: 'pending', to_status: 'processing', note: 'to processing' },
      { from_status: 'processing', to_status: 'fulfilled', note: 'to fulfilled' },
      { from_status: 'fulfilled', to_status: 'shipped', note: 'to shipped' },
      { from_status: 'shipped', to_status: 'delivered', note: 'to delivered' },
    ]);
    const events = await eventsOf(app, orderId);
    expect(events.map((e) => e.event)).toEqual([
      'order.created',
      'order.updated',
      'order.fulfilled',
      'order.shipped',
      'invoice.issued',
      'order.completed',
    ]);
    for (const e of events) {
      expect(e.store_id).toBe(storeA.id);
      expect(e.data).toEqual({ order_id: orderId });
    }
    const row = await orderRow(app, orderId);
    expect(row.tracking_number).toBe('TRK-WALK');
    expect(row.invoice_number).toMatch(/^INV-\d{6}-\d{6}$/);
  });

  it('cancelling records the reason and cancelled_at; a cancelled order stays cancelled', async () => {
    const orderId = await orderAt('processing');
    await internal().orders.advance({ orderId, status: 'cancelled' });
    const row = await orderRow(app, orderId);
    expect(row).toMatchObject({ status: 'cancelled', cancel_reason: 'merchant', invoice_number: null });
    expect(row.cancelled_at).not.toBeNull();
    for (const to of STATUSES) {
      const err = await failure(internal().orders.advance({ orderId, status: to, tracking: 'T' }));
      expect(err.appCode).toBe('INVALID_TRANSITION');
    }
    expect((await eventsOf(app, orderId)).map((e) => e.event)).toEqual([
      'order.created',
      'order.updated',
      'order.cancelled',
    ]);
  });

  it('an unknown order is 404 ORDER_NOT_FOUND', async () => {
    const err = await failure(internal().orders.advance({ orderId: 2_000_000_000, status: 'processing' }));
    expect(err.category).toBe('not_found');
    expect(err.appCode).toBe('ORDER_NOT_FOUND');
  });
});

describe('tracking', () => {
  it('shipping without a tracking number is 400 TRACKING_REQUIRED and changes nothing', async () => {
    const orderId = await orderAt('fulfilled');
    const before = await snapshot(app, orderId, main.variantIds);
    const err = await failure(internal().orders.advance({ orderId, status: 'shipped' }));
    expect(err.category).toBe('bad_request');
    expect(err.appCode).toBe('TRACKING_REQUIRED');
    expect(shapeError(err).status).toBe(400);
    // Whitespace is no tracking number either (straight to the service: the procedure trims and refuses it).
    const blank = await failure(
      advanceOrder({ em: app.em() }, { orderId, status: 'shipped', tracking: '   ' }),
    );
    expect(blank.appCode).toBe('TRACKING_REQUIRED');
    expect(await snapshot(app, orderId, main.variantIds)).toEqual(before);
    // It then ships with one.
    await internal().orders.advance({ orderId, status: 'shipped', tracking: 'TRK-LATE' });
    expect(await orderRow(app, orderId)).toMatchObject({ status: 'shipped', tracking_number: 'TRK-LATE' });
  });

  it('a tracking number already on the order is enough to ship', async () => {
    const orderId = await orderAt('processing');
    await internal().orders.advance({ orderId, status: 'fulfilled', tracking: 'TRK-EARLY' });
    expect((await orderRow(app, orderId)).tracking_number).toBe('TRK-EARLY');
    const shipped = await internal().orders.advance({ orderId, status: 'shipped' });
    expect(shipped).toMatchObject({ status: 'shipped', tracking_number: 'TRK-EARLY' });
    expect(await orderRow(app, orderId)).toMatchObject({ status: 'shipped', tracking_number: 'TRK-EARLY' });
    // Delivery keeps it.
    await internal().orders.advance({ orderId, status: 'delivered' });
    expect((await orderRow(app, orderId)).tracking_number).toBe('TRK-EARLY');
  });
});

describe('stock through the lifecycle', () => {
  for (const from of ['pending', 'processing', 'fulfilled'] as const) {
    it(`cancelling a ${from} order returns every unit`, async () => {
      const p = await listedProduct(app, supplierId, storeA.id, { stock: [10, 10] });
      const order = await checkout(storeA.id, [
        { product_id: p.productId, variant_id: p.variantIds[0], quantity: 3 },
        { product_id: p.productId, variant_id: p.variantIds[1], quantity: 4 },
      ]);
      expect(await stockOf(app, p.variantIds)).toEqual([7, 6]);
      for (const step of PATH[from]) await internal().orders.advance({ orderId: order.id, status: step });
      expect(await stockOf(app, p.variantIds)).toEqual([7, 6]);
      await internal().orders.advance({ orderId: order.id, status: 'cancelled' });
      expect(await stockOf(app, p.variantIds)).toEqual([10, 10]);
      expect(await productStock(app, p.productId)).toBe(20);
    });
  }

  it('cancelling returns only quantity - shipped_quantity of each line', async () => {
    const a = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
    const b = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
    const order = await checkout(storeA.id, [
      { product_id: a.productId, quantity: 3 },
      { product_id: b.productId, quantity: 5 },
    ]);
    await internal().orders.advance({ orderId: order.id, status: 'processing' });
    await internal().orders.advance({ orderId: order.id, status: 'fulfilled' });
    // One unit of the first line already went out (a partial shipment).
    await rows(
      app.em(),
      sql`UPDATE order_lines SET shipped_quantity = 1 WHERE order_id = ${order.id} AND product_id = ${a.productId}`,
    );
    await internal().orders.advance({ orderId: order.id, status: 'cancelled' });
    expect(await stockOf(app, [...a.variantIds, ...b.variantIds])).toEqual([9, 10]);
  });

  it('two concurrent cancels of one order return its stock once', async () => {
    const p = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
    const order = await checkout(storeA.id, [{ product_id: p.productId, quantity: 6 }]);
    const outcomes = await Promise.allSettled([
      internal().orders.advance({ orderId: order.id, status: 'cancelled' }),
      internal().orders.advance({ orderId: order.id, status: 'cancelled' }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((await failure(Promise.reject(rejected.reason))).appCode).toBe('INVALID_TRANSITION');
    expect(await stockOf(app, p.variantIds)).toEqual([10]);
    expect((await eventsOf(app, order.id)).map((e) => e.event)).toEqual(['order.created', 'order.cancelled']);
  });

  it('shipping marks every line shipped; shipping and delivery move no stock; a delivered order cannot be cancelled', async () => {
    const a = await listedProduct(app, supplierId, storeA.id, { stock: [10] });
    const b = await listedProduct(app, supplierId, storeA.id, { stock: [10, 10] });
    const order = await checkout(storeA.id, [
      { product_id: a.productId, quantity: 2 },
      { product_id: b.productId, variant_id: b.variantIds[1], quantity: 4 },
    ]);
    const variants = [...a.variantIds, ...b.variantIds];
    expect(await stockOf(app, variants)).toEqual([8, 10, 6]);
    await internal().orders.advance({ orderId: order.id, status: 'processing' });
    await internal().orders.advance({ orderId: order.id, status: 'fulfilled' });
    expect((await linesOf(app, order.id)).map((l) => l.shipped_quantity)).toEqual([0, 0]);
    await internal().orders.advance({ orderId: order.id, status: 'shipped', tracking: 'TRK-LINES' });
    expect(await linesOf(app, order.id)).toEqual([
      { variant_id: a.variantIds[0], quantity: 2, shipped_quantity: 2 },
      { variant_id: b.variantIds[1], quantity: 4, shipped_quantity: 4 },
    ]);
    expect(await stockOf(app, variants)).toEqual([8, 10, 6]);
    const err = await failure(internal().orders.advance({ orderId: order.id, status: 'cancelled' }));
    expect(err.appCode).toBe('INVALID_TRANSITION');
    await internal().orders.advance({ orderId: order.id, status: 'delivered' });
    expect(await stockOf(app, variants)).toEqual([8, 10, 6]);
    expect(
      (await failure(internal().orders.advance({ orderId: order.id, status: 'cancelled' }))).appCode,
    ).toBe('INVALID_TRANSITION');
    expect(await stockOf(app, variants)).toEqual([8, 10, 6]);
  });
});

describe('invoice numbering', () => {
  // A database of its own, so the month's numbering starts at 000001.
  let numApp: TestApp;
  let one: Awaited<ReturnType<TestApp['createStore']>>;
  let two: Awaited<ReturnType<TestApp['createStore']>>;
  let product: { productId: number; variantIds: number[] };
  let next = 1;

  const numInternal = () => internalOf(numApp);
  async function fulfilledOrder(storeId: number): Promise<number> {
    const order = await checkout(storeId, [{ product_id: product.productId, quantity: 1 }], numApp);
    await numInternal().orders.advance({ orderId: order.id, status: 'processing' });
    await numInternal().orders.advance({ orderId: order.id, status: 'fulfilled' });
    return order.id;
  }
  async function ship(orderId: number) {
    return numInternal().orders.advance({ orderId, status: 'shipped', tracking: `TRK-${orderId}` });
  }

  beforeAll(async () => {
    numApp = await startTestApp({ OPERATOR_TOKEN });
    one = await numApp.createStore('Numbering One');
    two = await numApp.createStore('Numbering Two');
    const supplier = await fixtures(numApp.em()).supplier();
    const fx = fixtures(numApp.em());
    const productId = await fx.product({ supplierId: supplier, stock: [1000] });
    await fx.listing(one.id, productId);
    await fx.listing(two.id, productId);
    const variants = await rows<{ id: number }>(
      numApp.em(),
      sql`SELECT id FROM product_variants WHERE product_id = ${productId}`,
    );
    product = { productId, variantIds: variants.map((v) => v.id) };
  });
  afterAll(() => numApp.close());

  it('numbers INV-YYYYMM-NNNNNN for the current UTC month, consecutive across orders and stores', async () => {
    const orders = [
      await fulfilledOrder(one.id),
      await fulfilledOrder(two.id),
      await fulfilledOrder(one.id),
      await fulfilledOrder(two.id),
    ];
    for (const orderId of orders) {
      const shipped = await ship(orderId);
      expect(shipped.invoice_number).toBe(invoiceNo(next));
      const row = await orderRow(numApp, orderId);
      expect(row.invoice_number).toBe(invoiceNo(next));
      expect(row.invoice_issued_at).not.toBeNull();
      next++;
    }
    expect(invoiceNo(1)).toMatch(/^INV-\d{6}-000001$/);
  });

  it('never changes or reuses a number: delivery keeps it, refused moves keep it', async () => {
    const orderId = await fulfilledOrder(one.id);
    const shipped = await ship(orderId);
    expect(shipped.invoice_number).toBe(invoiceNo(next));
    next++;
    const issued = await orderRow(numApp, orderId);
    const delivered = await numInternal().orders.advance({ orderId, status: 'delivered' });
    expect(delivered.invoice_number).toBe(shipped.invoice_number); // the shipping's, no new one
    const after = await orderRow(numApp, orderId);
    expect(after.invoice_number).toBe(issued.invoice_number);
    expect(after.invoice_issued_at).toBe(issued.invoice_issued_at);
    for (const to of ['shipped', 'delivered', 'fulfilled'] as const) {
      await failure(numInternal().orders.advance({ orderId, status: to, tracking: 'TRK-AGAIN' }));
    }
    const still = await orderRow(numApp, orderId);
    expect(still.invoice_number).toBe(issued.invoice_number);
    expect(still.invoice_issued_at).toBe(issued.invoice_issued_at);
    // A refused ship (no tracking) takes no number either.
    const noTracking = await fulfilledOrder(two.id);
    expect(
      (await failure(numInternal().orders.advance({ orderId: noTracking, status: 'shipped' }))).appCode,
    ).toBe('TRACKING_REQUIRED');
    const following = await ship(noTracking);
    expect(following.invoice_number).toBe(invoiceNo(next));
    next++;
    // Cancelled orders take none.
    const cancelled = await fulfilledOrder(one.id);
    await numInternal().orders.advance({ orderId: cancelled, status: 'cancelled' });
    expect((await orderRow(numApp, cancelled)).invoice_number).toBeNull();
    const afterCancel = await ship(await fulfilledOrder(two.id));
    expect(afterCancel.invoice_number).toBe(invoiceNo(next));
    next++;
  });

  it('a shipping transaction that rolls back gives its number back, and leaves no mail or events', async () => {
    const rolledBack = await fulfilledOrder(one.id);
    const nextOne = await fulfilledOrder(two.id);
    const before = await snapshot(numApp, rolledBack, product.variantIds);
    let taken: string | null = null;
    await expect(
      numApp.em().transactional(async (tx) => {
        const r = await advanceOrder(
          { em: tx },
          { orderId: rolledBack, status: 'shipped', tracking: 'TRK-ROLLBACK' },
        );
        taken = r.invoice_number;
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(taken).toBe(invoiceNo(next));
    expect(await snapshot(numApp, rolledBack, product.variantIds)).toEqual(before);
    const shipped = await ship(nextOne);
    expect(shipped.invoice_number).toBe(taken);
    next++;
    const later = await ship(rolledBack);
    expect(later.invoice_number).toBe(invoiceNo(next));
    next++;
  });

  it('two concurrent ships of one order issue one invoice and take one number', async () => {
    const orderId = await fulfilledOrder(one.id);
    const outcomes = await Promise.allSettled([ship(orderId), ship(orderId)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const won = outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{
      invoice_number: string | null;
    }>;
    expect(won.value.invoice_number).toBe(invoiceNo(next));
    expect((await orderRow(numApp, orderId)).invoice_number).toBe(invoiceNo(next));
    next++;
    expect(
      await count(numApp, sql`SELECT count(*)::integer AS n FROM mail_outbox WHERE order_id = ${orderId}`),
    ).toBe(1);
    expect(
      (await eventsOf(numApp, orderId)).filter(
        (e) => e.event === 'invoice.issued' || e.event === 'order.shipped',
      ),
    ).toHaveLength(2);
  });

  it('concurrent shipping of 10 orders gives 10 distinct consecutive numbers', async () => {
    const orders: number[] = [];
    for (let i = 0; i < 10; i++) orders.push(await fulfilledOrder(i % 2 ? one.id : two.id));
    const results = await Promise.all(orders.map((orderId) => ship(orderId)));
    const numbers = results.map((r) => r.invoice_number ?? '').sort();
    expect(new Set(numbers).size).toBe(10);
    expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => invoiceNo(next + i)));
    for (const [i, orderId] of orders.entries()) {
      expect((await orderRow(numApp, orderId)).invoice_number).toBe(results[i]?.invoice_number);
    }
    next += 10;
    const [counter] = await rows<{ period: string; last_value: number }>(
      numApp.em(),
      sql`SELECT period, last_value FROM invoice_counters`,
    );
    expect(counter).toEqual({ period: period(), last_value: next - 1 });
    expect(
      await count(
        numApp,
        sql`SELECT count(DISTINCT invoice_number)::integer AS n FROM orders WHERE invoice_number IS NOT NULL`,
      ),
    ).toBe(next - 1);
  });
});

type Run = CliRun;

/** Runs the real operator CLI against the test database. */
const cli = (...args: string[]) => runCli(app.databaseUrl, ...args);

function json<T = Record<string, unknown>>(run: Run): T {
  const lines = run.stdout.trim().split('\n');
  expect(lines, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as T;
}

async function ok<T = Record<string, unknown>>(run: Promise<Run>): Promise<T> {
  const r = await run;
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return json<T>(r);
}

describe('operator CLI', () => {
  let product: { productId: number; variantIds: number[] };
  let orderId: number;
  let invoice: string;

  beforeAll(async () => {
    product = await listedProduct(app, supplierId, storeA.id, { stock: [20], retail: 4550 });
  });

  it('orders:create-storefront checks out a storefront order on the channel, reserving stock', async () => {
    const out = await ok<{ id: number; order_number: string; status: string; total_cents: number }>(
      cli(
        'orders:create-storefront',
        '--store',
        String(storeA.id),
        '--item',
        `${product.productId}x3`,
        '--channel',
        'google',
        '--email',
        'cli-buyer@example.com',
        '--json',
      ),
    );
    expect(out).toMatchObject({
      id: expect.any(Number),
      order_number: expect.stringMatching(/^SL-\d+$/),
      status: 'pending',
      order_type: 'storefront',
      total_cents: 3 * 4550,
    });
    orderId = out.id;
    expect(await orderRow(app, orderId)).toMatchObject({
      status: 'pending',
      channel: 'google',
      order_type: 'storefront',
    });
    expect(await stockOf(app, product.variantIds)).toEqual([17]);
  });

  it('orders:create-storefront refuses too little stock with a one-line reason', async () => {
    const r = await cli(
      'orders:create-storefront',
      '--store',
      String(storeA.id),
      '--item',
      `${product.productId}x99`,
    );
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/stock/i);
    expect(await stockOf(app, product.variantIds)).toEqual([17]);
  });

  it('orders:advance moves the order; shipping needs --tracking and issues the invoice', async () => {
    expect(await ok(cli('orders:advance', String(orderId), 'processing', '--json'))).toMatchObject({
      id: orderId,
      status: 'processing',
    });
    expect(await ok(cli('orders:advance', String(orderId), 'fulfilled', '--json'))).toMatchObject({
      status: 'fulfilled',
    });
    const noTracking = await cli('orders:advance', String(orderId), 'shipped', '--json');
    expect(noTracking.code).not.toBe(0);
    expect(json(noTracking)).toEqual({ error: 'bad_request', message: expect.stringMatching(/tracking/i) });
    const shipped = await ok<{ status: string; tracking_number: string; invoice_number: string }>(
      cli('orders:advance', String(orderId), 'shipped', '--tracking', 'TRK-CLI-1', '--json'),
    );
    expect(shipped).toMatchObject({
      id: orderId,
      status: 'shipped',
      tracking_number: 'TRK-CLI-1',
      invoice_number: expect.stringMatching(new RegExp(`^INV-${period()}-\\d{6}$`)),
    });
    invoice = shipped.invoice_number;
    expect(await orderRow(app, orderId)).toMatchObject({
      status: 'shipped',
      tracking_number: 'TRK-CLI-1',
      invoice_number: invoice,
    });
  });

  it('orders:advance refuses a move the state machine forbids: non-zero exit, one-line reason', async () => {
    const [plain, asJson] = await Promise.all([
      cli('orders:advance', String(orderId), 'pending'),
      cli('orders:advance', String(orderId), 'cancelled', '--json'),
    ]);
    expect(plain.code).not.toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).toMatch(/shipped/);
    expect(plain.stderr).toMatch(/pending/);
    expect(asJson.code).not.toBe(0);
    const body = json<{ error: string; message: string }>(asJson);
    expect(body).toEqual({ error: 'conflict', message: expect.stringContaining('cancelled') });
    expect(body.message).not.toContain('\n');
    expect((await orderRow(app, orderId)).status).toBe('shipped');
    const bad = await cli('orders:advance', String(orderId), 'lost', '--json');
    expect(bad.code).not.toBe(0);
    expect(json(bad)).toEqual({ error: 'bad_request', message: expect.stringContaining('STATUS') });
  });

  it('mail:list shows the invoice mail held when no SMTP server is configured', async () => {
    const queued = await ok<{ kind: string; to: string; status: string; order_id: number }[]>(
      cli('mail:list', '--status', 'queued', '--json'),
    );
    expect(queued.filter((m) => m.order_id === orderId)).toEqual([
      expect.objectContaining({ kind: 'invoice', to: 'cli-buyer@example.com', status: 'queued' }),
    ]);
    const helpers = { logger: { info() {}, debug() {} } } as unknown as JobHelpers;
    await (createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS).send_mail as Task)({}, helpers);
    const all = await ok<{ kind: string; to: string; subject: string; status: string; order_id: number }[]>(
      cli('mail:list', '--json'),
    );
    const mine = all.filter((m) => m.order_id === orderId);
    expect(mine).toEqual([
      {
        id: expect.any(Number),
        kind: 'invoice',
        to: 'cli-buyer@example.com',
        subject: expect.stringContaining(invoice),
        status: 'held',
        order_id: orderId,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    const held = await ok<{ order_id: number; status: string }[]>(
      cli('mail:list', '--status', 'held', '--json'),
    );
    expect(held.some((m) => m.order_id === orderId)).toBe(true);
    expect(held.every((m) => m.status === 'held')).toBe(true);
  });
});
