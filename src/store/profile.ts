import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { ORDER_STATUSES, type StoreProfile } from './schemas.ts';

/** The authenticated store with its order statistics (revenue counts every order not cancelled). */
export async function getStoreProfile(em: EntityManager, storeId: number): Promise<StoreProfile> {
  const [[row], stats] = await Promise.all([
    rows<{ id: number; name: string; slug: string; currency: string; created_at: string; has_own: boolean }>(
      em,
      sql`SELECT s.id, s.name, s.slug, s.currency, ${isoTime(sql`s.created_at`)} AS created_at,
          EXISTS (SELECT 1 FROM suppliers WHERE owner_store_id = s.id) AS has_own
        FROM stores s WHERE s.id = ${storeId}`,
    ),
    rows<{ status: (typeof ORDER_STATUSES)[number]; n: number; revenue: string; last: string | null }>(
      em,
      sql`SELECT status, count(*)::integer AS n, COALESCE(sum(total_cents), 0)::text AS revenue,
          ${isoTime(sql`max(created_at)`)} AS last
        FROM orders WHERE store_id = ${storeId} GROUP BY status`,
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
