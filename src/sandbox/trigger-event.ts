import { storeActor } from '../auth/actor.ts';
import { EFFECTIVE_PURCHASE_MODE } from '../catalogue/filters.ts';
import { db } from '../db/kysely.ts';
import { first, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { postExternalOrder } from '../external-orders/post-external-order.ts';
import { advanceOrder } from '../orders/advance-order.ts';
import { checkoutStorefront } from '../orders/checkout-storefront.ts';
import type { OrderStatus } from '../orders/schemas.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { TriggerableEvent, TriggerEventInput } from './schemas.ts';

/** How far a test order goes for each order event: every status on the way fires its own event too. */
const ORDER_PATH: Partial<Record<TriggerableEvent, OrderStatus[]>> = {
  'order.created': [],
  'order.updated': ['processing'],
  'order.fulfilled': ['processing', 'fulfilled'],
  'order.shipped': ['processing', 'fulfilled', 'shipped'],
  'invoice.issued': ['processing', 'fulfilled', 'shipped'],
  'order.completed': ['processing', 'fulfilled', 'shipped', 'delivered'],
  'order.cancelled': ['cancelled'],
};

const BUYER = {
  customer: { email: 'test.buyer@example.com', name: 'Test Buyer', phone: '+61 400 000 000' },
  shipping: {
    address: '1 Test Street',
    address2: '',
    city: 'Sydney',
    state: 'NSW',
    zip: '2000',
    country: 'AU',
  },
};

/** A product the store sells by card and has in stock: what a test checkout buys. */
async function sellableListing(ctx: Pick<UseCaseContext, 'em'>, storeId: number) {
  const found = await first(
    db(ctx.em)
      .selectFrom('listings as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .innerJoin('product_variants as v', 'v.product_id', 'p.id')
      .select(['l.product_id', 'v.id as variant_id'])
      .where('l.store_id', '=', storeId)
      .where('l.deleted_at', 'is', null)
      .where('p.active', '=', true)
      .where('v.retired_at', 'is', null)
      .where('v.stock_quantity', '>', 0)
      .where(sql<boolean>`${EFFECTIVE_PURCHASE_MODE} = 'buy_now'`)
      .where(sql<boolean>`NOT ('storefront' = ANY (p.hidden_channels || l.hidden_channels))`)
      .orderBy('l.id')
      .limit(1),
  );
  if (!found) {
    throw new AppError(
      'conflict',
      'NOTHING_TO_SELL',
      `Store ${storeId} lists nothing a buyer can check out (in stock, sold by card, on the storefront): list a product first`,
    );
  }
  return found;
}

/** A test order through the store's checkout, moved along the states the event needs. */
async function triggerOrderEvent(ctx: UseCaseContext, storeId: number, path: OrderStatus[]) {
  // One transaction: a step that fails leaves no half-moved test order, and no event of it.
  return ctx.em.transactional((tx) => moveTestOrder({ ...ctx, em: tx }, storeId, path));
}

async function moveTestOrder(ctx: UseCaseContext, storeId: number, path: OrderStatus[]) {
  const listing = await sellableListing(ctx, storeId);
  const placed = await checkoutStorefront(ctx, {
    storeId,
    livemode: false,
    channel: 'direct',
    ...BUYER,
    items: [{ product_id: listing.product_id, variant_id: listing.variant_id, quantity: 1 }],
  });
  let status: OrderStatus = 'pending';
  for (const to of path) {
    const tracking = to === 'shipped' ? 'TEST-TRACKING-0001' : undefined;
    status = (await advanceOrder(ctx, { orderId: placed.id, status: to, tracking })).status;
  }
  return { order: { id: placed.id, order_number: placed.order_number, status } };
}

/** A test marketplace post whose SKU is mapped to nothing: held, as a real one would be. */
async function triggerHeldOrder(ctx: UseCaseContext, storeId: number) {
  const actor = storeActor(storeId, false);
  const externalId = `TEST-${Date.now().toString(36)}`;
  const posted = await postExternalOrder(
    { ...ctx, actor },
    {
      marketplace: 'sandbox',
      external_order_id: externalId,
      placed_at: new Date().toISOString(),
      currency: 'AUD',
      ...BUYER,
      items: [{ sku: `UNMAPPED-${externalId}`, quantity: 1, price_cents: 1000 }],
      total_cents: 1000,
    },
  );
  return { marketplace: 'sandbox', external_order_id: externalId, result: posted.result };
}

/**
 * A test event about one of the store's listed products, or its storefront: announced, not made, so
 * the live catalogue, stock and storefront every buyer shares stay as they are.
 */
async function triggerAnnouncement(ctx: UseCaseContext, storeId: number, event: TriggerableEvent) {
  if (event === 'site.published' || event === 'site.unpublished') {
    const published = event === 'site.published';
    const data = { store_id: storeId, published, published_at: published ? new Date().toISOString() : null };
    await ctx.em.transactional((tx) =>
      recordEvents(tx, [{ storeId, livemode: false, event, entityId: storeId, data }]),
    );
    return { store_id: storeId };
  }
  const listing = await first(
    db(ctx.em)
      .selectFrom('listings')
      .select('product_id')
      .where('store_id', '=', storeId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .limit(1),
  );
  if (!listing)
    throw new AppError('conflict', 'NOTHING_LISTED', `Store ${storeId} lists no product: list one first`);
  const data = { product_id: listing.product_id };
  await ctx.em.transactional((tx) =>
    recordEvents(tx, [{ storeId, livemode: false, event, entityId: listing.product_id, data }]),
  );
  return { product_id: listing.product_id };
}

/**
 * `cli trigger <event>`: makes an event of that kind happen on the store, in test mode. Order and
 * invoice events come from a real test order (checkout, then the state machine; no stock taken, no
 * mail); `order.held` from a test marketplace post that cannot be mapped; product, inventory and site
 * events are test events about the store's real listing or storefront, which stay unchanged. Every
 * event goes through the event log and the store's test webhook subscriptions like any other.
 */
export async function triggerEvent(ctx: UseCaseContext, { storeId, event }: TriggerEventInput) {
  const store = await first(db(ctx.em).selectFrom('stores').select('id').where('id', '=', storeId));
  if (!store) throw notFound(`No store with id ${storeId}`, 'STORE_NOT_FOUND');
  const path = ORDER_PATH[event];
  const made = path
    ? await triggerOrderEvent(ctx, storeId, path)
    : event === 'order.held'
      ? await triggerHeldOrder(ctx, storeId)
      : await triggerAnnouncement(ctx, storeId, event);
  return { store_id: storeId, event, livemode: false, ...made };
}
