import type { Actor } from '../auth/actor.ts';
import { likePattern, pageOffset, pagination, type RawBuilder, rows, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { LIST_COLUMNS, type ListRow, toListItem } from './queries.ts';
import type { ListOrdersInput, OrderListItem } from './schemas.ts';

const isBareDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

/** The created_at bounds, computed by PostgreSQL from the validated text: no JavaScript Date rounding or range. */
function dateBounds(input: ListOrdersInput): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [];
  const start = input.start_date;
  if (start) {
    conds.push(
      isBareDate(start)
        ? sql`o.created_at >= (${start}::date)::timestamp AT TIME ZONE 'UTC'`
        : sql`o.created_at >= ${start}::timestamptz`,
    );
  }
  const end = input.end_date;
  // A bare date includes its whole day; a date-time includes its whole millisecond (answers show ms).
  if (end) {
    conds.push(
      isBareDate(end)
        ? sql`o.created_at < (${end}::date + 1)::timestamp AT TIME ZONE 'UTC'`
        : sql`o.created_at < ${end}::timestamptz + interval '1 millisecond'`,
    );
  }
  return conds;
}

/**
 * Order number, buyer name or email. The concatenation is what the trigram index covers (a
 * superset); each field is then checked on its own so a match never spans two fields. Without
 * read_customers, search cannot probe buyer names or emails: order numbers only.
 */
function search(term: string, canReadCustomers: boolean): RawBuilder<unknown> {
  const pattern = likePattern(term);
  return canReadCustomers
    ? sql`(o.order_number || ' ' || o.customer_name || ' ' || o.customer_email) ILIKE ${pattern}
      AND (o.order_number ILIKE ${pattern} OR o.customer_name ILIKE ${pattern} OR o.customer_email ILIKE ${pattern})`
    : sql`o.order_number ILIKE ${pattern}`;
}

function filters(actor: Actor, input: ListOrdersInput): RawBuilder<unknown> {
  const conds: RawBuilder<unknown>[] = [
    sql`o.store_id = ${actor.storeId}`,
    sql`o.livemode = ${actor.livemode}`,
  ];
  if (input.status) conds.push(sql`o.status = ${input.status}`);
  if (input.channel) conds.push(sql`o.channel = ${input.channel}`);
  if (input.attention) conds.push(sql`o.needs_attention`);
  conds.push(...dateBounds(input));
  if (input.search) conds.push(search(input.search, actor.canReadCustomers));
  return sql.join(conds, sql` AND `);
}

const SORT = { created_at: sql`o.created_at`, updated_at: sql`o.updated_at`, id: sql`o.id` };

export async function listOrders(ctx: PartnerContext, input: ListOrdersInput) {
  const { em, actor } = ctx;
  const where = filters(actor, input);
  const dir = input.order === 'asc' ? sql`ASC` : sql`DESC`;
  const order = sql`${SORT[input.sort_by]} ${dir}, o.id ${dir}`;
  const offset = pageOffset(input.page, input.limit);
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
  const orders: OrderListItem[] = page.map((r) => toListItem(r, actor));
  return { orders, pagination: pagination(input.page, input.limit, count[0]?.total ?? 0) };
}
