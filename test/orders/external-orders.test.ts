import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type {
  CancelExternalOrderResponse,
  CreateWholesaleOrderResponse,
  ErrorBody,
  GetOrderResponse,
  Order,
  PostExternalOrderResponse,
} from '../../client/src/index.ts';
import { createLogger } from '../../server/logger.ts';
import type { Actor, AppScope } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import type { externalOrderInput } from '../../src/external-orders/schemas.ts';
import { createCaller } from '../../src/router.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { failure } from '../helpers/errors.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { type Sent, send } from '../helpers/http.ts';

/**
 * POST /api/v1/orders/external and POST /api/v1/orders/external/{id}/cancel: marketplace orders of
 * the store's own goods. Created (201), already in (200), held (202), refused (400/401/403/404/429);
 * cancellation by the marketplace. Every refusal must leave orders, stock, events, mail, purchase
 * orders and external-order rows exactly as they were.
 */

const OPERATOR_TOKEN = 'op_external_orders_token_0123456789abcdef';
const _log = createLogger('silent');

const EXTERNAL = '/api/v1/orders/external';
const cancelPath = (id: number | string) => `${EXTERNAL}/${id}/cancel`;

const CUSTOMER = { email: 'mia@example.com', name: 'Mia Marketplace', phone: '+61 400 111 222' };
const SHIPPING = {
  address: '12 Collins St',
  address2: 'Unit 4',
  city: 'Melbourne',
  state: 'VIC',
  zip: '3000',
  country: 'au',
};

let app: TestApp;
type Store = Awaited<ReturnType<TestApp['createStore']>>;

let unique = 0;
/** A name no other test (nor another run on the same template) uses. */
const uid = (prefix: string) => `${prefix}-${process.pid.toString(36)}${Date.now().toString(36)}${++unique}`;

/** The operator's internal procedures, a fresh context per call. */
function internal(target: TestApp = app) {
  return createCaller(
    testContext(target, {
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      operatorToken: OPERATOR_TOKEN,
      requestId: 'req_external_orders_internal',
    }),
  ).internal;
}

/** The partner router as a preset app actor (as the OAuth transport would resolve it). */
function asApp(
  storeId: number,
  scopes: AppScope[],
  o: { credentialId?: number; readCustomers?: boolean } = {},
) {
  const actor: Actor = {
    storeId,
    kind: 'app',
    scope: 'read_write',
    appScopes: new Set(scopes),
    credentialId: o.credentialId ?? 77_001,
    appId: 9,
    canReadCustomers: o.readCustomers ?? false,
    livemode: true,
  };
  return createCaller(
    testContext(app, { actor, operatorToken: OPERATOR_TOKEN, requestId: 'req_external_orders_app' }),
  );
}

/** A post that was not held (201 or 200): the contract's answer, whose order is null only when held. */
type Placed = PostExternalOrderResponse & { result: 'created' | 'existing'; order: Order; hold: null };

/** `T` is the body the test expects: a placed order unless it says otherwise (`ErrorBody`, …). */
const post = <T = Placed>(key: string | undefined, body: unknown, target: TestApp = app) =>
  send<T>(target, 'POST', EXTERNAL, { key, body });
const cancel = <T = CancelExternalOrderResponse>(
  key: string | undefined,
  id: number | string,
  body: unknown = {},
) => send<T>(app, 'POST', cancelPath(id), { key, body });

interface Item {
  sku: unknown;
  quantity: unknown;
  price_cents: unknown;
  /** Anything else a test sends to see it refused. */
  [unknownKey: string]: unknown;
}

/** A valid body typed as the procedure's input, for in-process (app actor) calls. */
const appBody = (
  items: { sku: string; quantity: number; price_cents: number }[],
  extra: Record<string, unknown> = {},
) => orderBody(items, extra) as z.input<typeof externalOrderInput>;

/** A valid marketplace order body for these lines (total computed), with overrides. */
function orderBody(items: Item[], extra: Record<string, unknown> = {}) {
  const total = items.reduce(
    (sum, i) =>
      typeof i.quantity === 'number' && typeof i.price_cents === 'number'
        ? sum + i.quantity * i.price_cents
        : sum,
    0,
  );
  return {
    marketplace: 'etsy',
    external_order_id: uid('EXT'),
    placed_at: '2026-11-20T09:30:00+11:00',
    currency: 'AUD',
    customer: CUSTOMER,
    shipping: SHIPPING,
    items,
    total_cents: total,
    ...extra,
  };
}

interface Goods {
  sku: string;
  productId: number;
  variantId: number;
  supplierId: number;
}

async function variantsOf(productId: number, target: TestApp = app) {
  return rows<{ id: number; sku: string; stock_quantity: number }>(
    target.em(),
    sql`SELECT id, sku, stock_quantity FROM product_variants WHERE product_id = ${productId} ORDER BY position, id`,
  );
}

/** The store's own goods, made as the dashboard does (`internal.listings.createOwnGoods`). */
async function ownGoods(
  storeId: number,
  o: { stock?: number; price?: number; cost?: number; sku?: string; target?: TestApp } = {},
): Promise<Goods> {
  const target = o.target ?? app;
  const sku = o.sku ?? uid('OWN');
  const made = await internal(target).listings.createOwnGoods({
    storeId,
    sku,
    name: `Handmade ${sku}`,
    priceCents: o.price ?? 4500,
    costCents: o.cost ?? 1200,
    stock: o.stock ?? 10,
  });
  const [v] = await variantsOf(made.product_id, target);
  if (!v) throw new Error('own goods without a variant');
  return { sku, productId: made.product_id, variantId: v.id, supplierId: made.supplier_id };
}

async function stockOf(variantId: number): Promise<number> {
  const [v] = await rows<{ stock_quantity: number }>(
    app.em(),
    sql`SELECT stock_quantity FROM product_variants WHERE id = ${variantId}`,
  );
  return v?.stock_quantity ?? -1;
}

interface ExternalRow {
  id: number;
  store_id: number;
  marketplace: string;
  external_order_id: string;
  status: string;
  order_id: number | null;
  hold_reason: string | null;
  hold_lines: { sku: string; reason: string }[] | null;
  credential: string | null;
  updated_at: string;
}

async function externalRows(storeId: number): Promise<ExternalRow[]> {
  return rows<ExternalRow>(
    app.em(),
    sql`SELECT id, store_id, marketplace, external_order_id, status, order_id, hold_reason, hold_lines, credential,
        updated_at::text AS updated_at
      FROM external_orders WHERE store_id = ${storeId} ORDER BY id`,
  );
}

async function externalRow(storeId: number, marketplace: string, externalId: string) {
  return (await externalRows(storeId)).filter(
    (r) => r.marketplace === marketplace && r.external_order_id === externalId,
  );
}

async function eventsOf(storeId: number, afterId = 0) {
  return rows<{ id: number; event: string; entity_id: number; data: Record<string, unknown> }>(
    app.em(),
    sql`SELECT id::integer AS id, event, entity_id::integer AS entity_id, data FROM domain_events
      WHERE store_id = ${storeId} AND id > ${afterId} AND event LIKE 'order.%' ORDER BY id`,
  );
}

