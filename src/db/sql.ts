import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, sql } from 'kysely';

export { type RawBuilder, sql } from 'kysely';

/**
 * Runs a parameterised statement built with kysely's `sql` tag on the request's EntityManager, so it
 * joins the current transaction when there is one. Used by the hot read paths, where hand-written
 * SQL beats the ORM's hydration (see docs/decisions.md).
 */
export async function rows<T>(em: EntityManager, statement: RawBuilder<T>): Promise<T[]> {
  const result = await statement.execute(em.getKysely());
  return result.rows;
}

/** A timestamptz as an ISO 8601 UTC string, formatted by PostgreSQL so no driver parsing is involved. */
export function isoTime(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
