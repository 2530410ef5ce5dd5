import { MikroORM } from '@mikro-orm/postgresql';
import { Logger, runMigrations } from 'graphile-worker';
import pg from 'pg';
import { ormConfig } from '../mikro-orm.config.ts';
import type { Orm } from '../src/db/orm.ts';
import { QUERY_CANCELED } from '../src/errors.ts';
import { tracingOn } from '../src/tracing/spans.ts';
import { applyFunctionFiles } from './db-functions.ts';
import { openMigrationSession } from './migration-session.ts';
import { tracedClient } from './traced-client.ts';

export type { Orm } from '../src/db/orm.ts';

/**
 * The statement budget of a pool (docs/decisions.md, "Statement budget"): what the API's requests run
 * under, and never the worker's, the migrations', the seed's or the CLI's.
 */
export interface StatementBudget {
  /**
   * `statement_timeout` of every connection of the pool, in ms, sent when it connects (a startup
   * parameter, so no statement is added and nothing depends on session state). Unset behind a pooler
   * in transaction mode, which refuses or ignores it: there the role carries it.
   */
  timeoutMs?: number;
  /**
   * Whether every statement runs in its one backend, never a parallel query (startup parameter
   * `max_parallel_workers_per_gather=0`; behind a pooler, the role's setting). Ten partner requests at
   * once on two cores: parallel workers only queued the others behind them (docs/decisions.md,
   * "A partner request is never a parallel query").
   */
  serial?: boolean;
  /** Told of each statement of this pool that PostgreSQL cancelled (SQLSTATE 57014). */
  onCancelled(statement: CancelledStatement): void;
}

export interface CancelledStatement {
  /** The driver's error: `code` 57014, and `where` when it was waiting on a row (a lock's context). */
  error: { code: string; message: string; where?: string };
  /** The statement's text (never its parameters, which may be a buyer's details). */
  sql: string;
  /** How long it ran before it was cancelled. */
  ms: number;
}

export async function openOrm(
  url: string,
  poolSize?: number,
  budget?: StatementBudget,
  /** More of pg's pool options (a replica's connect timeout). */
  pool?: pg.PoolConfig,
): Promise<Orm> {
  const config = ormConfig(url, poolSize);
  if (!budget && !pool && !tracingOn()) return MikroORM.init(config);
  // pg's pool options, merged by MikroORM over the ones it derives (PostgreSqlConnection.mapOptions).
  const driverOptions: pg.PoolConfig = {
    ...pool,
    Client: tracedClient(budget ? budgetedClient(budget) : pg.Client),
  };
  if (!budget) return MikroORM.init({ ...config, driverOptions });
  if (budget.timeoutMs !== undefined) driverOptions.statement_timeout = budget.timeoutMs;
  if (budget.serial) driverOptions.options = '-c max_parallel_workers_per_gather=0';
  return MikroORM.init({ ...config, driverOptions });
}

/**
 * pg's client, telling the budget of every statement PostgreSQL cancels: kysely and MikroORM both run
 * every statement through `client.query`, and this sees each one once, where it failed.
 */
function budgetedClient(budget: StatementBudget) {
  return class BudgetedClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: every overload of pg's query is passed through as it is.
    override query(...args: any[]): any {
      const started = performance.now();
      const result: unknown = Reflect.apply(super.query, this, args);
      if (!(result instanceof Promise)) return result;
      return result.catch((err: unknown) => {
        if (isCancelled(err)) {
          try {
            budget.onCancelled({ error: err, sql: statementText(args[0]), ms: performance.now() - started });
          } catch {
            // Telling must never change what the statement's caller sees.
          }
        }
        throw err;
      });
    }
  };
}

function isCancelled(err: unknown): err is CancelledStatement['error'] {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === QUERY_CANCELED;
}

/** The text of a statement as pg's query takes it (a string or a config with `text`). */
function statementText(arg: unknown): string {
  const text = typeof arg === 'string' ? arg : (arg as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : '';
}

const MIGRATION_LOCK = 4_207_001;
const silent = new Logger(() => () => {});

/**
 * Applies our migrations, then Graphile Worker's, then the function files that changed
 * (src/db/functions/, after every table and schema they may name). An advisory lock makes it safe
 * for several processes to start at once: one migrates, the others wait and find nothing left to do.
 */
export async function migrate(orm: Orm, url: string, setting = 'DATABASE_URL'): Promise<void> {
  const client = await openMigrationSession(url, setting);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
    await runMigrations({ connectionString: url, logger: silent });
    await applyFunctionFiles(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}

/**
 * Migrates over `directUrl` when it names another server than `url` (a pooler in transaction mode
 * cannot hold the migrations' session lock), with a connection of its own; else over `url`.
 */
export async function migrateDirect(orm: Orm, url: string, directUrl: string | undefined): Promise<void> {
  if (!directUrl || directUrl === url) return migrate(orm, url);
  const direct = await openOrm(directUrl, 1);
  try {
    await migrate(direct, directUrl, 'DATABASE_DIRECT_URL');
  } finally {
    await direct.close(true);
  }
}
