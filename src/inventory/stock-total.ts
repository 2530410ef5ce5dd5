import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/** PostgreSQL's integer, the column's type: a total past it is held at it rather than failing the job. */
export const MAX_TOTAL = 2_147_483_647;

/**
 * Sets a product's stock to the sum of its variants (Migration20261128060000_stock_total_by_fanout).
 * The product row is locked first and the sum read by a later statement, whose snapshot (read
 * committed) then holds every change committed before the lock: of two runs for one product, the
 * one committing last read last, so a slower run never writes an older sum over a newer one. No
 * write when the total is already right, so the product's indexes and cells are left alone.
 */
export async function syncStockTotal(em: EntityManager, productId: number): Promise<boolean> {
  return em.transactional(async (tx) => {
    const [locked] = await rows(tx, sql`SELECT id FROM products WHERE id = ${productId} FOR NO KEY UPDATE`);
    if (!locked) return false;
    const changed = await rows(
      tx,
      sql`UPDATE products p SET stock_quantity = t.total, updated_at = now()
        FROM (SELECT LEAST(COALESCE(sum(v.stock_quantity::bigint), 0), ${MAX_TOTAL})::integer AS total
              FROM product_variants v WHERE v.product_id = ${productId}) t
        WHERE p.id = ${productId} AND p.stock_quantity <> t.total
        RETURNING p.id`,
    );
    return changed.length > 0;
  });
}
