import { storeActor } from '../auth/actor.ts';
import { EFFECTIVE_PURCHASE_MODE } from '../catalogue/filters.ts';
import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { dispatchPendingEvents } from '../events/dispatch.ts';
import { recordEvents } from '../events/outbox.ts';
import {
  EVENT,
  isCoalescedEvent,
  ORDER_PAYLOAD_EVENTS,
  type TriggerableEvent,
} from '../events/vocabulary/index.ts';
import { postExternalOrder } from '../external-orders/post-external-order.ts';
import { advanceOrder } from '../orders/advance-order.ts';
import { checkoutStorefront } from '../orders/checkout-storefront.ts';
import type { OrderStatus } from '../orders/schemas.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { webhookFanOut } from '../webhooks/fanout.ts';
import type { TriggerEventInput } from './schemas.ts';

/** How far a test order goes for each order event: every status on the way fires its own event too. */
const ORDER_PATH: Partial<Record<TriggerableEvent, OrderStatus[]>> = {
  [EVENT.order.created]: [],
  [EVENT.order.updated]: ['processing'],
  [EVENT.order.fulfilled]: ['processing', 'fulfilled'],
  [EVENT.order.shipped]: ['processing', 'fulfilled', 'shipped'],
  [EVENT.invoice.issued]: ['processing', 'fulfilled', 'shipped'],
  [EVENT.order.completed]: ['processing', 'fulfilled', 'shipped', 'delivered'],
  [EVENT.order.cancelled]: ['cancelled'],
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
      .where(ownedBy({ storeId }, 'listings as l'))
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

/**
 * A test order through the store's checkout, moved along the states the event needs. Each step
 * commits and its events are dispatched before the next: an order event carries the order as it is
 * when dispatched, so a chain in one transaction would send `order.created` already `shipped`.
 */
async function triggerOrderEvent(ctx: UseCaseContext, storeId: number, path: OrderStatus[]) {
  const placed = await ctx.em.transactional(async (tx) => {
    const listing = await sellableListing({ em: tx }, storeId);
    return checkoutStorefront(
      { ...ctx, em: tx },
      {
        storeId,
        livemode: false,
        channel: 'direct',
        ...BUYER,
        items: [{ product_id: listing.product_id, variant_id: listing.variant_id, quantity: 1 }],
      },
    );
  });
  await dispatchOrderEvents(ctx, storeId, placed.id);
  let status: OrderStatus = 'pending';
  for (const to of path) {
    const tracking = to === 'shipped' ? 'TEST-TRACKING-0001' : undefined;
    status = (
      await ctx.em.transactional((tx) =>
        advanceOrder({ ...ctx, em: tx }, { orderId: placed.id, status: to, tracking }),
      )
    ).status;
    await dispatchOrderEvents(ctx, storeId, placed.id);
  }
  return { order: { id: placed.id, order_number: placed.order_number, status } };
}

/** How long a step waits for a worker that took its events to finish rendering them. */
const DISPATCH_WAIT_MS = 5000;

/**
 * Dispatches what is pending (as the worker does: the same dispatcher and fan-out), then waits until
 * none of the order's events is left undispatched: a worker's dispatcher may hold them (SKIP LOCKED),
 * and the next step must not commit before it has read the order.
 */
async function dispatchOrderEvents(ctx: UseCaseContext, storeId: number, orderId: number) {
  await dispatchPendingEvents(ctx.em.fork(), webhookFanOut(ctx.settings.webhooks.coalesceWindowMs));
  const deadline = Date.now() + DISPATCH_WAIT_MS;
  for (;;) {
    const pending = await first(
      db(ctx.em)
        .selectFrom('domain_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('entity_id', '=', String(orderId))
        .where(ownedBy({ storeId, livemode: false }, 'domain_events'))
        .where('event', 'in', ORDER_PAYLOAD_EVENTS)
        .where('dispatched_at', 'is', null),
    );
    if (Number(pending?.n ?? 0) === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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
  if (event === EVENT.site.published || event === EVENT.site.unpublished) {
    const published = event === EVENT.site.published;
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
      .where(ownedBy({ storeId }, 'listings'))
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
  return { product_id: listing.product_id, ...coalescedArrival(ctx, event) };
}

/**
 * Product and inventory events are coalesced per product for the platform's window before they reach
 * the log and webhooks, as live ones are: the trigger says when this one will arrive.
 */
function coalescedArrival(ctx: UseCaseContext, event: TriggerableEvent) {
  if (!isCoalescedEvent(event)) return {};
  const seconds = Math.round(ctx.settings.webhooks.coalesceWindowMs / 1000);
  return {
    arrives_in_seconds: seconds,
    note:
      `${event} events are coalesced per product for ${seconds} s (WEBHOOK_COALESCE_WINDOW), as live ones ` +
      'are: it reaches the event log, listen and webhooks when that window closes, with a running worker.',
  };
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
    : event === EVENT.order.held
      ? await triggerHeldOrder(ctx, storeId)
      : await triggerAnnouncement(ctx, storeId, event);
  return { store_id: storeId, event, livemode: false, ...made };
}
