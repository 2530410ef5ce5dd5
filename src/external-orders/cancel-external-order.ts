import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, run } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { advanceOrder } from '../orders/advance-order.ts';
import { getOrder } from '../orders/get-order.ts';
import type { PartnerContext } from '../trpc/context.ts';
import type { CancelInput } from './schemas.ts';

/**
 * The buyer cancelled on the marketplace. Only orders posted through the external-orders endpoint
 * (403 `NOT_AN_APP_ORDER` for any other order of the store); always reason `marketplace`; stock comes
 * back for lines not shipped and the draft purchase orders are cancelled. Repeating it answers the
 * same cancelled order; a delivered order cannot be cancelled (409).
 */
export async function cancelExternalOrder(ctx: PartnerContext, { id: orderId, note }: CancelInput) {
  const { em, actor } = ctx;
  await em.transactional(async (tx) => {
    const order = await first(
      db(tx)
        .selectFrom('orders')
        .select(['order_type', 'status'])
        .where('id', '=', orderId)
        .where(ownedBy(actor, 'orders'))
        .forUpdate(),
    );
    if (!order) throw notFound(`No order with id ${orderId}`, 'ORDER_NOT_FOUND');
    if (order.order_type !== 'marketplace') {
      throw new AppError(
        'forbidden',
        'NOT_AN_APP_ORDER',
        'Only orders posted through /orders/external can be cancelled here',
      );
    }
    if (order.status === 'cancelled') return;
    if (order.status === 'delivered') {
      throw new AppError('conflict', 'ORDER_NOT_CANCELLABLE', 'A delivered order cannot be cancelled');
    }
    await advanceOrder(
      { ...ctx, em: tx },
      {
        orderId,
        status: 'cancelled',
        note,
        reason: 'marketplace',
        owner: actor,
        cancelShipped: true,
      },
    );
    await run(
      db(tx)
        .updateTable('purchase_orders')
        .set({ status: 'cancelled' })
        .where(ownedBy(actor, 'purchase_orders'))
        .where('order_id', '=', orderId)
        .where('status', '=', 'draft'),
    );
  });
  return getOrder(ctx, { id: orderId });
}