async function lastEventId(): Promise<number> {
  const [r] = await rows<{ id: number }>(
    app.em(),
    sql`SELECT COALESCE(max(id), 0)::integer AS id FROM domain_events`,
  );
  return r?.id ?? 0;
}

async function purchaseOrders(orderId: number) {
  return rows<{
    store_id: number;
    supplier_id: number;
    status: string;
    lines: { sku: string; quantity: number; variant_id: number }[];
  }>(
    app.em(),
    sql`SELECT store_id, supplier_id, status, lines FROM purchase_orders WHERE order_id = ${orderId} ORDER BY supplier_id`,
  );
}

async function ordersOf(storeId: number) {
  return rows<{ id: number; status: string }>(
    app.em(),
    sql`SELECT id, status FROM orders WHERE store_id = ${storeId} ORDER BY id`,
  );
}

/** Everything a refused (or repeated) post must leave untouched. */
async function world() {
  const em = app.em();
  const [counts] = await rows(
    em,
    sql`SELECT (SELECT count(*)::integer FROM orders) AS orders,
        (SELECT count(*)::integer FROM order_lines) AS lines,
        (SELECT count(*)::integer FROM order_status_history) AS history,
        (SELECT COALESCE(max(id), 0)::integer FROM domain_events) AS last_event,
        (SELECT count(*)::integer FROM mail_outbox) AS mail,
        (SELECT count(*)::integer FROM sku_mappings) AS mappings,
        (SELECT last_value::text FROM order_number_seq) AS order_seq`,
  );
  return {
    counts,
    orders: await rows(
      em,
      sql`SELECT id, status, cancel_reason, updated_at::text AS updated_at FROM orders ORDER BY id`,
    ),
    external: await rows(
      em,
      sql`SELECT id, status, order_id, hold_reason, updated_at::text AS updated_at FROM external_orders ORDER BY id`,
    ),
    purchase: await rows(em, sql`SELECT id, status, lines FROM purchase_orders ORDER BY id`),
    variants: await rows(em, sql`SELECT id, stock_quantity FROM product_variants ORDER BY id`),
  };
}

