import type { Expression, SqlBool } from 'kysely';
import { db } from '../db/kysely.ts';
import { first, likePattern, pageOffset, pagination, run, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { listColumns, type Orders, toListItem } from './queries.ts';
import type { ListOrdersInput, OrderListItem } from './schemas.ts';

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

export async function listOrders(ctx: PartnerContext, input: ListOrdersInput) {
  const { em, actor } = ctx;
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
