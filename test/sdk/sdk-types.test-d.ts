/**
 * Type tests of the SDK, checked by `npm run check` (tsc): every `@ts-expect-error` line must be a
 * compile error, so a misspelt field, a wrong enum value or a missing required field never compiles.
 * Nothing here runs.
 */
import { expectTypeOf } from 'vitest';
import {
  type CatalogueProduct,
  type ErrorCategory,
  type InventoryItem,
  type PostExternalOrderBody,
  Stockless,
  type StocklessError,
  type WebhookEvent,
} from '../../client/src/index.ts';
import { createDashboardClient } from '../../client/src/trpc.ts';

export async function typeChecks(client: Stockless): Promise<void> {
  // Queries: known parameters with their types.
  await client.products.list({ in_stock: true, sort_by: 'margin', limit: 50 });
  // @ts-expect-error misspelt query parameter
  await client.products.list({ in_stok: true });
  // @ts-expect-error a value outside the enum
  await client.products.list({ sort_by: 'price' });
  // @ts-expect-error a boolean parameter given as a string
  await client.orders.list({ attention: 1 });

  // Bodies: closed objects.
  await client.listings.add({ product_id: 1, custom_retail_price_cents: 1999 });
  // @ts-expect-error misspelt body field
  await client.listings.add({ product_id: 1, custom_retail_price: 1999 });
  // @ts-expect-error required field missing
  await client.listings.setPricing(1, {});
  await client.listings.setPricing(1, { custom_retail_price_cents: null });
  const order: PostExternalOrderBody = {
    marketplace: 'etsy',
    external_order_id: 'E-1',
    placed_at: '2026-10-18T00:00:00Z',
    currency: 'AUD',
    customer: { email: 'a@b.example', name: 'A B' },
    shipping: { address: '1 Main St', city: 'Perth', state: 'WA', zip: '6000', country: 'AU' },
    items: [{ sku: 'HH-OWN-001', quantity: 1, price_cents: 6900 }],
    total_cents: 6900,
  };
  await client.externalOrders.post(order);
  // @ts-expect-error unknown body field
  await client.externalOrders.post({ ...order, notes: 'x' });
  // @ts-expect-error misspelt nested field
  await client.externalOrders.post({ ...order, customer: { email: 'a@b.example', name: 'A B', phon: '1' } });
  // @ts-expect-error currency other than AUD
  await client.externalOrders.post({ ...order, currency: 'USD' });

  // Test helpers: a nested group, `to` from the lifecycle's forward statuses only.
  const moved = await client.testHelpers.orders.advance(1, { to: 'delivered', tracking_number: 'T-1' });
  expectTypeOf(moved.order.status).toEqualTypeOf<
    'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled'
  >();
  await client.testHelpers.orders.advance(1);
  // @ts-expect-error cancelling is its own method
  await client.testHelpers.orders.advance(1, { to: 'cancelled' });
  // @ts-expect-error misspelt body field
  await client.testHelpers.orders.advance(1, { tracking: 'T-1' });
  await client.testHelpers.orders.cancel(1);

  // Responses: typed, so a misspelt read is an error too.
  const page = await client.products.list();
  expectTypeOf(page.products).toEqualTypeOf<CatalogueProduct[]>();
  expectTypeOf(page.pagination.total_pages).toBeNumber();
  // @ts-expect-error misspelt response field
  page.products[0]?.nmae;
  const inventory = await client.inventory.list();
  expectTypeOf(inventory.next_cursor).toBeString();
  expectTypeOf(inventory.items).toEqualTypeOf<InventoryItem[]>();
  expectTypeOf(await client.orders.invoice(1)).toEqualTypeOf<Uint8Array>();
  const posted = await client.externalOrders.post(order);
  expectTypeOf(posted.result).toEqualTypeOf<'created' | 'existing' | 'held'>();

  // Iterators yield items.
  for await (const product of client.products.iterate({ limit: 100 }))
    expectTypeOf(product).toEqualTypeOf<CatalogueProduct>();
  for await (const p of client.inventory.sync({ cursor: 'c' })) expectTypeOf(p.has_more).toBeBoolean();

  // Errors and webhooks.
  expectTypeOf<StocklessError['category']>().toEqualTypeOf<ErrorCategory>();
  expectTypeOf<ErrorCategory>().toExtend<string>();
  expectTypeOf<WebhookEvent['event_key']>().toBeString();

  // @ts-expect-error exactly one credential
  new Stockless({ baseUrl: 'x', apiKey: 'a', accessToken: 'b' });

  // The dashboard client is typed by the app router.
  const dashboard = createDashboardClient('http://localhost:3000', 'op');
  const advanced = await dashboard.internal.orders.advance.mutate({
    orderId: 1,
    status: 'shipped',
    tracking: 'T1',
  });
  expectTypeOf(advanced.invoice_number).toEqualTypeOf<string | null>();
  // @ts-expect-error not a status
  await dashboard.internal.orders.advance.mutate({ orderId: 1, status: 'teleported' });
}
