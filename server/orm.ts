import { MikroORM } from '@mikro-orm/postgresql';
import { Logger, runMigrations } from 'graphile-worker';
import pg from 'pg';
import { ormConfig } from '../mikro-orm.config.ts';
import type { Orm } from '../src/db/orm.ts';

export type { Orm } from '../src/db/orm.ts';

export async function openOrm(url: string, poolSize?: number): Promise<Orm> {
  return MikroORM.init(ormConfig(url, poolSize));
}

const MIGRATION_LOCK = 4_207_001;
const silent = new Logger(() => () => {});

/**
 * Applies our migrations, then Graphile Worker's. An advisory lock makes it safe for several
 * processes to start at once: one migrates, the others wait and find nothing left to do.
 */
export async function migrate(orm: Orm, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
    await runMigrations({ connectionString: url, logger: silent });
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
    await migrate(direct, directUrl);
  } finally {
    await direct.close(true);
  }
}
