import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetMyProductResponse, GetProductResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { sendQueuedMail } from '../../src/mail/smtp-sender.ts';
import { advanceOrder } from '../../src/orders/advance-order.ts';
import { checkoutStorefront } from '../../src/orders/checkout-storefront.ts';
import { invoiceAttachments } from '../../src/orders/tax-invoice.ts';
import { startTestApp, TEST_MAIL, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/** Cases found in review: each failed (a 500, a leak or a wrong answer) before its fix. */
let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let fx: ReturnType<typeof fixtures>;
let supplier: number;

const SHIPPING = { address: '1 Test St', city: 'Perth', state: 'WA', zip: '6000', country: 'AU' };
const CUSTOMER = { email: 'buyer@example.com', name: 'Buyer One', phone: '0400' };

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Regressions');
  fx = fixtures(app.em());
  supplier = await fx.supplier();
});
afterAll(() => app.close());

describe('regressions', () => {
  it('computes the minimum price of an expensive product without integer overflow', async () => {
    const id = await fx.product({ supplierId: supplier, wholesale: 250_000, retail: 400_000 });
    await rows(app.em(), sql`UPDATE stores SET min_margin_bps = 2500 WHERE id = ${store.id}`);
    const res = await app.get<GetProductResponse>(`/api/v1/products/${id}`, store.read);
    expect(res.status).toBe(200);
    expect(res.body.product.minimum_price_cents).toBe(312_500);
    await rows(app.em(), sql`UPDATE stores SET min_margin_bps = 0 WHERE id = ${store.id}`);
  });

  it('answers a NUL character in an order body with a 400, not a 500', async () => {
    const id = await fx.product({ supplierId: supplier, stock: [5] });
    for (const body of [
      {
        customer: { ...CUSTOMER, name: 'A\u0000B' },
        items: [{ product_id: id, quantity: 1 }],
        shipping: SHIPPING,
      },
      {
        customer: CUSTOMER,
        items: [{ product_id: id, quantity: 1 }],
        shipping: { ...SHIPPING, address2: 'x\u0000' },
      },
    ]) {
      const res = await app.request('/api/v1/orders', { method: 'POST', key: store.readWrite, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    }
  });

  it('refuses a time-zone offset PostgreSQL cannot read (±16:00 and beyond) with a 400', async () => {
    for (const q of ['start_date=2026-01-01T00:00:00-16:00', 'end_date=2026-01-01T00:00:00%2B23:00']) {
      expect((await app.get(`/api/v1/orders?${q}`, store.read)).status, q).toBe(400);
    }
    expect((await app.get('/api/v1/orders?start_date=2026-01-01T00:00:00%2B14:00', store.read)).status).toBe(
      200,
    );
  });

  it('answers a response that fails its own schema with a bare 500, never a 400 blaming the caller', async () => {
    const id = await fx.product({ supplierId: supplier, stock: [1] });
    await rows(
      app.em(),
      sql`UPDATE product_variants SET option_values = '{"Size": 42}' WHERE product_id = ${id}`,
    );
    const res = await app.get<ErrorBody>(`/api/v1/products/${id}`, store.read);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: 'server_error',
      code: 'INTERNAL_ERROR',
      message: 'Internal server error',
      doc_url: 'http://stockless.test/docs/errors/INTERNAL_ERROR',
      request_id: res.body.request_id,
    });
  });

  it('keeps a product that became quote-only in the catalogue quote-only in every store', async () => {
    const id = await fx.product({ supplierId: supplier, stock: [5] });
    await fx.listing(store.id, id);
    await rows(
      app.em(),
      sql`UPDATE listings SET purchase_mode = 'buy_now' WHERE store_id = ${store.id} AND product_id = ${id}`,
    );
    await rows(app.em(), sql`UPDATE products SET purchase_mode = 'enquiry' WHERE id = ${id}`);
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${id}`, store.read);
    expect(listing.body.product.purchase_mode).toBe('enquiry');
    expect(listing.body.product.variants[0]?.available_for_sale).toBe(false);
    await expect(
      checkoutStorefront(
        { em: app.em() },
        {
          storeId: store.id,
          channel: 'direct',
          customer: CUSTOMER,
          shipping: { ...SHIPPING, address2: '' },
          items: [{ product_id: id, quantity: 1 }],
        },
      ),
    ).rejects.toMatchObject({ appCode: 'PRODUCT_NOT_FOR_SALE' });
  });

  it("bills a wholesale order's invoice to the store and mails it to the store, never to its customer", async () => {
    await rows(
      app.em(),
      sql`UPDATE stores SET owner_email = 'owner@regressions.test' WHERE id = ${store.id}`,
    );
    const id = await fx.product({ supplierId: supplier, stock: [5], wholesale: 1000 });
    const res = await app.request('/api/v1/orders', {
      method: 'POST',
      key: store.readWrite,
      body: { customer: CUSTOMER, items: [{ product_id: id, quantity: 1 }], shipping: SHIPPING },
    });
    expect(res.status).toBe(201);
    const { order } = (await res.json()) as { order: { id: number } };
    await advanceOrder({ em: app.em() }, { orderId: order.id, status: 'processing' });
    await advanceOrder({ em: app.em() }, { orderId: order.id, status: 'fulfilled' });
    await advanceOrder({ em: app.em() }, { orderId: order.id, status: 'shipped', tracking: 'TRK1' });
    const mail = await rows<{ to_address: string }>(
      app.em(),
      sql`SELECT to_address FROM mail_outbox WHERE order_id = ${order.id}`,
    );
    expect(mail.map((m) => m.to_address)).toEqual(['owner@regressions.test']);
    await sendQueuedMail(app.em(), TEST_MAIL, invoiceAttachments(TEST_MAIL.merchant));
    const pdf = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.read });
    const { extractText } = await import('unpdf');
    const text = (await extractText(new Uint8Array(await pdf.arrayBuffer()), { mergePages: true })).text;
    expect(text).toMatch(/Bill to\s+Regressions\s+owner@regressions\.test/);
    expect(text).toMatch(/Ship to\s+Buyer One/);
    expect(text).not.toContain('buyer@example.com');
  });
});
