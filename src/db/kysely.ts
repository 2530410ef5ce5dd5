import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { ColumnType, Kysely } from 'kysely';
import type { AnyEntity } from './entities/index.ts';

/**
 * A value as the pg driver hands it over on this connection: MikroORM keeps timestamps as their text,
 * and int8 arrives as text too. Queries format timestamps in SQL (`isoTime`) and cast int8 ids to
 * integer where they fit, so the text is what a query that does neither would really get.
 */
type AsRead<T> = T extends Date ? string : T extends bigint ? string : T;

/** A column read as the driver reads it; written as the entity says (a Date or its text both bind). */
type Column<C> =
  C extends ColumnType<infer S, infer I, infer U>
    ? ColumnType<AsRead<S>, I | AsRead<I>, U | AsRead<U>>
    : ColumnType<AsRead<C>, C | AsRead<C>, C | AsRead<C>>;

type Tables = InferKyselyDB<AnyEntity>;

/** The database as typed kysely queries see it, derived from the entities (table and column names). */
export type DB = { [T in keyof Tables]: { [C in keyof Tables[T]]: Column<Tables[T][C]> } };

/**
 * Typed kysely on the request's EntityManager, so a query joins the current transaction when there
 * is one. Run what it builds with `run` (src/db/sql.ts), which the benchmark's statement observer sees.
 */
export function db(em: EntityManager): Kysely<DB> {
  return em.getKysely<DB>();
}
