import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { dispatchEntityEvents } from '../events/dispatch.ts';
import { advanceOrder } from '../orders/advance-order.ts';
import { getOrder } from '../orders/get-order.ts';
import type { OrderStatus } from '../orders/schemas.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { webhookFanOut } from '../webhooks/fanout.ts';

/** A test order as a move plans from it, locked for the move. */
export interface LockedTestOrder {
  id: number;
  order_number: string;
  status: OrderStatus;
  tracking_number: string | null;
}

/** One move of the plan: the status, and the tracking number when the move ships. */
export interface Move {
  status: OrderStatus;
  tracking?: string;
}

/**
 * Moves one of the caller's test orders through `plan` (the moves it makes of the order as locked), in
 * one transaction, each move by advanceOrder as an operator's is. After each move its events are
 * dispatched in the same transaction, so the event log and webhooks get every event with the order as
 * that move left it (dispatched later, all would show the last status), and so the order's earlier
 * events (order.created) go first. A refusal anywhere rolls back everything: nothing is half moved.
 * Answers the order as GET /api/v1/orders/{id} does.
 */
export async function moveTestOrder(
  ctx: PartnerContext,
  orderId: number,
  plan: (order: LockedTestOrder) => Move[],
) {
  const { actor } = ctx;
  const fanOut = webhookFanOut(ctx.settings.webhooks.coalesceWindowMs);
  return ctx.em.transactional(async (tx) => {
    const order = await lockTestOrder(tx, ctx, orderId);
    const moves = plan(order);
    const dispatch = () => dispatchEntityEvents(tx, { owner: actor, entityId: order.id }, fanOut);
    await dispatch();
    for (const { status, tracking } of moves) {
      await advanceOrder({ em: tx }, { orderId: order.id, status, tracking, owner: actor });
      await dispatch();
    }
    return getOrder({ em: tx, actor }, { id: order.id });
  });
}

/** The order, if it is the caller's (store and mode: a test key never sees a live order), locked. */
async function lockTestOrder(tx: EntityManager, { actor }: PartnerContext, orderId: number) {
  const order = await first(
    db(tx)
      .selectFrom('orders as o')
      .select(['o.id', 'o.order_number', 'o.status', 'o.tracking_number'])
      .where('o.id', '=', orderId)
      .where(ownedBy(actor, 'orders as o'))
      .forUpdate('o'),
  );
  if (!order) throw notFound(`No order with id ${orderId}`, 'ORDER_NOT_FOUND');
  return order as LockedTestOrder;
}
