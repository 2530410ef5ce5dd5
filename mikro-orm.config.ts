import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { entities } from './src/db/entities/index.ts';
import { PostgresNamingStrategy } from './src/db/naming.ts';
import { migrationsList } from './src/migrations/index.ts';

/** Shared ORM settings; the connection URL is supplied at run time (embedded or DATABASE_URL). */
export function ormConfig(clientUrl: string, poolSize = 10) {
  return defineConfig({
    clientUrl,
    entities,
    namingStrategy: PostgresNamingStrategy,
    // Triggers and their functions are behaviour, one file each in src/db/functions/ (held to the
    // database by test/runtime/db-functions.test.ts); the entities describe the tables. Graphile Worker owns its
    // own schema.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true, ignoreSchema: ['graphile_worker'] },
    extensions: [Migrator],
    // The database exists before any ORM opens (server/database.ts for the embedded one, the operator's
    // for DATABASE_URL). MikroORM's check looks the URL's database name up in pg_database: behind a
    // PgBouncer entry named apart from the server's database (stockless_api), it found none and ran
    // CREATE DATABASE for the entry's name on the server at every start, two starts at once racing.
    ensureDatabase: false,
    // Idle connections are kept five minutes (pg-pool closes them after 10 s by default). A new
    // PostgreSQL backend faults in every shared buffer page it touches the first time. At 2M products
    // with 6 GB of shared buffers and no huge pages, its first broad query took a second longer.
    pool: { min: 0, max: poolSize, idleTimeoutMillis: 300_000 },
    migrations: {
      tableName: 'mikro_orm_migrations',
      silent: true,
      migrationsList,
      path: './src/migrations',
      snapshot: false,
      snapshotOnMigrate: false,
      emit: 'ts',
    },
    debug: false,
    allowGlobalContext: false,
  });
}

export default ormConfig(
  process.env.DATABASE_URL ?? 'postgres://stockless:stockless@127.0.0.1:54329/stockless',
);
