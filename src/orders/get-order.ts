import { jsonBuildObject } from 'kysely/helpers/postgres';
import { db } from '../db/kysely.ts';
import { first, isoTime, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { listColumns, type Orders, toListItem } from './queries.ts';
import type { OrderDetail, OrderIdInput } from './schemas.ts';

/** The order's lines, in the order they were written. */
const items = (eb: Orders) =>
  eb.fn
    .coalesce(
      eb
        .selectFrom('order_lines as l')
        .select((eb) =>
          eb.fn
            .jsonAgg(
              jsonBuildObject({
                product_id: eb.ref('l.product_id'),
                variant_id: eb.ref('l.variant_id'),
                sku: eb.ref('l.sku'),
                name: eb.ref('l.name'),
                quantity: eb.ref('l.quantity'),
                price_cents: eb.ref('l.price_cents'),
                shipped_quantity: eb.ref('l.shipped_quantity'),
              }),
            )
            .orderBy('l.id')
            .as('items'),
        )
        .whereRef('l.order_id', '=', 'o.id')
        .$asScalar(),
      sql<OrderDetail['items']>`'[]'`,
    )
    .as('items');

/**
 * One order of the store, with lines, shipping and invoice fields. Only the EntityManager and the
 * actor: the webhook fan-out builds an order event's payload with it, outside any request.
 */
export async function getOrder(
  ctx: Pick<PartnerContext, 'em' | 'actor'>,
  { id: orderId }: OrderIdInput,
): Promise<{ order: OrderDetail }> {
  const { actor } = ctx;
  const r = await first(
    db(ctx.em)
      .selectFrom('orders as o')
      .select(listColumns)
      .select((eb) => [
        'o.source',
        'o.subtotal_cents',
        'o.shipping_cents',
        'o.cancel_reason',
        isoTime(eb.ref('o.invoice_issued_at'))
          .$castTo<OrderDetail['invoice_issued_at']>()
          .as('invoice_issued_at'),
        'o.ship_address',
        'o.ship_address2',
        'o.ship_city',
        'o.ship_state',
        'o.ship_zip',
        'o.ship_country',
        items(eb),
      ])
      .where('o.id', '=', orderId)
      .where('o.store_id', '=', actor.storeId),
  );
  if (!r) throw notFound(`No order with id ${orderId}`, 'ORDER_NOT_FOUND');
  const { ship_address, ship_address2, ship_city, ship_state, ship_zip, ship_country, ...rest } = r;
  const item = toListItem(rest, actor);
  return {
    order: {
      ...item,
      source: r.source,
      subtotal_cents: r.subtotal_cents,
      shipping_cents: r.shipping_cents,
      gst_cents: Math.round(r.total_cents / 11),
      items: r.items,
      ...(actor.canReadCustomers
        ? {
            shipping: {
              address: ship_address,
              address2: ship_address2,
              city: ship_city,
              state: ship_state,
              zip: ship_zip,
              country: ship_country,
            },
          }
        : {}),
      invoice_issued_at: r.invoice_issued_at,
      cancel_reason: r.cancel_reason,
    },
  };
}
