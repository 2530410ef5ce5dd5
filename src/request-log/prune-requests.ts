import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/** How long the request log keeps a request. */
export const RETENTION_DAYS = 7;
/** Rows per DELETE: each batch is its own short statement, so no reader or writer waits on it. */
export const PRUNE_BATCH = 5000;

/**
 * The retention job's work: requests that arrived more than 7 days ago go, `batch` rows per statement,
 * found through the BRIN index on `created_at` (the rows arrive in time order, so only the old end
 * of the table is read). Returns how many went.
 */
export async function pruneRequestLog(
  em: EntityManager,
  o: { now?: Date; batch?: number } = {},
): Promise<number> {
  const batch = o.batch ?? PRUNE_BATCH;
  const before = new Date((o.now ?? new Date()).getTime() - RETENTION_DAYS * 86_400_000).toISOString();
  let total = 0;
  for (;;) {
    const [done] = await rows<{ n: number }>(
      em,
      sql`WITH gone AS (
          DELETE FROM request_log WHERE id IN (
            SELECT id FROM request_log WHERE created_at < ${before}::timestamptz LIMIT ${batch})
          RETURNING 1)
        SELECT count(*)::integer AS n FROM gone`,
    );
    const n = done?.n ?? 0;
    total += n;
    if (n < batch) return total;
  }
}