function expectError(res: Sent, status: number, error: string, code: string | undefined, label = '') {
  expect(res.status, `${label} ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.body, label).toMatchObject({ error, code });
  const body = res.body as ErrorBody;
  expect(typeof body.message, label).toBe('string');
  expect(body.request_id, label).toBe(res.headers.get('x-request-id'));
}

/** Runs the real operator CLI against the app's database. */
const cli = runCli;

/** Moves an order along the chain up to `to` (shipping with a tracking number). */
async function advanceTo(orderId: number, to: 'processing' | 'fulfilled' | 'shipped' | 'delivered') {
  const chain = ['processing', 'fulfilled', 'shipped', 'delivered'] as const;
  for (const status of chain.slice(0, chain.indexOf(to) + 1)) {
    await internal().orders.advance({
      orderId,
      status,
      tracking: status === 'shipped' ? 'TRACK-EXT-1' : undefined,
    });
  }
}

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('POST /api/v1/orders/external: created (201)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await app.createStore('Marketplace Seller');
  });

  it("creates a paid marketplace order of the store's own goods, with a draft purchase order per supplier", async () => {
    const a = await ownGoods(store.id, { stock: 10, price: 4500 });
    const b = await ownGoods(store.id, { stock: 3, price: 999 });
    // A second own supplier (a maker the store buys from), with a two-variant product.
    const fx = fixtures(app.em());
    const maker = await fx.supplier({ name: 'Second Workshop', ownerStoreId: store.id });
    const cSku = uid('MAKER');
    const cProduct = await fx.product({ supplierId: maker, sku: cSku, stock: [4, 6] });
    await fx.listing(store.id, cProduct);
    const [, c2] = await variantsOf(cProduct);
    if (!c2) throw new Error('no second variant');
    expect(c2.sku).toBe(`${cSku}-2`);
    expect(a.supplierId).toBe(b.supplierId);

    const before = await lastEventId();
    const mailBefore = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM mail_outbox`,
    );
    const body = orderBody([
      { sku: a.sku, quantity: 2, price_cents: 4500 },
      { sku: c2.sku, quantity: 3, price_cents: 500 },
      { sku: b.sku, quantity: 1, price_cents: 999 },
    ]);
    const res = await post(store.readWrite, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toBe('created');
    expect(res.body.hold).toBeNull();
    const order = res.body.order;
    expect(order).toMatchObject({
      status: 'pending',
      order_type: 'marketplace',
      channel: 'other_referral',
      source: 'etsy',
      currency: 'AUD',
      total_cents: 2 * 4500 + 3 * 500 + 999,
      subtotal_cents: 2 * 4500 + 3 * 500 + 999,
      shipping_cents: 0,
      customer: CUSTOMER,
      shipping: { ...SHIPPING, country: 'AU' },
      tracking_number: null,
      invoice_number: null,
      invoice_issued_at: null,
      cancel_reason: null,
      items_count: 3,
    });
    expect(order.items).toEqual([
      expect.objectContaining({
        product_id: a.productId,
        variant_id: a.variantId,
        sku: a.sku,
        quantity: 2,
        price_cents: 4500,
        shipped_quantity: 0,
      }),
      expect.objectContaining({
        product_id: cProduct,
        variant_id: c2.id,
        sku: c2.sku,
        quantity: 3,
        price_cents: 500,
      }),
      expect.objectContaining({ product_id: b.productId, variant_id: b.variantId, sku: b.sku, quantity: 1 }),
    ]);

    // Recorded as paid on the marketplace, under its natural key.
    const [row] = await rows(
      app.em(),
      sql`SELECT store_id, order_type, source, payment_method, payment_transaction_id, payment_amount_cents, total_cents,
          marketplace, external_order_id FROM orders WHERE id = ${order.id}`,
    );
    expect(row).toEqual({
      store_id: store.id,
      order_type: 'marketplace',
      source: 'etsy',
      payment_method: 'marketplace',
      payment_transaction_id: body.external_order_id,
      payment_amount_cents: body.total_cents,
      total_cents: body.total_cents,
      marketplace: 'etsy',
      external_order_id: body.external_order_id,
    });

    // Stock reserved on each variant, the other variant untouched.
    expect(await stockOf(a.variantId)).toBe(8);
    expect(await stockOf(b.variantId)).toBe(2);
    expect((await variantsOf(cProduct)).map((v) => v.stock_quantity)).toEqual([4, 3]);

    // One draft purchase order per supplier, with its lines.
    const pos = await purchaseOrders(order.id);
    const byLine = (l: { sku: string }, m: { sku: string }) => l.sku.localeCompare(m.sku);
    expect(pos.map((p) => ({ ...p, lines: [...p.lines].sort(byLine) }))).toEqual(
      [
        {
          store_id: store.id,
          supplier_id: a.supplierId,
          status: 'draft',
          lines: [
            { sku: a.sku, quantity: 2, variant_id: a.variantId },
            { sku: b.sku, quantity: 1, variant_id: b.variantId },
          ].sort(byLine),
        },
        {
          store_id: store.id,
          supplier_id: maker,
          status: 'draft',
          lines: [{ sku: c2.sku, quantity: 3, variant_id: c2.id }],
        },
      ].sort((x, y) => x.supplier_id - y.supplier_id),
    );

    // order.created, and nothing mailed to the buyer (nor anyone).
    expect((await eventsOf(store.id, before)).map((e) => [e.event, e.entity_id])).toEqual([
      ['order.created', order.id],
    ]);
    const mailAfter = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM mail_outbox`,
    );
    expect(mailAfter).toEqual(mailBefore);

    // The post itself is recorded as created, pointing at the order.
    expect(await externalRow(store.id, 'etsy', body.external_order_id)).toEqual([
      expect.objectContaining({ status: 'created', order_id: order.id, hold_reason: null, hold_lines: null }),
    ]);

    // The order reads back the same through GET /orders/{id}.
    const read = await app.get<GetOrderResponse>(`/api/v1/orders/${order.id}`, store.readWrite);
    expect(read.status).toBe(200);
    expect(read.body.order).toEqual(order);
  });

  it('resolves a SKU through an explicit mapping (internal mapSku), ahead of an own-goods SKU', async () => {
    const target = await ownGoods(store.id, { stock: 5 });
    const decoy = await ownGoods(store.id, { stock: 5 });
    const marketSku = uid('ETSY-LISTING');
    await internal().externalOrders.mapSku({
      storeId: store.id,
      sku: marketSku,
      productId: target.productId,
    });
    // A mapping for a SKU that is also an own-goods SKU wins over the own-goods variant.
    await internal().externalOrders.mapSku({
      storeId: store.id,
      sku: decoy.sku,
      productId: target.productId,
    });

    const res = await post(
      store.readWrite,
      orderBody([
        { sku: marketSku, quantity: 1, price_cents: 3000 },
        { sku: decoy.sku, quantity: 2, price_cents: 3000 },
      ]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.items.map((i) => [i.sku, i.variant_id, i.quantity])).toEqual([
      [marketSku, target.variantId, 1],
      [decoy.sku, target.variantId, 2],
    ]);
    expect(await stockOf(target.variantId)).toBe(2);
    expect(await stockOf(decoy.variantId)).toBe(5);
  });

  it('resolves a SKU mapped to one variant of a multi-variant own product with the skus:map CLI', async () => {
    const fx = fixtures(app.em());
    const maker = await fx.supplier({ ownerStoreId: store.id });
    const product = await fx.product({ supplierId: maker, sku: uid('CLI'), stock: [2, 7, 1] });
    await fx.listing(store.id, product);
    const variants = await variantsOf(product);
    const wanted = variants[1];
    if (!wanted) throw new Error('no second variant');
    const marketSku = uid('AMZ');
    const run = await cli(
      app.databaseUrl,
      'skus:map',
      '--store',
      String(store.id),
      '--sku',
      marketSku,
      '--product',
      String(product),
      '--variant',
      String(wanted.id),
      '--json',
    );
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({
      sku: marketSku,
      product_id: product,
      variant_id: wanted.id,
    });

    const res = await post(
      store.readWrite,
      orderBody([{ sku: marketSku, quantity: 7, price_cents: 1100 }], { marketplace: 'amazon_au' }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.source).toBe('amazon_au');
    expect(res.body.order.items).toEqual([
      expect.objectContaining({ product_id: product, variant_id: wanted.id, sku: marketSku, quantity: 7 }),
    ]);
    expect((await variantsOf(product)).map((v) => v.stock_quantity)).toEqual([2, 0, 1]);
  });

  it('accepts a line of the exact remaining stock, and two lines of one SKU that together fit', async () => {
    const g = await ownGoods(store.id, { stock: 6 });
    const res = await post(
      store.readWrite,
      orderBody([
        { sku: g.sku, quantity: 4, price_cents: 100 },
        { sku: g.sku, quantity: 2, price_cents: 90 },
      ]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.total_cents).toBe(580);
    expect(await stockOf(g.variantId)).toBe(0);
    const [po] = await purchaseOrders(res.body.order.id);
    expect(po?.lines.map((l) => l.quantity).sort()).toEqual([2, 4]);
  });

  it('customer phone and shipping address2 are optional (stored empty)', async () => {
    const g = await ownGoods(store.id, { stock: 2 });
    const { phone: _phone, ...customer } = CUSTOMER;
    const { address2: _a2, ...shipping } = SHIPPING;
    const res = await post(
      store.readWrite,
      orderBody([{ sku: g.sku, quantity: 1, price_cents: 100 }], { customer, shipping }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order.customer).toEqual({ ...customer, phone: '' });
    expect(res.body.order.shipping).toEqual({ ...shipping, address2: '', country: 'AU' });
  });

  it('an order for zero cents (free lines) is created and recorded as paid 0', async () => {
    const g = await ownGoods(store.id, { stock: 2 });
    const res = await post(store.readWrite, orderBody([{ sku: g.sku, quantity: 1, price_cents: 0 }]));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [row] = await rows(
      app.em(),
      sql`SELECT payment_method, payment_amount_cents, total_cents FROM orders WHERE id = ${res.body.order.id}`,
    );
    expect(row).toEqual({ payment_method: 'marketplace', payment_amount_cents: 0, total_cents: 0 });
  });

  it('a marketplace order is shipped without a Stockless tax invoice or any mail', async () => {
    const g = await ownGoods(store.id, { stock: 3 });
    const res = await post(store.readWrite, orderBody([{ sku: g.sku, quantity: 1, price_cents: 2500 }]));
    expect(res.status).toBe(201);
    const mailBefore = (await world()).counts;
    await advanceTo(res.body.order.id, 'shipped');
    const read = await app.get<GetOrderResponse>(`/api/v1/orders/${res.body.order.id}`, store.readWrite);
    expect(read.body.order).toMatchObject({
      status: 'shipped',
      invoice_number: null,
      tracking_number: 'TRACK-EXT-1',
    });
    expect(((await world()).counts as { mail: number }).mail).toBe((mailBefore as { mail: number }).mail);
  });
});

describe('POST /api/v1/orders/external: already in (200)', () => {
  let store: Store;
  let otherStore: Store;
  beforeAll(async () => {
    store = await app.createStore('Repeat Seller');
    otherStore = await app.createStore('Another Seller');
  });

  it('answers the same order again and changes nothing, even when the repeat differs', async () => {
    const g = await ownGoods(store.id, { stock: 10 });
    const body = orderBody([{ sku: g.sku, quantity: 3, price_cents: 700 }]);
    const first = await post(store.readWrite, body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(await stockOf(g.variantId)).toBe(7);

    const before = await world();
    const again = await post(store.readWrite, body);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual({ result: 'existing', order: first.body.order, hold: null });
    expect(await world()).toEqual(before);

    // A repeat with other lines is still the same order (the natural key decides).
    const changed = await post(store.readWrite, {
      ...body,
      items: [{ sku: g.sku, quantity: 5, price_cents: 700 }],
      total_cents: 3500,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.result).toBe('existing');
    expect(changed.body.order.id).toBe(first.body.order.id);
    expect(changed.body.order.items[0]?.quantity).toBe(3);
    expect(await world()).toEqual(before);
    expect(await stockOf(g.variantId)).toBe(7);

    // The external id is trimmed: the same key with spaces is the same order.
    const spaced = await post(store.readWrite, {
      ...body,
      external_order_id: `  ${body.external_order_id} `,
    });
    expect(spaced.status).toBe(200);
    expect(spaced.body.order.id).toBe(first.body.order.id);
    expect(await world()).toEqual(before);
  });

  it('the same external id on another marketplace, or in another store, is a different order', async () => {
    const g = await ownGoods(store.id, { stock: 10 });
    const body = orderBody([{ sku: g.sku, quantity: 1, price_cents: 1000 }]);
    const etsy = await post(store.readWrite, body);
    const ebay = await post(store.readWrite, { ...body, marketplace: 'ebay' });
    expect([etsy.status, ebay.status]).toEqual([201, 201]);
    expect(ebay.body.order.id).not.toBe(etsy.body.order.id);
    expect(ebay.body.order.source).toBe('ebay');
    expect(await stockOf(g.variantId)).toBe(8);

    // Another store, same marketplace and external id, its own goods under the same SKU name cannot
    // exist (SKUs are unique), so map a SKU of its own.
    const theirs = await ownGoods(otherStore.id, { stock: 4 });
    await internal().externalOrders.mapSku({
      storeId: otherStore.id,
      sku: g.sku,
      productId: theirs.productId,
    });
    const other = await post(otherStore.readWrite, body);
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(other.body.order.id).not.toBe(etsy.body.order.id);
    expect(other.body.order.items[0]?.variant_id).toBe(theirs.variantId);
    expect(await stockOf(theirs.variantId)).toBe(3);
    expect(await stockOf(g.variantId)).toBe(8);
  });

  it('an order already in through the store’s own online-shop import answers 200 with it', async () => {
    const g = await ownGoods(store.id, { stock: 5 });
    const checkout = await internal().orders.checkoutStorefront({
      storeId: store.id,
      customer: CUSTOMER,
      shipping: { ...SHIPPING, country: 'AU' },
      items: [{ product_id: g.productId, quantity: 1 }],
    });
    const externalId = uid('SHOPIFY');
    // As the online-shop import records it: the marketplace's key on the order.
    await rows(
      app.em(),
      sql`UPDATE orders SET marketplace = 'etsy', external_order_id = ${externalId} WHERE id = ${checkout.id}`,
    );
    expect(await stockOf(g.variantId)).toBe(4);

    const before = await world();
    const res = await post(
      store.readWrite,
      orderBody([{ sku: g.sku, quantity: 1, price_cents: 4500 }], { external_order_id: externalId }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toBe('existing');
    expect(res.body.hold).toBeNull();
    expect(res.body.order.id).toBe(checkout.id);
    expect(await stockOf(g.variantId)).toBe(4);
    const after = await world();
    expect(after.counts).toEqual(before.counts);
    expect(after.variants).toEqual(before.variants);
    expect(after.purchase).toEqual(before.purchase);
    expect(await externalRow(store.id, 'etsy', externalId)).toEqual([
      expect.objectContaining({ status: 'created', order_id: checkout.id }),
    ]);
  });
});

describe('POST /api/v1/orders/external: held (202)', () => {
  let store: Store;
  let otherStore: Store;
  beforeAll(async () => {
    store = await app.createStore('Held Seller');
    otherStore = await app.createStore('Neighbour');
  });

  /** Posts a body that must be held; checks nothing was reserved or ordered, and the record and event. */
  async function held(
    body: ReturnType<typeof orderBody>,
    reason: string,
    lines: { sku: string; reason: string }[],
  ) {
    const before = await world();
    const lastEvent = await lastEventId();
    const res = await post(store.readWrite, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ result: 'held', order: null, hold: { reason, lines } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    const after = await world();
    expect(after.variants).toEqual(before.variants);
    expect(after.orders).toEqual(before.orders);
    expect(after.purchase).toEqual(before.purchase);
    expect((after.counts as { mail: number }).mail).toBe((before.counts as { mail: number }).mail);
    expect((after.counts as { order_seq: string }).order_seq).toBe(
      (before.counts as { order_seq: string }).order_seq,
    );
    const events = await eventsOf(store.id, lastEvent);
    expect(events.map((e) => e.event)).toEqual(['order.held']);
    const [rec] = await externalRow(store.id, body.marketplace, body.external_order_id);
    expect(rec).toMatchObject({ status: 'held', order_id: null, hold_reason: reason, hold_lines: lines });
    expect(events[0]?.entity_id).toBe(rec?.id);
    expect(events[0]?.data).toMatchObject({
      marketplace: body.marketplace,
      external_order_id: body.external_order_id,
      reason,
    });
    return rec;
  }

  it('holds an unmapped SKU, then imports it once the SKU is mapped (201)', async () => {
    const g = await ownGoods(store.id, { stock: 5 });
    const marketSku = uid('UNMAPPED');
    const body = orderBody([
      { sku: g.sku, quantity: 1, price_cents: 1000 },
      { sku: marketSku, quantity: 2, price_cents: 500 },
    ]);
    await held(body, 'unmapped_sku', [{ sku: marketSku, reason: 'unmapped_sku' }]);

    // Posting again unchanged is held again: still nothing reserved.
    const again = await post(store.readWrite, body);
    expect(again.status).toBe(202);
    expect(await stockOf(g.variantId)).toBe(5);
    expect(await externalRow(store.id, 'etsy', body.external_order_id)).toHaveLength(1);

    await internal().externalOrders.mapSku({ storeId: store.id, sku: marketSku, productId: g.productId });
    const lastEvent = await lastEventId();
    const imported = await post(store.readWrite, body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body.result).toBe('created');
    expect(imported.body.hold).toBeNull();
    expect(imported.body.order.items.map((i) => i.variant_id)).toEqual([g.variantId, g.variantId]);
    expect(await stockOf(g.variantId)).toBe(2);
    expect(await externalRow(store.id, 'etsy', body.external_order_id)).toEqual([
      expect.objectContaining({
        status: 'created',
        order_id: imported.body.order.id,
        hold_reason: null,
        hold_lines: null,
      }),
    ]);
    expect((await eventsOf(store.id, lastEvent)).map((e) => [e.event, e.entity_id])).toEqual([
      ['order.created', imported.body.order.id],
    ]);

    // And from then on it is already in.
    const repeat = await post(store.readWrite, body);
    expect(repeat.status).toBe(200);
    expect(repeat.body.order.id).toBe(imported.body.order.id);
  });

  it('another store’s own-goods SKU is unmapped for this store', async () => {
    const theirs = await ownGoods(otherStore.id, { stock: 5 });
    await held(orderBody([{ sku: theirs.sku, quantity: 1, price_cents: 100 }]), 'unmapped_sku', [
      { sku: theirs.sku, reason: 'unmapped_sku' },
    ]);
    expect(await stockOf(theirs.variantId)).toBe(5);
  });

  it('holds a SKU mapped to a catalogue product Stockless supplies (service_supplied)', async () => {
    const fx = fixtures(app.em());
    const catalogueSupplier = await fx.supplier({ name: 'Stockless Supplier' });
    const product = await fx.product({ supplierId: catalogueSupplier, stock: [50] });
    await fx.listing(store.id, product);
    const [v] = await variantsOf(product);
    const marketSku = uid('SUPPLIED');
    await internal().externalOrders.mapSku({ storeId: store.id, sku: marketSku, productId: product });
    const own = await ownGoods(store.id, { stock: 5 });
    await held(
      orderBody([
        { sku: own.sku, quantity: 1, price_cents: 100 },
        { sku: marketSku, quantity: 1, price_cents: 2000 },
      ]),
      'service_supplied',
      [{ sku: marketSku, reason: 'service_supplied' }],
    );
    expect(await stockOf(v?.id ?? 0)).toBe(50);
    expect(await stockOf(own.variantId)).toBe(5);
  });

  it('holds a line without enough own stock, then imports it after setStock (201)', async () => {
    const g = await ownGoods(store.id, { stock: 2 });
    const body = orderBody([{ sku: g.sku, quantity: 3, price_cents: 1500 }]);
    await held(body, 'insufficient_stock', [{ sku: g.sku, reason: 'insufficient_stock' }]);
    expect(await stockOf(g.variantId)).toBe(2);

    await internal().inventory.setStock({ productId: g.productId, quantity: 3 });
    const imported = await post(store.readWrite, body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(await stockOf(g.variantId)).toBe(0);
    expect(await ordersOf(store.id)).toContainEqual({ id: imported.body.order.id, status: 'pending' });
  });

  it('counts two lines of one SKU together against its stock', async () => {
    const g = await ownGoods(store.id, { stock: 5 });
    await held(
      orderBody([
        { sku: g.sku, quantity: 3, price_cents: 100 },
        { sku: g.sku, quantity: 3, price_cents: 100 },
      ]),
      'insufficient_stock',
      [
        { sku: g.sku, reason: 'insufficient_stock' },
        { sku: g.sku, reason: 'insufficient_stock' },
      ],
    );
    expect(await stockOf(g.variantId)).toBe(5);
  });

  it('names every held line; the headline reason is unmapped before supplied before stock', async () => {
    const short = await ownGoods(store.id, { stock: 0 });
    const fine = await ownGoods(store.id, { stock: 9 });
    const fx = fixtures(app.em());
    const product = await fx.product({ supplierId: await fx.supplier(), stock: [9] });
    const supplied = uid('SUPPLIED');
    await internal().externalOrders.mapSku({ storeId: store.id, sku: supplied, productId: product });
    const unknown = uid('NOPE');
    await held(
      orderBody([
        { sku: short.sku, quantity: 1, price_cents: 100 },
        { sku: supplied, quantity: 1, price_cents: 100 },
        { sku: fine.sku, quantity: 1, price_cents: 100 },
        { sku: unknown, quantity: 1, price_cents: 100 },
      ]),
      'unmapped_sku',
      [
        { sku: short.sku, reason: 'insufficient_stock' },
        { sku: supplied, reason: 'service_supplied' },
        { sku: unknown, reason: 'unmapped_sku' },
      ],
    );
    expect(await stockOf(fine.variantId)).toBe(9);
  });
});

describe('POST /api/v1/orders/external: refused (400), nothing written', () => {
  let store: Store;
  let goods: Goods;
  beforeAll(async () => {
    store = await app.createStore('Strict Seller');
    goods = await ownGoods(store.id, { stock: 10 });
  });

  async function refused(body: unknown, code: string, path: string | null, label: string) {
    const before = await world();
    const res = await post<ErrorBody>(store.readWrite, body);
    expectError(res, 400, 'bad_request', code, label);
    // A refusal on a rate-limited route still tells the caller where it stands.
    expect(res.headers.get('x-ratelimit-limit'), label).toBe('120');
    if (path !== null) {
      expect(
        res.body.details?.map((d) => d.path),
        `${label} ${JSON.stringify(res.body)}`,
      ).toContain(path);
    }
    expect(await world(), label).toEqual(before);
    expect(await externalRows(store.id), label).toEqual([]);
    return res;
  }

  const line = (o: Partial<Item> = {}) => ({ sku: goods.sku, quantity: 1, price_cents: 1000, ...o });

  it('no items, or items missing', async () => {
    await refused(orderBody([]), 'VALIDATION_FAILED', 'items', 'empty items');
    const { items: _items, ...noItems } = orderBody([line()]);
    await refused(noItems, 'VALIDATION_FAILED', 'items', 'missing items');
  });

  it('a negative, zero or fractional quantity, and a negative or fractional price', async () => {
    await refused(
      orderBody([line({ quantity: -1 })]),
      'VALIDATION_FAILED',
      'items.0.quantity',
      'negative quantity',
    );
    await refused(
      orderBody([line({ quantity: 0 })], { total_cents: 0 }),
      'VALIDATION_FAILED',
      'items.0.quantity',
      '0',
    );
    await refused(orderBody([line({ quantity: 1.5 })]), 'VALIDATION_FAILED', 'items.0.quantity', 'fraction');
    await refused(orderBody([line({ quantity: null })]), 'VALIDATION_FAILED', 'items.0.quantity', 'null');
    await refused(
      orderBody([line({ quantity: '1.0' })]),
      'VALIDATION_FAILED',
      'items.0.quantity',
      'text 1.0',
    );
    await refused(
      orderBody([line({ quantity: 10_001 })], { total_cents: 10_001_000 }),
      'VALIDATION_FAILED',
      'items.0.quantity',
      'over max',
    );
    await refused(
      orderBody([line({ price_cents: -100 })]),
      'VALIDATION_FAILED',
      'items.0.price_cents',
      'price < 0',
    );
    await refused(
      orderBody([line({ price_cents: 10.5 })]),
      'VALIDATION_FAILED',
      'items.0.price_cents',
      'price .5',
    );
    expect(await stockOf(goods.variantId)).toBe(10);
  });

  it('a currency other than AUD', async () => {
    for (const currency of ['USD', 'XYZ', 'aud', '', 42]) {
      await refused(
        orderBody([line()], { currency }),
        'VALIDATION_FAILED',
        'currency',
        `currency ${currency}`,
      );
    }
    const { currency: _c, ...noCurrency } = orderBody([line()]);
    await refused(noCurrency, 'VALIDATION_FAILED', 'currency', 'no currency');
  });

  it('a total_cents that does not match the lines: TOTAL_MISMATCH', async () => {
    const res = await refused(
      orderBody([line({ quantity: 2, price_cents: 1000 }), line({ price_cents: 1 })], { total_cents: 2000 }),
      'TOTAL_MISMATCH',
      'total_cents',
      'short total',
    );
    expect(res.body.message).toContain('2001');
    await refused(orderBody([line()], { total_cents: 1001 }), 'TOTAL_MISMATCH', 'total_cents', 'over total');
    await refused(
      orderBody([line()], { total_cents: -1000 }),
      'VALIDATION_FAILED',
      'total_cents',
      'negative total',
    );
    const { total_cents: _t, ...noTotal } = orderBody([line()]);
    await refused(noTotal, 'VALIDATION_FAILED', 'total_cents', 'no total');
  });

  it('a placed_at that is not an ISO date-time with an offset', async () => {
    for (const placed_at of [
      'yesterday',
      '2026-11-20',
      '2026-11-20T09:30:00',
      '2026-13-20T09:30:00+11:00',
      '20/11/2026 09:30',
      1_763_600_000,
    ]) {
      await refused(
        orderBody([line()], { placed_at }),
        'VALIDATION_FAILED',
        'placed_at',
        `placed_at ${placed_at}`,
      );
    }
  });

  it('unknown keys, at the top, in a line, in the customer or the shipping', async () => {
    await refused(orderBody([line()], { coupon: 'X' }), 'VALIDATION_FAILED', null, 'top-level key');
    await refused(orderBody([{ ...line(), variant_id: 1 }]), 'VALIDATION_FAILED', null, 'line key');
    await refused(
      orderBody([line()], { customer: { ...CUSTOMER, vip: true } }),
      'VALIDATION_FAILED',
      null,
      'customer key',
    );
    await refused(
      orderBody([line()], { shipping: { ...SHIPPING, gate: '1234' } }),
      'VALIDATION_FAILED',
      null,
      'shipping key',
    );
  });

  it('a marketplace name with capitals, spaces or nothing at all; an empty external id', async () => {
    for (const marketplace of ['Etsy', 'my market', ' etsy', '', '-etsy', 'x'.repeat(51), 'étsy']) {
      await refused(
        orderBody([line()], { marketplace }),
        'VALIDATION_FAILED',
        'marketplace',
        `"${marketplace}"`,
      );
    }
    await refused(
      orderBody([line()], { external_order_id: '   ' }),
      'VALIDATION_FAILED',
      'external_order_id',
      'blank id',
    );
    await refused(
      orderBody([line()], { external_order_id: 'a\u0000b' }),
      'VALIDATION_FAILED',
      'external_order_id',
      'NUL in id',
    );
  });

  it('a customer or shipping that is incomplete or malformed', async () => {
    await refused(
      orderBody([line()], { customer: { ...CUSTOMER, email: 'not-an-email' } }),
      'VALIDATION_FAILED',
      'customer.email',
      'email',
    );
    await refused(
      orderBody([line()], { shipping: { ...SHIPPING, country: 'Australia' } }),
      'VALIDATION_FAILED',
      'shipping.country',
      'country',
    );
    const { city: _city, ...noCity } = SHIPPING;
    await refused(orderBody([line()], { shipping: noCity }), 'VALIDATION_FAILED', 'shipping.city', 'city');
    await refused(orderBody([line({ sku: '' })]), 'VALIDATION_FAILED', 'items.0.sku', 'empty sku');
  });

  it('a body that is not JSON or not an object', async () => {
    const before = await world();
    const res = await app.request(EXTERNAL, {
      method: 'POST',
      key: store.readWrite,
      body: '{"marketplace":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('bad_request');
    const arr = await post(store.readWrite, [orderBody([line()])]);
    expect(arr.status).toBe(400);
    expect(await world()).toEqual(before);
  });
});

describe('POST /api/v1/orders/external: concurrency', () => {
  it('20 identical posts at once create exactly one order: one 201, nineteen 200', async () => {
    const store = await app.createStore('Busy Seller');
    const g = await ownGoods(store.id, { stock: 100 });
    const lastEvent = await lastEventId();
    const body = orderBody([{ sku: g.sku, quantity: 3, price_cents: 1250 }]);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(store.readWrite, body)));
    const statuses = results.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(results.map((r) => r.body)),
    ).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const ids = new Set(results.map((r) => r.body.order?.id));
    expect(ids.size).toBe(1);
    const [orderId] = [...ids] as [number]; // one id: asserted just above
    expect(results.filter((r) => r.status === 200).every((r) => r.body.result === 'existing')).toBe(true);

    expect(await ordersOf(store.id)).toEqual([{ id: orderId, status: 'pending' }]);
    expect(await stockOf(g.variantId)).toBe(97);
    const [lineCount] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM order_lines WHERE order_id = ${orderId}`,
    );
    expect(lineCount?.n).toBe(1);
    expect(await purchaseOrders(orderId)).toHaveLength(1);
    expect(await externalRows(store.id)).toEqual([
      expect.objectContaining({ status: 'created', order_id: orderId }),
    ]);
    expect((await eventsOf(store.id, lastEvent)).map((e) => e.event)).toEqual(['order.created']);
  });

  it('different orders racing for the last unit: the losers are held for stock, never refused', async () => {
    // The decision: a sale already made elsewhere is never refused; short stock holds it (202).
    const store = await app.createStore('Last Unit Seller');
    const g = await ownGoods(store.id, { stock: 1 });
    // Another session holds the variant's row lock (as a concurrent stock change would) while the
    // posts arrive, so they all read the stock before any of them reserves: the race, every run.
    const blocker = new pg.Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    let results: Sent<PostExternalOrderResponse | ErrorBody>[];
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM product_variants WHERE id = $1 FOR UPDATE', [g.variantId]);
      const posts = Promise.all(
        Array.from({ length: 10 }, () =>
          post<PostExternalOrderResponse | ErrorBody>(
            store.readWrite,
            orderBody([{ sku: g.sku, quantity: 1, price_cents: 800 }]),
          ),
        ),
      );
      await waitForLockWaiters(blocker);
      await blocker.query('COMMIT');
      results = await posts;
    } finally {
      await blocker.end();
    }
    const summary = results
      .map((r) => `${r.status}:${'result' in r.body ? r.body.result : r.body.code}`)
      .sort();
    expect(summary).toEqual(['201:created', ...Array.from({ length: 9 }, () => '202:held')]);
    expect(await stockOf(g.variantId)).toBe(0);
    const recorded = await externalRows(store.id);
    expect(recorded.map((r) => r.status).sort()).toEqual([
      'created',
      ...Array.from({ length: 9 }, () => 'held'),
    ]);
    expect(
      recorded.filter((r) => r.status === 'held').every((r) => r.hold_reason === 'insufficient_stock'),
    ).toBe(true);
  });
});

