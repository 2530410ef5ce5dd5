import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import type { Actor } from '../auth/actor.ts';
import { type DB, db } from '../db/kysely.ts';
import { first, isoTime, likePattern, pageOffset, pagination, run, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { ListOrdersInput, OrderDetail, OrderListItem } from './schemas.ts';

/** Every statement here reads orders as `o`: the filters and columns below are written against it. */
type Orders = ExpressionBuilder<DB & { o: DB['orders'] }, 'o'>;

/** An order as the list shows it, the buyer still in flat columns. */
const listColumns = (eb: Orders) =>
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

function toListItem<R extends Buyer>(r: R, actor: Actor) {
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

/** One condition of the list's WHERE, all of them ANDed. */
type Filter = (eb: Orders) => Expression<SqlBool>;

/** The created_at bounds; computed by PostgreSQL from the validated text: no JavaScript Date rounding or range. */
function dateBounds(input: ListOrdersInput): Filter[] {
  const conds: Filter[] = [];
  const start = input.start_date;
  if (start) {
    const from = isBareDate(start)
      ? sql<string>`(${start}::date)::timestamp AT TIME ZONE 'UTC'`
      : sql<string>`${start}::timestamptz`;
    conds.push((eb) => eb('o.created_at', '>=', from));
  }
  const end = input.end_date;
  if (end) {
    // A bare date includes its whole day; a date-time includes its whole millisecond (answers show ms).
    const until = isBareDate(end)
      ? sql<string>`(${end}::date + 1)::timestamp AT TIME ZONE 'UTC'`
      : sql<string>`${end}::timestamptz + interval '1 millisecond'`;
    conds.push((eb) => eb('o.created_at', '<', until));
  }
  return conds;
}

/**
 * Order number, buyer name or email. The concatenation is what the trigram index covers (a
 * superset), spelled as the index is; each field is then checked on its own so a match never spans
 * two fields. Without read_customers, search cannot probe buyer names or emails: order numbers only.
 */
function search(term: string, canReadCustomers: boolean): Filter[] {
  const pattern = likePattern(term);
  if (!canReadCustomers) return [(eb) => eb('o.order_number', 'ilike', pattern)];
  return [
    () =>
      sql<boolean>`(o.order_number || ' ' || o.customer_name || ' ' || o.customer_email) ILIKE ${pattern}`,
    (eb) =>
      eb.or([
        eb('o.order_number', 'ilike', pattern),
        eb('o.customer_name', 'ilike', pattern),
        eb('o.customer_email', 'ilike', pattern),
      ]),
  ];
}

function filters(storeId: number, input: ListOrdersInput, canReadCustomers: boolean): Filter[] {
  const { status, channel } = input;
  return [
    (eb) => eb('o.store_id', '=', storeId),
    ...(status ? [(eb: Orders) => eb('o.status', '=', status)] : []),
    ...(channel ? [(eb: Orders) => eb('o.channel', '=', channel)] : []),
    ...(input.attention ? [(eb: Orders) => eb.ref('o.needs_attention')] : []),
    ...dateBounds(input),
    ...(input.search ? search(input.search, canReadCustomers) : []),
  ];
}

export async function listOrders(em: EntityManager, actor: Actor, input: ListOrdersInput) {
  const conds = filters(actor.storeId, input, actor.canReadCustomers);
  const sort = `o.${input.sort_by}` as const;
  const dir = input.order;
  const counted = conds.reduce(
    (q, cond) => q.where(cond),
    db(em)
      .selectFrom('orders as o')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('total')),
  );
  // The page is chosen on ids from a sort index that carries the filter columns (index-only, so a
  // deep page skips index entries, not order rows), and only its rows are then read.
  const ids = conds
    .reduce((q, cond) => q.where(cond), db(em).selectFrom('orders as o').select('o.id'))
    .orderBy(sort, dir)
    .orderBy('o.id', dir)
    .limit(input.limit)
    .offset(sql<number>`${pageOffset(input.page, input.limit)}`);
  const [count, page] = await Promise.all([
    first(counted),
    run(
      db(em)
        .selectFrom(ids.as('page'))
        .innerJoin('orders as o', 'o.id', 'page.id')
        .select(listColumns)
        .orderBy(sort, dir)
        .orderBy('o.id', dir),
    ),
  ]);
  const orders: OrderListItem[] = page.map((r) => toListItem(r, actor));
  return { orders, pagination: pagination(input.page, input.limit, count?.total ?? 0) };
}

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

/** One order of the store, with lines, shipping and invoice fields. */
export async function getOrder(
  em: EntityManager,
  actor: Actor,
  orderId: number,
): Promise<{ order: OrderDetail }> {
  const r = await first(
    db(em)
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
