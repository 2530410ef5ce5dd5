import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import { isoTime, likePattern, pageOffset, pagination, type RawBuilder, rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { ListOrdersInput, OrderDetail, OrderListItem } from './schemas.ts';

const LIST_COLUMNS = sql`o.id, o.order_number, o.status, o.order_type, o.channel, o.total_cents, o.currency,
  o.customer_email, o.customer_name, o.customer_phone, o.needs_attention, o.tracking_number, o.invoice_number,
  (SELECT count(*)::integer FROM order_lines ol WHERE ol.order_id = o.id) AS items_count,
  ${isoTime(sql`o.created_at`)} AS created_at, ${isoTime(sql`o.updated_at`)} AS updated_at`;

type ListRow = Omit<OrderListItem, 'customer' | 'currency'> & {
  currency: string;
  customer_email: string;
  customer_name: string;
  customer_phone: string;
};

function toListItem(r: ListRow, actor: Actor): OrderListItem {
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

const isBareDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

function filters(storeId: number, input: ListOrdersInput, canReadCustomers: boolean): RawBuilder<unknown> {
  const conds: RawBuilder<unknown>[] = [sql`o.store_id = ${storeId}`];
  if (input.status) conds.push(sql`o.status = ${input.status}`);
  if (input.channel) conds.push(sql`o.channel = ${input.channel}`);
  if (input.attention) conds.push(sql`o.needs_attention`);
  // Bounds are computed by PostgreSQL from the validated text: no JavaScript Date rounding or range.
  if (input.start_date) {
    const v = input.start_date;
    conds.push(
      isBareDate(v)
        ? sql`o.created_at >= (${v}::date)::timestamp AT TIME ZONE 'UTC'`
        : sql`o.created_at >= ${v}::timestamptz`,
    );
  }
  if (input.end_date) {
    const v = input.end_date;
    // A bare date includes its whole day; a date-time includes its whole millisecond (answers show ms).
    conds.push(
      isBareDate(v)
        ? sql`o.created_at < (${v}::date + 1)::timestamp AT TIME ZONE 'UTC'`
        : sql`o.created_at < ${v}::timestamptz + interval '1 millisecond'`,
    );
  }
  if (input.search) {
    const pattern = likePattern(input.search);
    // The concatenation is what the trigram index covers (a superset); each field is then checked
    // on its own so a match never spans two fields.
    // Without read_customers, search cannot probe buyer names or emails: order numbers only.
    conds.push(
      canReadCustomers
        ? sql`(o.order_number || ' ' || o.customer_name || ' ' || o.customer_email) ILIKE ${pattern}
          AND (o.order_number ILIKE ${pattern} OR o.customer_name ILIKE ${pattern} OR o.customer_email ILIKE ${pattern})`
        : sql`o.order_number ILIKE ${pattern}`,
    );
  }
  return sql.join(conds, sql` AND `);
}

const SORT = { created_at: sql`o.created_at`, updated_at: sql`o.updated_at`, id: sql`o.id` };

export async function listOrders(em: EntityManager, actor: Actor, input: ListOrdersInput) {
  const where = filters(actor.storeId, input, actor.canReadCustomers);
  const dir = input.order === 'asc' ? sql`ASC` : sql`DESC`;
  const offset = pageOffset(input.page, input.limit);
  const order = sql`${SORT[input.sort_by]} ${dir}, o.id ${dir}`;
  const [count, page] = await Promise.all([
    rows<{ total: number }>(em, sql`SELECT count(*)::integer AS total FROM orders o WHERE ${where}`),
    // The page is chosen on ids from a sort index that carries the filter columns (index-only, so a
    // deep page skips index entries, not order rows), and only its rows are then read.
    rows<ListRow>(
      em,
      sql`SELECT ${LIST_COLUMNS}
        FROM (SELECT o.id FROM orders o WHERE ${where} ORDER BY ${order} LIMIT ${input.limit} OFFSET ${offset}) page
        JOIN orders o ON o.id = page.id
        ORDER BY ${order}`,
    ),
  ]);
  const total = count[0]?.total ?? 0;
  return {
    orders: page.map((r) => toListItem(r, actor)),
    pagination: pagination(input.page, input.limit, total),
  };
}

interface DetailRow extends ListRow {
  source: string | null;
  subtotal_cents: number;
  shipping_cents: number;
  invoice_issued_at: string | null;
  cancel_reason: string | null;
  ship_address: string;
  ship_address2: string;
  ship_city: string;
  ship_state: string;
  ship_zip: string;
  ship_country: string;
  items: OrderDetail['items'];
}

/** One order of the store, with lines, shipping and invoice fields. */
export async function getOrder(
  em: EntityManager,
  actor: Actor,
  orderId: number,
): Promise<{ order: OrderDetail }> {
  const [r] = await rows<DetailRow>(
    em,
    sql`SELECT ${LIST_COLUMNS}, o.source, o.subtotal_cents, o.shipping_cents, o.cancel_reason,
        ${isoTime(sql`o.invoice_issued_at`)} AS invoice_issued_at,
        o.ship_address, o.ship_address2, o.ship_city, o.ship_state, o.ship_zip, o.ship_country,
        COALESCE((SELECT json_agg(json_build_object('product_id', l.product_id, 'variant_id', l.variant_id, 'sku', l.sku,
          'name', l.name, 'quantity', l.quantity, 'price_cents', l.price_cents, 'shipped_quantity', l.shipped_quantity)
          ORDER BY l.id) FROM order_lines l WHERE l.order_id = o.id), '[]') AS items
      FROM orders o WHERE o.id = ${orderId} AND o.store_id = ${actor.storeId}`,
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