/** Waits (at most 5 s) until the sessions waiting on a lock in this database stop growing. */
async function waitForLockWaiters(client: pg.Client) {
  let last = -1;
  let stableSince = Date.now();
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const { rows: found } = await client.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    const n = found[0]?.n ?? 0;
    if (n !== last) {
      last = n;
      stableSince = Date.now();
    } else if (n > 0 && Date.now() - stableSince > 300) {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('POST /api/v1/orders/external/{id}/cancel', () => {
  let store: Store;
  let otherStore: Store;
  beforeAll(async () => {
    store = await app.createStore('Cancelling Seller');
    otherStore = await app.createStore('Bystander');
  });

  async function placed(o: { stock?: number; quantity?: number; key?: string; storeId?: number } = {}) {
    const g = await ownGoods(o.storeId ?? store.id, { stock: o.stock ?? 10 });
    const res = await post(
      o.key ?? store.readWrite,
      orderBody([{ sku: g.sku, quantity: o.quantity ?? 4, price_cents: 2000 }]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { goods: g, order: res.body.order, body: res };
  }

  it('cancels a pending order: reason marketplace, stock back, draft purchase orders cancelled', async () => {
    const { goods, order } = await placed({ stock: 10, quantity: 4 });
    expect(await stockOf(goods.variantId)).toBe(6);
    const lastEvent = await lastEventId();

    const res = await cancel(store.readWrite, order.id, { note: 'Buyer changed their mind on Etsy' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['order']);
    expect(res.body.order).toMatchObject({
      id: order.id,
      order_number: order.order_number,
      status: 'cancelled',
      cancel_reason: 'marketplace',
      order_type: 'marketplace',
    });
    expect(await stockOf(goods.variantId)).toBe(10);
    expect((await purchaseOrders(order.id)).map((p) => p.status)).toEqual(['cancelled']);
    expect((await eventsOf(store.id, lastEvent)).map((e) => [e.event, e.entity_id])).toEqual([
      ['order.cancelled', order.id],
    ]);
    const history = await rows(
      app.em(),
      sql`SELECT from_status, to_status, note FROM order_status_history WHERE order_id = ${order.id} ORDER BY id`,
    );
    expect(history).toEqual([
      { from_status: null, to_status: 'pending', note: null },
      { from_status: 'pending', to_status: 'cancelled', note: 'Buyer changed their mind on Etsy' },
    ]);

    // Repeating answers the same cancelled order and changes nothing.
    const before = await world();
    const again = await cancel(store.readWrite, order.id);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(res.body);
    expect(await world()).toEqual(before);
    expect(await stockOf(goods.variantId)).toBe(10);

    // Posting the order again still answers it (cancelled), without reserving again.
    const [rec] = await externalRows(store.id).then((r) => r.filter((x) => x.order_id === order.id));
    const repost = await post(
      store.readWrite,
      orderBody([{ sku: goods.sku, quantity: 4, price_cents: 2000 }], {
        external_order_id: rec?.external_order_id,
      }),
    );
    expect(repost.status).toBe(200);
    expect(repost.body.order).toMatchObject({ id: order.id, status: 'cancelled' });
    expect(await world()).toEqual(before);
  });

  it('cancels a processing and a fulfilled order with stock back', async () => {
    for (const status of ['processing', 'fulfilled'] as const) {
      const { goods, order } = await placed({ stock: 5, quantity: 2 });
      await advanceTo(order.id, status);
      const res = await cancel(store.readWrite, order.id);
      expect(res.status, `${status} ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.order).toMatchObject({ status: 'cancelled', cancel_reason: 'marketplace' });
      expect(await stockOf(goods.variantId), status).toBe(5);
    }
  });

  it('cancels a shipped order without returning the shipped stock', async () => {
    const { goods, order } = await placed({ stock: 10, quantity: 3 });
    await advanceTo(order.id, 'shipped');
    expect(await stockOf(goods.variantId)).toBe(7);
    const res = await cancel(store.readWrite, order.id, { note: 'Refunded after dispatch' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.order).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'marketplace',
      tracking_number: 'TRACK-EXT-1',
    });
    expect(res.body.order.items[0]?.shipped_quantity).toBe(3);
    expect(await stockOf(goods.variantId)).toBe(7);
    expect((await purchaseOrders(order.id)).map((p) => p.status)).toEqual(['cancelled']);
  });

  it('refuses a delivered order: 409 ORDER_NOT_CANCELLABLE, nothing changed', async () => {
    const { goods, order } = await placed({ stock: 10, quantity: 1 });
    await advanceTo(order.id, 'delivered');
    const before = await world();
    const res = await cancel(store.readWrite, order.id);
    expectError(res, 409, 'conflict', 'ORDER_NOT_CANCELLABLE');
    expect(await world()).toEqual(before);
    expect(await stockOf(goods.variantId)).toBe(9);
  });

  it('refuses a storefront or wholesale order of the store: 403 NOT_AN_APP_ORDER', async () => {
    const g = await ownGoods(store.id, { stock: 5 });
    const storefront = await internal().orders.checkoutStorefront({
      storeId: store.id,
      customer: CUSTOMER,
      shipping: { ...SHIPPING, country: 'AU' },
      items: [{ product_id: g.productId, quantity: 1 }],
    });
    const fx = fixtures(app.em());
    const product = await fx.product({ supplierId: await fx.supplier(), stock: [5] });
    const wholesale = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
      key: store.readWrite,
      body: { customer: CUSTOMER, items: [{ product_id: product, quantity: 1 }], shipping: SHIPPING },
    });
    expect(wholesale.status, JSON.stringify(wholesale.body)).toBe(201);

    for (const [label, id] of [
      ['storefront', storefront.id],
      ['wholesale', wholesale.body.order.id],
    ] as const) {
      const before = await world();
      const res = await cancel(store.readWrite, id);
      expectError(res, 403, 'forbidden', 'NOT_AN_APP_ORDER', label);
      expect(await world(), label).toEqual(before);
    }
  });

  it('another store’s order, an unknown id: 404; a malformed id or body: 400', async () => {
    const theirs = await placed({ key: otherStore.readWrite, storeId: otherStore.id, stock: 3, quantity: 1 });
    const before = await world();
    expectError(
      await cancel(store.readWrite, theirs.order.id),
      404,
      'not_found',
      'ORDER_NOT_FOUND',
      'other store',
    );
    expectError(await cancel(store.readWrite, 2_000_000_000), 404, 'not_found', 'ORDER_NOT_FOUND', 'unknown');
    expect(await world()).toEqual(before);

    const mine = await placed({ stock: 3, quantity: 1 });
    const again = await world();
    expect((await cancel(store.readWrite, 'abc')).status).toBe(400);
    expect((await cancel(store.readWrite, 0)).status).toBe(400);
    expectError(
      await cancel(store.readWrite, mine.order.id, { note: 'x', reason: 'fraud' }),
      400,
      'bad_request',
      'VALIDATION_FAILED',
      'unknown key',
    );
    expectError(
      await cancel(store.readWrite, mine.order.id, { note: 'n'.repeat(501) }),
      400,
      'bad_request',
      'VALIDATION_FAILED',
      'long note',
    );
    expect(await world()).toEqual(again);
  });

  it('no credential 401, read key 403 INSUFFICIENT_SCOPE', async () => {
    const { order } = await placed({ stock: 3, quantity: 1 });
    const before = await world();
    const anon = await cancel(undefined, order.id);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('resource_metadata=');
    const read = await cancel<ErrorBody>(store.read, order.id);
    expectError(read, 403, 'forbidden', 'INSUFFICIENT_SCOPE');
    expect(read.body.required_scope).toBe('read_write');
    expect(await world()).toEqual(before);
  });
});

describe('the external_orders platform switch', () => {
  it('answers 404 FEATURE_DISABLED on both endpoints while off, and works again once on', async () => {
    const store = await app.createStore('Switched Seller');
    const g = await ownGoods(store.id, { stock: 10 });
    const first = await post(store.readWrite, orderBody([{ sku: g.sku, quantity: 1, price_cents: 500 }]));
    expect(first.status).toBe(201);
    const body = orderBody([{ sku: g.sku, quantity: 2, price_cents: 500 }]);

    await rows(app.em(), sql`UPDATE platform_features SET enabled = false WHERE name = 'external_orders'`);
    try {
      const before = await world();
      expectError(await post(store.readWrite, body), 404, 'not_found', 'FEATURE_DISABLED', 'post');
      expectError(
        await cancel(store.readWrite, first.body.order.id),
        404,
        'not_found',
        'FEATURE_DISABLED',
        'cancel',
      );
      expect(await world()).toEqual(before);
      expect(await externalRow(store.id, 'etsy', body.external_order_id)).toEqual([]);
      expect(await stockOf(g.variantId)).toBe(9);
    } finally {
      await rows(app.em(), sql`UPDATE platform_features SET enabled = true WHERE name = 'external_orders'`);
    }

    const created = await post(store.readWrite, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const cancelled = await cancel(store.readWrite, first.body.order.id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.order.status).toBe('cancelled');
    expect(await stockOf(g.variantId)).toBe(8);
  });
  it('while off, a post or cancel with an invalid body also answers 404 FEATURE_DISABLED', async () => {
    const store = await app.createStore('Switched Seller 2');
    const g = await ownGoods(store.id, { stock: 10 });
    const first = await post(store.readWrite, orderBody([{ sku: g.sku, quantity: 1, price_cents: 500 }]));
    expect(first.status).toBe(201);
    await rows(app.em(), sql`UPDATE platform_features SET enabled = false WHERE name = 'external_orders'`);
    try {
      const before = await world();
      // Switched off means the endpoints answer 404 whatever is sent, not a validation report.
      expectError(
        await post(store.readWrite, {
          ...orderBody([{ sku: g.sku, quantity: 1, price_cents: 500 }]),
          currency: 'USD',
        }),
        404,
        'not_found',
        'FEATURE_DISABLED',
        'post with an invalid body',
      );
      expectError(
        await cancel(store.readWrite, first.body.order.id, { reason: 'x' }),
        404,
        'not_found',
        'FEATURE_DISABLED',
        'cancel with an invalid body',
      );
      expect(await world()).toEqual(before);
    } finally {
      await rows(app.em(), sql`UPDATE platform_features SET enabled = true WHERE name = 'external_orders'`);
    }
  });
});

describe('POST /api/v1/orders/external: credentials and scopes', () => {
  let store: Store;
  beforeAll(async () => {
    store = await app.createStore('Scoped Seller');
  });

  it('no credential or a bad one: 401; a read key: 403 INSUFFICIENT_SCOPE; nothing written', async () => {
    const g = await ownGoods(store.id, { stock: 4 });
    const body = orderBody([{ sku: g.sku, quantity: 1, price_cents: 100 }]);
    const before = await world();
    const anon = await post<ErrorBody>(undefined, body);
    expectError(anon, 401, 'unauthorized', anon.body.code, 'anonymous');
    expect(anon.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
    );
    expect((await post('sl_test_0000000000000000000000000000000000', body)).status).toBe(401);
    const read = await post<ErrorBody>(store.read, body);
    expectError(read, 403, 'forbidden', 'INSUFFICIENT_SCOPE', 'read key');
    expect(read.body.required_scope).toBe('read_write');
    expect(await world()).toEqual(before);
    expect(await externalRows(store.id)).toEqual([]);
  });

  it('an app with write_external_orders may post and cancel; the answer hides the buyer without read_customers', async () => {
    const g = await ownGoods(store.id, { stock: 4 });
    const body = appBody([{ sku: g.sku, quantity: 2, price_cents: 600 }], { marketplace: 'catch' });
    const answer = await asApp(store.id, ['write_external_orders'], {
      credentialId: 424_242,
    }).externalOrders.post(body);
    expect(answer.result).toBe('created');
    expect(answer.order).toMatchObject({ order_type: 'marketplace', source: 'catch', total_cents: 1200 });
    expect(answer.order).not.toHaveProperty('customer');
    expect(answer.order).not.toHaveProperty('shipping');
    expect(await stockOf(g.variantId)).toBe(2);
    expect(await externalRow(store.id, 'catch', body.external_order_id)).toEqual([
      expect.objectContaining({ status: 'created', credential: 'app:424242' }),
    ]);

    // With read_customers the buyer is shown; a repeat is 'existing'.
    const again = await asApp(store.id, ['write_external_orders', 'read_customers'], {
      readCustomers: true,
    }).externalOrders.post(body);
    expect(again.result).toBe('existing');
    expect(again.order?.customer).toEqual(CUSTOMER);

    const orderId = answer.order?.id as number;
    const cancelled = await asApp(store.id, ['write_external_orders']).externalOrders.cancel({ id: orderId });
    expect(cancelled.order).toMatchObject({ id: orderId, status: 'cancelled', cancel_reason: 'marketplace' });
    expect(await stockOf(g.variantId)).toBe(4);
  });

  it('an app with only write_orders (or other scopes) is refused: INSUFFICIENT_SCOPE write_external_orders', async () => {
    const g = await ownGoods(store.id, { stock: 4 });
    const placedOrder = await post(
      store.readWrite,
      orderBody([{ sku: g.sku, quantity: 1, price_cents: 100 }]),
    );
    expect(placedOrder.status).toBe(201);
    const before = await world();
    for (const scopes of [
      ['write_orders'],
      ['write_orders', 'read_orders', 'write_products', 'write_inventory'],
    ] as AppScope[][]) {
      const caller = asApp(store.id, scopes);
      const err = await failure(
        caller.externalOrders.post(appBody([{ sku: g.sku, quantity: 1, price_cents: 100 }])),
      );
      expect(err.appCode).toBe('INSUFFICIENT_SCOPE');
      expect(err.status).toBe(403);
      expect(err.extra.required_scope).toBe('write_external_orders');
      const cancelErr = await failure(caller.externalOrders.cancel({ id: placedOrder.body.order.id }));
      expect(cancelErr.appCode).toBe('INSUFFICIENT_SCOPE');
      expect(cancelErr.extra.required_scope).toBe('write_external_orders');
    }
    expect(await world()).toEqual(before);
  });
});

describe('POST /api/v1/orders/external: rate limit per key', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ EXTERNAL_ORDERS_RATE_LIMIT: '2' });
  });
  afterAll(() => limited?.close());

  it('the third post within the minute is 429 RATE_LIMITED; another key of the store is still allowed', async () => {
    const store = await limited.createStore('Limited Seller');
    const g = await ownGoods(store.id, { stock: 20, target: limited });
    const second = await createApiKey(
      { em: limited.em() },
      { storeId: store.id, scope: 'read_write', mode: 'test' },
    );

    const body = orderBody([{ sku: g.sku, quantity: 1, price_cents: 300 }]);
    const one = await post(store.readWrite, body, limited);
    expect(one.status, JSON.stringify(one.body)).toBe(201);
    expect(one.headers.get('x-ratelimit-limit')).toBe('2');
    expect(one.headers.get('x-ratelimit-remaining')).toBe('1');
    const two = await post(store.readWrite, body, limited);
    expect(two.status).toBe(200);
    expect(two.headers.get('x-ratelimit-remaining')).toBe('0');

    const blockedBody = orderBody([{ sku: g.sku, quantity: 1, price_cents: 300 }]);
    const three = await post(store.readWrite, blockedBody, limited);
    expect(three.status, JSON.stringify(three.body)).toBe(429);
    expect(three.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
    // 2 a minute is one every 30 s: the next post is allowed in 30 s, both again in 60 s.
    expect(three.headers.get('retry-after')).toBe('30');
    expect(three.headers.get('x-ratelimit-limit')).toBe('2');
    expect(three.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(three.headers.get('x-ratelimit-reset')).toBe('60');
    // Nothing of the refused post was recorded.
    const recorded = await rows<{ external_order_id: string }>(
      limited.em(),
      sql`SELECT external_order_id FROM external_orders WHERE store_id = ${store.id} ORDER BY id`,
    );
    expect(recorded.map((r) => r.external_order_id)).toEqual([body.external_order_id]);

    // The limit is per key: the store's other key posts the refused order.
    const other = await post(second.key, blockedBody, limited);
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('1');
  });
});
