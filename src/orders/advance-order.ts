import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { type Owner, ownedBy } from '../db/owned-by.ts';
import { first, run, sql } from '../db/sql.ts';
import { AppError, field, notFound } from '../errors.ts';
import { type DomainEvent, domainEvent, recordEvents } from '../events/outbox.ts';
import { EVENT, type OrderPayloadEvent } from '../events/vocabulary/index.ts';
import { queueMail } from '../mail/outbox.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { takeInvoiceNumber } from './invoice-number.ts';
import { releaseStock } from './reserve.ts';
import type { AdvanceOrderInput, OrderStatus } from './schemas.ts';

/** Statuses move one step forward along the chain; the first three may also be cancelled. */
const NEXT: Record<OrderStatus, OrderStatus | null> = {
  pending: 'processing',
  processing: 'fulfilled',
  fulfilled: 'shipped',
  shipped: 'delivered',
  delivered: null,
  cancelled: null,
};
const CANCELLABLE: OrderStatus[] = ['pending', 'processing', 'fulfilled'];

/**
 * The statuses an order passes through, one move at a time, from `from` to `to` (or the next one when
 * `to` is absent); empty when `to` is not ahead of it. For callers that move an order several steps
 * (the test helpers), each step still made by advanceOrder.
 */
export function forwardPath(from: OrderStatus, to?: OrderStatus): OrderStatus[] {
  const path: OrderStatus[] = [];
  for (let s = NEXT[from]; s; s = NEXT[s]) {
    path.push(s);
    if (to === undefined || s === to) return path;
  }
  return [];
}

/** The state machine's refusal of a move: the one code and message every caller answers with. */
export function invalidTransition(order: { order_number: string; status: OrderStatus }, to?: OrderStatus) {
  const next = NEXT[order.status];
  const options = [next, CANCELLABLE.includes(order.status) ? 'cancelled' : null].filter(Boolean);
  return new AppError(
    'conflict',
    'INVALID_TRANSITION',
    `Order ${order.order_number} is ${order.status}; it can move to ${options.join(' or ') || 'nothing'}${to ? `, not ${to}` : ''}`,
    { extra: { status: order.status } },
  );
}

/** The event each status announces; processing has none of its own. */
const ANNOUNCED: Partial<Record<OrderStatus, OrderPayloadEvent>> = {
  processing: EVENT.order.updated,
  fulfilled: EVENT.order.fulfilled,
  shipped: EVENT.order.shipped,
  delivered: EVENT.order.completed,
  cancelled: EVENT.order.cancelled,
};

/**
 * What another use case may add to the operator's move, never part of the procedure's input: the
 * reason of a cancellation, the store the order must belong to, a cancellation after shipping.
 */
export interface AdvanceOptions {
  reason?: string;
  /** Refuse unless the order is this owner's (partner callers). */
  owner?: Owner;
  /** A marketplace buyer's cancellation may come after shipping (stock returns only for unshipped lines). */
  cancelShipped?: boolean;
}

/** The order, locked for its move, with what the move and its mail need. */
async function lockOrder(tx: EntityManager, orderId: number, owner?: Owner) {
  const order = db(tx)
    .selectFrom('orders as o')
    .innerJoin('stores as s', 's.id', 'o.store_id')
    .select((eb) => [
      'o.id',
      'o.store_id',
      'o.status',
      'o.tracking_number',
      'o.invoice_number',
      'o.order_number',
      'o.customer_email',
      'o.customer_name',
      eb.ref('s.name').as('store_name'),
      eb.ref('s.owner_email').as('store_email'),
      'o.order_type',
      'o.livemode',
    ])
    .where('o.id', '=', orderId);
  const locked = await first(
    (owner === undefined ? order : order.where(ownedBy(owner, 'orders as o'))).forUpdate('o'),
  );
  if (!locked) throw notFound(`No order with id ${orderId}`, 'ORDER_NOT_FOUND');
  return locked;
}

type Locked = Awaited<ReturnType<typeof lockOrder>>;

/**
 * Moves an order to `status`, enforcing the state machine. Shipping needs a tracking number, marks every
 * line shipped and issues the tax invoice in the same transaction (and queues it to the buyer).
 * Cancelling returns stock for lines not shipped.
 */
