import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { notFound } from '../trpc/errors.ts';
import { ORDER_STATUSES, type StoreProfile } from './schemas.ts';

/**
 * The authenticated store with its order statistics. Orders arrive with their own area; until then
 * every store has none, so the statistics are the zero of each figure.
 */
export async function getStoreProfile(em: EntityManager, storeId: number): Promise<StoreProfile> {
  const [row] = await rows<{
    id: number;
    name: string;
    slug: string;
    currency: string;
    created_at: string;
    has_own: boolean;
  }>(
    em,
    sql`SELECT s.id, s.name, s.slug, s.currency, ${isoTime(sql`s.created_at`)} AS created_at,
          EXISTS (SELECT 1 FROM suppliers WHERE owner_store_id = s.id) AS has_own
        FROM stores s WHERE s.id = ${storeId}`,
  );
  if (!row) throw notFound('Store not found', 'STORE_NOT_FOUND');
  return {
    store: {
      id: row.id,
      name: row.name,
      slug: row.slug,
      currency: row.currency,
      created_at: row.created_at,
      has_own_suppliers: row.has_own,
      stats: {
        orders_total: 0,
        orders_by_status: Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<
          (typeof ORDER_STATUSES)[number],
          number
        >,
        revenue_cents: 0,
        last_order_at: null,
      },
    },
  };
}
