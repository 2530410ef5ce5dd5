import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { type DomainEvent, recordEvents } from '../events/outbox.ts';
import { queueMail } from '../mail/outbox.ts';
import { takeInvoiceNumber } from './invoice-number.ts';
import { releaseStock } from './reserve.ts';
import type { OrderStatus } from './schemas.ts';

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

/** The event each status announces; processing has none of its own. */
const EVENT: Partial<Record<OrderStatus, string>> = {
  processing: 'order.updated',
  fulfilled: 'order.fulfilled',
  shipped: 'order.shipped',
  delivered: 'order.completed',
  cancelled: 'order.cancelled',
};

export interface AdvanceOptions {
  tracking?: string;
  reason?: string;
  note?: string;
  /** Refuse unless the order belongs to this store (partner callers). */
  storeId?: number;
  /** A marketplace buyer's cancellation may come after shipping (stock returns only for unshipped lines). */
  cancelShipped?: boolean;
}

interface Locked {
  id: number;
  store_id: number;
  status: OrderStatus;
  tracking_number: string | null;
  order_number: string;
  customer_email: string;
  customer_name: string;
  store_name: string;
  store_email: string | null;
  order_type: string;
}

export async function lockOrder(tx: EntityManager, orderId: number, storeId?: number): Promise<Locked> {
  const [order] = await rows<Locked>(
    tx,
    sql`SELECT o.id, o.store_id, o.status, o.tracking_number, o.order_number, o.customer_email, o.customer_name,
        s.name AS store_name, s.owner_email AS store_email, o.order_type
      FROM orders o JOIN stores s ON s.id = o.store_id
      WHERE o.id = ${orderId} ${storeId === undefined ? sql`` : sql`AND o.store_id = ${storeId}`}
      FOR UPDATE OF o`,
  );
  if (!order) throw notFound(`No order with id ${orderId}`, 'ORDER_NOT_FOUND');
  return order;
}

/**
 * Moves an order to `to`, enforcing the state machine. Shipping needs a tracking number, marks every
 * line shipped and issues the tax invoice in the same transaction (and queues it to the buyer).
 * Cancelling returns stock for lines not shipped.
 */
export async function advanceOrder(
  em: EntityManager,
  orderId: number,
  to: OrderStatus,
  opts: AdvanceOptions = {},
) {
  return em.transactional(async (tx) => {
    const order = await lockOrder(tx, orderId, opts.storeId);
    const tracking = checkTransition(order, to, opts);
    const events: DomainEvent[] = [];
    const event = (name: string) =>
      events.push({ storeId: order.store_id, event: name, entityId: order.id, data: { order_id: order.id } });

    let invoice: string | null = null;
    if (to === 'shipped') {
      await rows(tx, sql`UPDATE order_lines SET shipped_quantity = quantity WHERE order_id = ${order.id}`);
      // Stockless is merchant of record for the orders it fulfils; own-goods marketplace orders are the store's.
      if (order.order_type !== 'marketplace') invoice = await takeInvoiceNumber(tx);
    }
    if (to === 'cancelled') {
      const lines = await rows<{ variant_id: number; open: number }>(
        tx,
        sql`SELECT variant_id, quantity - shipped_quantity AS open FROM order_lines WHERE order_id = ${order.id}`,
      );
      await releaseStock(
        tx,
        lines.map((l) => ({ variantId: l.variant_id, quantity: l.open })),
      );
    }
    await rows(
      tx,
      sql`UPDATE orders SET status = ${to}, updated_at = now(), tracking_number = ${tracking ?? null},
          invoice_number = COALESCE(invoice_number, ${invoice}),
          invoice_issued_at = CASE WHEN ${invoice}::text IS NOT NULL AND invoice_number IS NULL THEN now() ELSE invoice_issued_at END,
          cancel_reason = CASE WHEN ${to} = 'cancelled' THEN ${opts.reason ?? 'merchant'} ELSE cancel_reason END,
          cancelled_at = CASE WHEN ${to} = 'cancelled' THEN now() ELSE cancelled_at END
        WHERE id = ${order.id}`,
    );
    await rows(
      tx,
      sql`INSERT INTO order_status_history (order_id, from_status, to_status, note)
        VALUES (${order.id}, ${order.status}, ${to}, ${opts.note ?? null})`,
    );
    event(EVENT[to] ?? 'order.updated');
    if (invoice) {
      event('invoice.issued');
      await mailInvoice(tx, order, invoice, tracking as string);
    }
    await recordEvents(tx, events);
    return {
      id: order.id,
      order_number: order.order_number,
      status: to,
      tracking_number: tracking ?? null,
      invoice_number: invoice,
    };
  });
}

/** Refuses a move the state machine forbids, or shipping without tracking; returns the tracking number. */
function checkTransition(order: Locked, to: OrderStatus, opts: AdvanceOptions): string | null {
  const cancellable: OrderStatus[] = opts.cancelShipped ? [...CANCELLABLE, 'shipped'] : CANCELLABLE;
  const allowed = to === 'cancelled' ? cancellable.includes(order.status) : NEXT[order.status] === to;
  if (!allowed) {
    const next = NEXT[order.status];
    throw new AppError(
      'conflict',
      'INVALID_TRANSITION',
      `Order ${order.order_number} is ${order.status}; it can move to ${[next, CANCELLABLE.includes(order.status) ? 'cancelled' : null].filter(Boolean).join(' or ') || 'nothing'}, not ${to}`,
      { extra: { status: order.status } },
    );
  }
  const tracking = opts.tracking?.trim() || order.tracking_number;
  if (to === 'shipped' && !tracking) {
    throw new AppError('bad_request', 'TRACKING_REQUIRED', 'A tracking number is needed to ship an order');
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
