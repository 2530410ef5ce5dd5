import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import { ownedBy } from '../db/owned-by.ts';
import { likePattern, pageOffset, pagination, type RawBuilder, rows, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { LIST_COLUMNS, type ListRow, toListItem } from './queries.ts';
import type { ListOrdersInput, OrderListItem } from './schemas.ts';

const isBareDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

/** The created_at bounds, computed by PostgreSQL from the validated text: no JavaScript Date rounding or range. */
function dateBounds(input: Pick<ListOrdersInput, 'start_date' | 'end_date'>): RawBuilder<unknown>[] {
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

/** The orders, or their kept counts (each aliased `o`, with the same filter columns). */
type KeptTable = 'orders as o' | 'order_counts as o' | 'order_count_deltas as o';

/**
 * The conditions `order_counts` keeps a total for: the store, the mode, and the filters of few values.
 * With `storeAsRange`, for a page in id order: said as an equality, PostgreSQL drops the store from
 * the order it needs, and the primary key then offers the id order too; it walked the whole table
 * backwards hoping to meet the store's orders early (a status the newest orders lack: 1.1 s at 1.2M
 * orders). As a range, only the store's own index (orders_store_id_idx) gives the order.
 */
function keptFilters(
  actor: Actor,
  input: Pick<ListOrdersInput, 'status' | 'channel' | 'attention'>,
  { table = 'orders as o', storeAsRange = false }: { table?: KeptTable; storeAsRange?: boolean } = {},
): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [ownedBy(actor, table, { storeAsRange })];
  if (input.status) conds.push(sql`o.status = ${input.status}`);
  if (input.channel) conds.push(sql`o.channel = ${input.channel}`);
  if (input.attention) conds.push(sql`o.needs_attention`);
  return conds;
}

/** The list's conditions on `orders as o` (also the bulk export's, src/exports/line-sources.ts). */
export function filters(
  actor: Actor,
  input: Omit<ListOrdersInput, 'page' | 'limit' | 'sort_by' | 'order'>,
  storeAsRange = false,
): RawBuilder<unknown> {
  const conds = [...keptFilters(actor, input, { storeAsRange }), ...dateBounds(input)];
  if (input.search) conds.push(search(input.search, actor.canReadCustomers));
  return sql.join(conds, sql` AND `);
}

/**
 * The total: under filters of few values (status, channel, attention) from the kept counts and
 * their pending deltas (Migration20261128090000_order_counts), a few rows whatever the store's
 * history; under a date range or a search, counted over the matching orders.
 */
function countOrders(em: EntityManager, actor: Actor, input: ListOrdersInput, where: RawBuilder<unknown>) {
  if (input.start_date || input.end_date || input.search) {
    return rows<{ total: number }>(em, sql`SELECT count(*)::integer AS total FROM orders o WHERE ${where}`);
  }
  const kept = (table: KeptTable) => sql.join(keptFilters(actor, input, { table }), sql` AND `);
  return rows<{ total: number }>(
    em,
    sql`SELECT COALESCE(sum(n), 0)::integer AS total FROM (
      SELECT o.n FROM order_counts o WHERE ${kept('order_counts as o')}
      UNION ALL SELECT o.n FROM order_count_deltas o WHERE ${kept('order_count_deltas as o')}) c`,
  );
}

const SORT = { created_at: sql`o.created_at`, updated_at: sql`o.updated_at`, id: sql`o.id` };

export async function listOrders(ctx: PartnerContext, input: ListOrdersInput) {
  const { em, actor } = ctx;
  const where = filters(actor, input);
  const dir = input.order === 'asc' ? sql`ASC` : sql`DESC`;
  const order = sql`${SORT[input.sort_by]} ${dir}, o.id ${dir}`;
  const byId = input.sort_by === 'id';
  const pageWhere = byId ? filters(actor, input, true) : where;
  const pageOrder = byId ? sql`o.store_id ${dir}, o.id ${dir}` : order;
  const offset = pageOffset(input.page, input.limit);
  const [count, page] = await Promise.all([
    countOrders(em, actor, input, where),
    // The page is chosen on ids from a sort index that carries the filter columns (index-only, so a
    // deep page skips index entries, not order rows), and only its rows are then read.
    rows<ListRow>(
      em,
      sql`SELECT ${LIST_COLUMNS}
        FROM (SELECT o.id FROM orders o WHERE ${pageWhere} ORDER BY ${pageOrder} LIMIT ${input.limit} OFFSET ${offset}) page
        JOIN orders o ON o.id = page.id
        ORDER BY ${order}`,
    ),
  ]);
  const orders: OrderListItem[] = page.map((r) => toListItem(r, actor));
  return { orders, pagination: pagination(input.page, input.limit, count[0]?.total ?? 0) };
}
