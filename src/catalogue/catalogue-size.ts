import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/** How long a read of the estimate serves: it sizes walks, so a minute's drift costs nothing. */
const KEPT_MS = 60_000;

let known: { at: number; rows: number } | undefined;

/**
 * The products table's size as PostgreSQL last estimated it (ANALYZE, autovacuum), read at most once
 * a minute once known; 0 while never estimated. Only a cost estimate (page-ids.ts walkLength): no answer
 * depends on it.
 */
export async function productsEstimate(em: EntityManager): Promise<number> {
  if (known && Date.now() - known.at < KEPT_MS) return known.rows;
  const [row] = await rows<{ n: number }>(
    em,
    sql`SELECT GREATEST(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'products'::regclass`,
  );
  const estimate = row?.n ?? 0;
  // Kept only once known: a table not yet analysed is asked again, so the first estimate serves.
  if (estimate > 0) known = { at: Date.now(), rows: estimate };
  return estimate;
}