export async function advanceOrder(
  ctx: Pick<UseCaseContext, 'em'>,
  input: AdvanceOrderInput & AdvanceOptions,
) {
  const { orderId, status: to, ...opts } = input;
  return ctx.em.transactional(async (tx) => {
    const order = await lockOrder(tx, orderId, opts.owner);
    const tracking = checkTransition(order, to, opts);
    const events: DomainEvent[] = [];
    const event = (name: OrderPayloadEvent) =>
      events.push(
        domainEvent(name, {
          storeId: order.store_id,
          livemode: order.livemode,
          entityId: order.id,
          data: { order_id: order.id },
        }),
      );

    let invoice: string | null = null;
    if (to === 'shipped') {
      await run(
        db(tx)
          .updateTable('order_lines')
          .set((eb) => ({ shipped_quantity: eb.ref('quantity') }))
          .where('order_id', '=', order.id),
      );
      // Stockless is merchant of record for the orders it fulfils; own-goods marketplace orders are the store's.
      if (order.order_type !== 'marketplace') invoice = await takeInvoiceNumber(tx, order.livemode);
    }
    // A test order took no stock, so it gives none back.
    if (to === 'cancelled' && order.livemode) await releaseOpenLines(tx, order.id);
    await moveOrder(tx, order.id, to, { tracking, invoice, reason: opts.reason });
    await run(
      db(tx)
        .insertInto('order_status_history')
        .values({ order_id: order.id, from_status: order.status, to_status: to, note: opts.note ?? null }),
    );
    event(ANNOUNCED[to] ?? EVENT.order.updated);
    if (invoice) {
      event(EVENT.invoice.issued);
      // Test mode mails nobody: the invoice is there to read through the API.
      if (order.livemode) await mailInvoice(tx, order, invoice, tracking as string);
    }
    await recordEvents(tx, events);
    return {
      id: order.id,
      order_number: order.order_number,
      status: to,
      // What the order holds after this step: a delivered order keeps the tracking and invoice of its shipping.
      tracking_number: tracking ?? order.tracking_number ?? null,
      invoice_number: invoice ?? order.invoice_number ?? null,
    };
  });
}

/** Gives back the stock of the lines not shipped. */
async function releaseOpenLines(tx: EntityManager, orderId: number) {
  const lines = await run(
    db(tx)
      .selectFrom('order_lines')
      .select((eb) => ['variant_id', eb('quantity', '-', eb.ref('shipped_quantity')).as('open')])
      .where('order_id', '=', orderId),
  );
  await releaseStock(
    tx,
    lines.map((l) => ({ variantId: l.variant_id, quantity: l.open })),
  );
}

/**
 * The order's new status and what comes with it: an invoice number is set only once (a shipped
 * order keeps its first), and a cancellation records its reason and time.
 */
async function moveOrder(
  tx: EntityManager,
  orderId: number,
  to: OrderStatus,
  change: { tracking: string | null; invoice: string | null; reason?: string },
) {
  const invoice = change.invoice;
  await run(
    db(tx)
      .updateTable('orders')
      .set((eb) => ({
        status: to,
        updated_at: sql`now()`,
        tracking_number: change.tracking,
        ...(invoice !== null && {
          invoice_number: eb.fn.coalesce('invoice_number', eb.val(invoice)),
          invoice_issued_at: eb
            .case()
            .when('invoice_number', 'is', null)
            .then(sql<string>`now()`)
            .else(eb.ref('invoice_issued_at'))
            .end(),
        }),
        ...(to === 'cancelled' && { cancel_reason: change.reason ?? 'merchant', cancelled_at: sql`now()` }),
      }))
      .where('id', '=', orderId),
  );
}

/** Refuses a move the state machine forbids, or shipping without tracking; returns the tracking number. */
function checkTransition(
  order: Locked,
  to: OrderStatus,
  opts: Pick<AdvanceOrderInput & AdvanceOptions, 'tracking' | 'cancelShipped'>,
): string | null {
  const cancellable: OrderStatus[] = opts.cancelShipped ? [...CANCELLABLE, 'shipped'] : CANCELLABLE;
  const allowed = to === 'cancelled' ? cancellable.includes(order.status) : NEXT[order.status] === to;
  if (!allowed) throw invalidTransition(order, to);
  const tracking = opts.tracking?.trim() || order.tracking_number;
  if (to === 'shipped' && !tracking) {
    throw new AppError('bad_request', 'TRACKING_REQUIRED', 'A tracking number is needed to ship an order', {
      details: field('tracking', 'required to ship'),
    });
  }
  return tracking ?? null;
}

/**
 * The invoice goes to whoever it is issued to: the buyer, or the store for a wholesale order (never
 * the store's customer, who must not see wholesale prices).
 */
async function mailInvoice(tx: EntityManager, order: Locked, invoice: string, tracking: string) {
  const wholesale = order.order_type === 'wholesale_api';
  const to = wholesale ? order.store_email : order.customer_email;
  if (!to) return;
  await queueMail(tx, {
    storeId: order.store_id,
    kind: 'invoice',
    to,
    subject: `Your tax invoice ${invoice} for order ${order.order_number}`,
    text: wholesale
      ? `Hello ${order.store_name},\n\nYour wholesale order ${order.order_number} has shipped (tracking ${tracking}). ` +
        `The tax invoice ${invoice} from Stockless is attached.\n\nStockless`
      : `Hello ${order.customer_name},\n\nYour order ${order.order_number} from ${order.store_name} has shipped ` +
        `(tracking ${tracking}). Your tax invoice ${invoice} from Stockless is attached.\n\nStockless, on behalf of ${order.store_name}`,
    orderId: order.id,
  });
}
