import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Actor } from '../auth/actor.ts';
import type { DB } from '../db/kysely.ts';
import { isoTime } from '../db/sql.ts';
import type { OrderListItem } from './schemas.ts';

/** Every order statement reads orders as `o`: the filters and columns are written against it. */
export type Orders = ExpressionBuilder<DB & { o: DB['orders'] }, 'o'>;

/** An order as the list shows it, the buyer still in flat columns. */
export const listColumns = (eb: Orders) =>
  [
    'o.id',
    'o.order_number',
    'o.status',
    'o.order_type',
    'o.channel',
    'o.total_cents',
    'o.currency',
    'o.customer_email',
    'o.customer_name',
    'o.customer_phone',
    'o.needs_attention',
    'o.tracking_number',
    'o.invoice_number',
    eb
      .selectFrom('order_lines as ol')
      .select((eb) => eb.cast<OrderListItem['items_count']>(eb.fn.countAll(), 'integer').as('n'))
      .whereRef('ol.order_id', '=', 'o.id')
      .$asScalar()
      .as('items_count'),
    isoTime(eb.ref('o.created_at')).as('created_at'),
    isoTime(eb.ref('o.updated_at')).as('updated_at'),
  ] as const;

type Buyer = Pick<
  Selectable<DB['orders']>,
  'currency' | 'customer_email' | 'customer_name' | 'customer_phone'
>;

export function toListItem<R extends Buyer>(r: R, actor: Actor) {
  const { customer_email, customer_name, customer_phone, ...rest } = r;
  return {
    ...rest,
    currency: r.currency.trim(),
    // Buyer details only for credentials that may read customers.
    ...(actor.canReadCustomers
      ? { customer: { email: customer_email, name: customer_name, phone: customer_phone } }
      : {}),
  };
}
