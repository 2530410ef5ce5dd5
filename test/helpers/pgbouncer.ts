import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './http.ts';

/**
 * A real PgBouncer (Debian's package, installed by .ci/run) in transaction mode in front of a
 * PostgreSQL server, as an operator would put it there: every database of the server through it
 * (`* =`), SCRAM for clients, a small pool per database and user so that pooling is real (fewer
 * server connections than clients). For tests and the bench; docs/scaling.md, section 3, says how
 * to run one in production.
 */

export interface PgBouncer {
  /** `serverUrl` with PgBouncer's address instead of the server's (same user, password, database). */
  pooled(serverUrl: string): string;
  port: number;
  /** Server connections per database and user (`default_pool_size`). */
  poolSize: number;
  /** A `SHOW …` on the admin console (`pgbouncer` database), rows as PgBouncer gives them. */
  show(what: 'POOLS' | 'STATS' | 'SERVERS' | 'CLIENTS' | 'DATABASES'): Promise<Record<string, string>[]>;
  /** Everything PgBouncer logged so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** `default_pool_size` (4 unless given). */
  poolSize?: number;
  /**
   * Further entries: a name clients connect to, the server's database behind it, and the statements
   * PgBouncer runs on each server connection it opens for that entry (its own pool): how an operator
   * gives the API's connections settings (the statement budget) that the worker's must not have.
   */
  entries?: Record<string, { database: string; connectQuery?: string }>;
}

/** Debian puts it in /usr/sbin, which is not on every user's PATH; PGBOUNCER names another. */
export function pgbouncerPath(): string {
  const given = process.env.PGBOUNCER;
  if (given) return given;
  for (const p of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']) {
    if (existsSync(p)) return p;
  }
  return 'pgbouncer';
}

/** PgBouncer refuses to run as root: as root, it runs as user postgres (the embedded server's user). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres']).toString(), 10);
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('PgBouncer refuses to run as root, and this system has no user postgres to run it as');
  }
}

/** The settings file: what an operator would write for a pool in front of the API and the worker's jobs. */
function iniOf(server: URL, port: number, dir: string, opts: PgBouncerOptions): string {
  const at = `host=${server.hostname} port=${server.port || 5432}`;
  const entries = Object.entries(opts.entries ?? {}).map(
    ([name, e]) =>
      `${name} = ${at} dbname=${e.database}${e.connectQuery ? ` connect_query='${e.connectQuery}'` : ''}`,
  );
  return [
    '[databases]',
    ...entries,
    // Any database of the server, under its own name: each test file has its own database.
    `* = ${at}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    // TCP only: no socket file in /tmp shared with other runs.
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `admin_users = ${decodeURIComponent(server.username)}`,
    'pool_mode = transaction',
    `default_pool_size = ${opts.poolSize ?? 4}`,
    'min_pool_size = 0',
    'reserve_pool_size = 0',
    'max_client_conn = 1000',
    // A client waiting this long for a server connection is told so rather than left hanging.
    'query_wait_timeout = 60',
    // No `ignore_startup_parameters`: the processes send only what PgBouncer tracks
    // (client_encoding, application_name), and anything else must fail loudly, not be dropped.
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    'log_connections = 0',
    'log_disconnections = 0',
    '',
  ].join('\n');
}

export async function startPgBouncer(serverUrl: string, opts: PgBouncerOptions = {}): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const poolSize = opts.poolSize ?? 4;
  const dir = await mkdtemp(join(tmpdir(), 'stockless-pgbouncer-'));
  const user = runAs();
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  const auth = `"${decodeURIComponent(server.username)}" "${decodeURIComponent(server.password)}"\n`;
  await writeFile(join(dir, 'userlist.txt'), auth, { mode: 0o600 });
  await writeFile(ini, iniOf(server, port, dir, opts), { mode: 0o600 });
  if (user) {
    for (const f of [dir, join(dir, 'userlist.txt'), ini]) await chown(f, user.uid, user.gid);
  }
  const child = spawn(pgbouncerPath(), [ini], { stdio: ['ignore', 'pipe', 'pipe'], ...user });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pooled = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  const adminUrl = pooled(new URL('/pgbouncer', serverUrl).toString());
  const stop = async () => {
    await stopChild(child, exited);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(adminUrl, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    pooled,
    port,
    poolSize,
    show: (what) => showOn(adminUrl, what),
    output: () => output,
    stop,
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // SIGTERM is PgBouncer's immediate shutdown (SIGINT waits for every client to leave).
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function showOn(adminUrl: string, what: string): Promise<Record<string, string>[]> {
  // The admin console speaks the simple protocol only: a query without parameters.
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const res = await client.query<Record<string, string>>(`SHOW ${what}`);
    return res.rows;
  } finally {
    await client.end();
  }
}

async function waitUntilUp(adminUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited (${child.exitCode}):\n${output()}`);
    try {
      await showOn(adminUrl, 'VERSION');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`PgBouncer did not answer in 10 s (${err}):\n${output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
