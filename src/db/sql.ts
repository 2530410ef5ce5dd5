import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, sql } from 'kysely';

export { type RawBuilder, sql } from 'kysely';

/**
 * Runs a parameterised statement built with kysely's `sql` tag on the request's EntityManager, so it
 * joins the current transaction when there is one. Used by the hot read paths, where hand-written
 * SQL beats the ORM's hydration (see docs/decisions.md).
 */
export async function rows<T>(em: EntityManager, statement: RawBuilder<T>): Promise<T[]> {
  const db = em.getKysely();
  if (!observer) return (await statement.execute(db)).rows;
  const done = observer(statement.compile(db));
  try {
    return (await statement.execute(db)).rows;
  } finally {
    done();
  }
}

export interface CompiledStatement {
  sql: string;
  parameters: readonly unknown[];
}
type Observer = (statement: CompiledStatement) => () => void;
let observer: Observer | undefined;

/**
 * Lets the benchmark record the exact statements a request runs (and which overlap), so its raw
 * baseline replays the same SQL. Never set in the service itself.
 */
export function observeStatements(fn: Observer | undefined): void {
  observer = fn;
}

/** A timestamptz as an ISO 8601 UTC string, formatted by PostgreSQL so no driver parsing is involved. */
export function isoTime(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
