import type { Selectable } from 'kysely';
import type { DB } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { isoTime, rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { LIST_COLUMNS, type ListRow, toListItem } from './queries.ts';
import type { OrderDetail, OrderIdInput } from './schemas.ts';

/** The detail's row: the list's, with shipping, invoice and the lines (see queries.ts for why raw SQL). */
type DetailRow = ListRow &
  Pick<
    Selectable<DB['orders']>,
    | 'source'
    | 'subtotal_cents'
    | 'shipping_cents'
    | 'cancel_reason'
    | 'ship_address'
    | 'ship_address2'
    | 'ship_city'
    | 'ship_state'
    | 'ship_zip'
    | 'ship_country'
  > &
  Pick<OrderDetail, 'invoice_issued_at' | 'items'>;

/**
 * One order of the store, with lines, shipping and invoice fields. Only the EntityManager and the
 * actor: the webhook fan-out builds an order event's payload with it, outside any request.
 */
export async function getOrder(
  ctx: Pick<PartnerContext, 'em' | 'actor'>,
  { id: orderId }: OrderIdInput,
): Promise<{ order: OrderDetail }> {
  const { actor } = ctx;
  const [r] = await rows<DetailRow>(
    ctx.em,
    sql`SELECT ${LIST_COLUMNS}, o.source, o.subtotal_cents, o.shipping_cents, o.cancel_reason,
        ${isoTime(sql`o.invoice_issued_at`)} AS invoice_issued_at,
        o.ship_address, o.ship_address2, o.ship_city, o.ship_state, o.ship_zip, o.ship_country,
        COALESCE((SELECT json_agg(json_build_object('product_id', l.product_id, 'variant_id', l.variant_id, 'sku', l.sku,
          'name', l.name, 'quantity', l.quantity, 'price_cents', l.price_cents, 'shipped_quantity', l.shipped_quantity)
          ORDER BY l.id) FROM order_lines l WHERE l.order_id = o.id), '[]') AS items
      FROM orders o WHERE o.id = ${orderId} AND ${ownedBy(actor, 'orders as o')}`,
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
