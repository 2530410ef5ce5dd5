import type { Selectable } from 'kysely';
import type { Actor } from '../auth/actor.ts';
import type { DB } from '../db/kysely.ts';
import { isoTime, sql } from '../db/sql.ts';
import type { OrderListItem } from './schemas.ts';

/*
 * Raw SQL on purpose: the order list and detail are hot paths, and the same statements built with
 * kysely's builder cost 129 µs (list) and 115 µs (detail) of CPU a request against 32 µs and 9 µs for
 * these templates, measured in-process; the list fell from 81% to 66% of its raw baseline
 * (docs/benchmarks.md). Row types are derived from the answer's schema and the orders table.
 */

/** An order as the list reads it: the answer's fields, with the buyer still in flat columns. */
export type ListRow = Omit<OrderListItem, 'customer' | 'currency'> &
  Pick<Selectable<DB['orders']>, 'currency' | 'customer_email' | 'customer_name' | 'customer_phone'>;

/** The columns of `ListRow`, read from orders as `o`. */
export const LIST_COLUMNS = sql`o.id, o.order_number, o.status, o.order_type, o.channel, o.total_cents, o.currency,
  o.customer_email, o.customer_name, o.customer_phone, o.needs_attention, o.tracking_number, o.invoice_number, o.livemode,
  (SELECT count(*)::integer FROM order_lines ol WHERE ol.order_id = o.id) AS items_count,
  ${isoTime(sql`o.created_at`)} AS created_at, ${isoTime(sql`o.updated_at`)} AS updated_at`;

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
