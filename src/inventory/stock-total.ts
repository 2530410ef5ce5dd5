import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/** PostgreSQL's integer, the column's type: a total past it is held at it rather than failing the job. */
const MAX_TOTAL = 2_147_483_647;

/** The stock of the variants `v` of a product, every one (retired too), held at the integer. */
export const VARIANTS_TOTAL = sql<number>`LEAST(COALESCE(sum(v.stock_quantity::bigint), 0), ${MAX_TOTAL})::integer`;

/**
 * Sets products' stock to the sum of their variants (Migration20261128060000_stock_total_by_fanout),
 * in the caller's transaction; answers how many changed. The product rows are locked first (in id
 * order) and the sums read by a later statement, whose snapshot (read committed) then holds every
 * change committed before the lock: of two runs for one product, the one committing last read last,
 * so a slower run never writes an older sum over a newer one. No write where the total is already
 * right, so those products' indexes and cells are left alone.
 */
export async function setStockTotals(tx: EntityManager, ids: readonly number[]): Promise<number> {
  await rows(
    tx,
    sql`SELECT id FROM products WHERE id = ANY(${ids}::integer[]) ORDER BY id FOR NO KEY UPDATE`,
  );
  const changed = await rows(
    tx,
    sql`UPDATE products p SET stock_quantity = t.total, updated_at = now()
      FROM (SELECT i.id, ${VARIANTS_TOTAL} AS total
            FROM unnest(${ids}::integer[]) AS i(id) LEFT JOIN product_variants v ON v.product_id = i.id
            GROUP BY i.id) t
      WHERE p.id = t.id AND p.stock_quantity <> t.total
      RETURNING p.id`,
  );
  return changed.length;
}

/** One product's total (setStockTotals), in a transaction of its own: whether it changed. */
export async function syncStockTotal(em: EntityManager, productId: number): Promise<boolean> {
  return em.transactional(async (tx) => (await setStockTotals(tx, [productId])) > 0);
}
