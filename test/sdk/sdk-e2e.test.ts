import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stockless, StocklessError, verifyWebhook } from '../../client/src/index.ts';
import { createDashboardClient, type DashboardClient } from '../../client/src/trpc.ts';
import { signatureHeaders } from '../../src/webhooks/delivery/signature-headers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * The SDK against the real HTTP app: the REST client with a store's API keys, and the dashboard's
 * tRPC client with the operator token for the internal steps (checkout, shipping, own goods).
 */

const OPERATOR_TOKEN = 'op_sdk_e2e_token_0123456789abcdef';
const SHIPPING = { address: '12 Wharf Road', city: 'Balmain', state: 'NSW', zip: '2041', country: 'AU' };

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let sdk: Stockless;
let dashboard: DashboardClient;
let products: number[];

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN });
  store = await app.createStore('SDK Store');
  sdk = new Stockless({ baseUrl: app.url, apiKey: store.readWrite });
  dashboard = createDashboardClient(app.url, OPERATOR_TOKEN);
  const fx = fixtures(app.em());
  const supplierId = await fx.supplier();
  products = [];
  for (const [i, retail] of [2500, 3500, 4500].entries()) {
    products.push(
      await fx.product({ supplierId, name: `SDK Lamp ${i}`, sku: `SDK-${i}`, retail, stock: [50] }),
    );
  }
});

afterAll(async () => {
  await app?.close();
});

describe('the SDK against the server', () => {
  it('reads the store and pages through the catalogue', async () => {
    const { store: me } = await sdk.store.me();
    expect(me.id).toBe(store.id);

    const first = await sdk.products.list({ limit: 2 });
    const all: number[] = [];
    for await (const p of sdk.products.iterate({ limit: 2 })) all.push(p.id);
    expect(all).toHaveLength(first.pagination.total_count);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(products));
  });

  it('throws typed errors carrying the request id', async () => {
    const readOnly = new Stockless({ baseUrl: app.url, apiKey: store.read });
    const scope = await readOnly.listings.add({ product_id: products[0] ?? 0 }).catch((e: unknown) => e);
    expect(scope).toBeInstanceOf(StocklessError);
    expect(scope).toMatchObject({
      category: 'forbidden',
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      requiredScope: 'read_write',
      requestId: expect.any(String),
    });

    const unknown = new Stockless({ baseUrl: app.url, apiKey: 'sl_test_0000000000000000000000000000000000' });
    await expect(unknown.store.me()).rejects.toMatchObject({ category: 'unauthorized', status: 401 });
    await expect(sdk.products.get(2_000_000_000)).rejects.toMatchObject({
      category: 'not_found',
      status: 404,
    });
    const invalid = await sdk.orders.list({ limit: 10_000 }).catch((e: StocklessError) => e);
    expect(invalid).toMatchObject({ category: 'bad_request', status: 400 });
    expect(invalid instanceof StocklessError && invalid.details?.length).toBeTruthy();
  });

  it('syncs the inventory feed and resumes from the stored cursor with only what changed', async () => {
    const [a, b, c] = products as [number, number, number];
    await sdk.listings.add({ product_id: a });
    await sdk.listings.add({ product_id: b, custom_retail_price_cents: 3900 });

    const sync = sdk.inventory.sync({ limit: 1 });
    const seen: number[] = [];
    for await (const page of sync) seen.push(...page.items.map((i) => i.product_id));
    expect(seen).toEqual(expect.arrayContaining([a, b]));
    const stored = sync.cursor;
    expect(stored).toEqual(expect.any(String));

    await sdk.listings.add({ product_id: c });
    await sdk.listings.remove(a);
    const resumed = sdk.inventory.sync({ cursor: stored });
    const changed = new Map<number, boolean>();
    for await (const page of resumed)
      for (const item of page.items) changed.set(item.product_id, item.listed);
    expect(Object.fromEntries(changed)).toEqual({ [a]: false, [c]: true });
    expect(resumed.cursor).not.toBe(stored);
  });

  it('downloads the invoice of a shipped order as PDF bytes', async () => {
    const [, b] = products as [number, number];
    const placed = await dashboard.internal.orders.checkoutStorefront.mutate({
      storeId: store.id,
      customer: { email: 'buyer@example.com', name: 'Sam Buyer' },
      shipping: SHIPPING,
      items: [{ product_id: b, quantity: 1 }],
    });
    await expect(sdk.orders.invoice(placed.id)).rejects.toMatchObject({
      status: 404,
      code: 'INVOICE_NOT_ISSUED',
    });
    await dashboard.internal.orders.advance.mutate({ orderId: placed.id, status: 'processing' });
    await dashboard.internal.orders.advance.mutate({ orderId: placed.id, status: 'fulfilled' });
    const shipped = await dashboard.internal.orders.advance.mutate({
      orderId: placed.id,
      status: 'shipped',
      tracking: 'TRK-SDK-1',
    });

    const { order } = await sdk.orders.get(placed.id);
    expect(order.invoice_number).toBe(shipped.invoice_number);
    const pdf = await sdk.orders.invoice(placed.id);
    expect(pdf).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  });

  it('posts a marketplace order (created, then existing) and cancels it', async () => {
    const sku = 'SDK-OWN-1';
    await dashboard.internal.listings.createOwnGoods.mutate({
      storeId: store.id,
      sku,
      name: 'SDK Board',
      priceCents: 6900,
      stock: 5,
    });
    const body = {
      marketplace: 'etsy',
      external_order_id: 'SDK-E2E-1',
      placed_at: new Date().toISOString(),
      currency: 'AUD' as const,
      customer: { email: 'buyer@example.com', name: 'Sam Buyer' },
      shipping: SHIPPING,
      items: [{ sku, quantity: 2, price_cents: 6900 }],
      total_cents: 13_800,
    };
    const created = await sdk.externalOrders.post(body);
    expect(created.result).toBe('created');
    const again = await sdk.externalOrders.post(body);
    expect(again).toMatchObject({ result: 'existing', order: { id: created.order?.id } });

    const { order } = await sdk.externalOrders.cancel(created.order?.id ?? 0, { note: 'buyer cancelled' });
    expect(order.status).toBe('cancelled');
  });

  it('manages a webhook, and verifies a delivery signed the way the server signs them', async () => {
    const { webhook } = await sdk.webhooks.create({
      url: 'https://127.0.0.1:9/hooks',
      events: ['order.created'],
    });
    expect(webhook.secret).toMatch(/^whsec_/);
    const { webhooks, valid_events } = await sdk.webhooks.list();
    expect(webhooks.map((w) => w.id)).toContain(webhook.id);
    expect(valid_events).toContain('order.created');

    const raw = JSON.stringify({ event: 'webhook.ping', event_key: 'k', created_at: '', data: {} });
    const headers = signatureHeaders(webhook.secret, raw, 'msg_1');
    expect(verifyWebhook(raw, headers['x-stockless-signature'], webhook.secret).event).toBe('webhook.ping');

    await sdk.webhooks.delete(webhook.id);
    await expect(sdk.webhooks.get(webhook.id)).rejects.toMatchObject({ category: 'not_found' });
  });
});
