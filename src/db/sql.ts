import type { EntityManager } from '@mikro-orm/postgresql';
import type { CompiledQuery, Expression, RawBuilder } from 'kysely';
import { sql } from 'kysely';

export { type RawBuilder, sql } from 'kysely';

/**
 * Runs a parameterised statement built with kysely's `sql` tag on the request's EntityManager, so it
 * joins the current transaction when there is one. Used by the hot read paths, where hand-written
 * SQL beats the ORM's hydration (see docs/decisions.md).
 */
export async function rows<T>(em: EntityManager, statement: RawBuilder<T>): Promise<T[]> {
  return observed(em.getKysely(), statement);
}

/** Executes `statement` on `db`, told to the benchmark's observer (with the settings it ran under). */
async function observed<T>(
  db: Parameters<RawBuilder<T>['execute']>[0],
  statement: RawBuilder<T>,
  settings?: Record<string, string>,
): Promise<T[]> {
  const done = observer?.({ ...statement.compile(db), ...(settings ? { settings } : {}) });
  try {
    return (await statement.execute(db)).rows;
  } finally {
    done?.();
  }
}

/** What scanRows sets for its statement (also told to the benchmark's observer). */
const SCAN_SETTINGS = { enable_nestloop: 'off' };

/**
 * `rows` for a statement that scans a range of products joined with one store's listings, planned
 * without nested-loop joins: hashing the store's listings once is the one sensible plan there. With
 * cleared statistics PostgreSQL estimated one listing and a hundred products and chose a nested loop
 * rereading every listing of the store for each product (9.7M comparisons at 20,000 products; at 2M,
 * past any budget). The setting lives on the statement's connection only while it runs.
 */
export async function scanRows<T>(em: EntityManager, statement: RawBuilder<T>): Promise<T[]> {
  // Inside a transaction the connection is the transaction's (kysely hands out no other): the
  // statement joins it with the planner's own choice.
  if (em.isInTransaction()) return rows(em, statement);
  return em
    .getKysely()
    .connection()
    .execute(async (db) => {
      await sql`SET enable_nestloop = off`.execute(db);
      let failed = false;
      try {
        return await observed(db, statement, SCAN_SETTINGS);
      } catch (err) {
        failed = true;
        throw err;
      } finally {
        // A connection the failure left unusable must not hide the statement's own error.
        await sql`RESET enable_nestloop`.execute(db).catch((err: unknown) => {
          if (!failed) throw err;
        });
      }
    });
}

/** A typed kysely query built on `db(em)` (src/db/kysely.ts). */
interface Query<T> {
  compile(): CompiledQuery;
  execute(): Promise<T[]>;
}

/** Runs a typed kysely query; like `rows`, the benchmark's statement observer sees it. */
export async function run<T>(query: Query<T>): Promise<T[]> {
  if (!observer) return query.execute();
  const done = observer(query.compile());
  try {
    return await query.execute();
  } finally {
    done();
  }
}

/** The first row of a typed kysely query, or undefined. */
export async function first<T>(query: Query<T>): Promise<T | undefined> {
  return (await run(query))[0];
}

export interface CompiledStatement {
  sql: string;
  parameters: readonly unknown[];
  /** Planner settings the statement ran under (scanRows), for a replay to run it the same way. */
  settings?: Record<string, string>;
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
export function isoTime(column: Expression<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A case-insensitive substring pattern for ILIKE, with `%`, `_` and `\` in the term taken literally. */
export function likePattern(term: string): string {
  return `%${term.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** OFFSET of a 1-based page, as text: page is any safe integer and page × limit can pass 2^53. */
export function pageOffset(page: number, limit: number): string {
  return String(BigInt(page - 1) * BigInt(limit));
}

/** The pagination envelope of every list. */
export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total_count: total, total_pages: Math.ceil(total / limit) };
}
