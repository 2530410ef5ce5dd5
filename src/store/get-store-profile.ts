import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, isoTime, run } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { hasOwnSuppliers } from './catalogue-context.ts';
import { ORDER_STATUSES, type StoreProfile } from './schemas.ts';

/** The authenticated store with its order statistics (revenue counts every order not cancelled). */
export async function getStoreProfile(ctx: PartnerContext): Promise<StoreProfile> {
  const { storeId } = ctx.actor;
  const [row, stats] = await Promise.all([
    first(
      db(ctx.em)
        .selectFrom('stores')
        .select((eb) => [
          'id',
          'name',
          'slug',
          'currency',
          isoTime(eb.ref('created_at')).as('created_at'),
          hasOwnSuppliers(eb).as('has_own'),
        ])
        .where('id', '=', storeId),
    ),
    run(
      db(ctx.em)
        .selectFrom('orders')
        .select((eb) => [
          'status',
          eb.cast<number>(eb.fn.countAll(), 'integer').as('n'),
          // Text: a sum of int4 is int8, which the driver hands over as text anyway.
          eb.cast<string>(eb.fn.coalesce(eb.fn.sum('total_cents'), eb.lit(0)), 'text').as('revenue'),
          isoTime(eb.fn.max('created_at')).as('last'),
        ])
        .where(ownedBy(ctx.actor, 'orders'))
        .groupBy('status'),
    ),
  ]);
  if (!row) throw notFound('Store not found', 'STORE_NOT_FOUND');
  const byStatus = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<
    (typeof ORDER_STATUSES)[number],
    number
  >;
  let revenue = 0;
  let last: string | null = null;
  for (const s of stats) {
    byStatus[s.status] = s.n;
    // Revenue: every order not cancelled.
    if (s.status !== 'cancelled') revenue += Number(s.revenue);
    if (s.last && (!last || s.last > last)) last = s.last;
  }
  return {
    store: {
      id: row.id,
      name: row.name,
      slug: row.slug,
      currency: row.currency.trim(),
      created_at: row.created_at,
      has_own_suppliers: row.has_own,
      stats: {
        orders_total: stats.reduce((n, s) => n + s.n, 0),
        orders_by_status: byStatus,
        revenue_cents: revenue,
        last_order_at: last,
      },
    },
  };
}
