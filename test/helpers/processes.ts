import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { inject } from 'vitest';
import { ensureDatabase } from '../../server/database.ts';
import { type Orm, openOrm } from '../../server/orm.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { createStore } from '../../src/store/create-store.ts';
import { TEST_SECRET_KEY, type TestApp } from './app.ts';
import { withDatabase } from './global-setup.ts';
import { freePort, getVia, requestTo } from './http.ts';

/**
 * Real server processes (`node server/main.ts serve`) on one database, as production runs them:
 * each its own Node process, its own pool, nothing shared but PostgreSQL. For multi-process tests
 * and benches; `startWorkerProcess` (./webhooks.ts) starts the worker side.
 */

/** The PUBLIC_URL every process of a test shares (as behind one load balancer): the OAuth issuer. */
export const PROCESS_PUBLIC_URL = 'http://stockless.test';

export interface TestStore {
  id: number;
  readWrite: string;
  read: string;
}

export interface TestDatabase {
  databaseUrl: string;
  /** The test's own pool (fixtures and assertions), apart from the processes' pools. */
  orm: Orm;
  em(): ReturnType<Orm['em']['fork']>;
  createStore(name?: string): Promise<TestStore>;
  close(): Promise<void>;
}

/**
 * A database cloned from the migrated template, with one store in it already: an API process that
 * finds no store seeds the demo catalogue, and two processes starting at once would both try.
 */
export async function createTestDatabase(): Promise<TestDatabase & { first: TestStore }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  await ensureDatabase(adminUrl, name, inject('templateDb'));
  const databaseUrl = withDatabase(adminUrl, name);
  const orm = await openOrm(databaseUrl, 4);
  const make = async (storeName = 'Test Store'): Promise<TestStore> => {
    const em = orm.em.fork();
    const store = await createStore({ em }, { name: storeName, slug: `s-${randomUUID().slice(0, 8)}` });
    const rw = await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'live' });
    const ro = await createApiKey({ em }, { storeId: store.id, scope: 'read', mode: 'live' });
    return { id: store.id, readWrite: rw.key, read: ro.key };
  };
  const first = await make('First Store');
  return {
    databaseUrl,
    orm,
    em: () => orm.em.fork(),
    createStore: make,
    first,
    close: () => orm.close(true),
  };
}

export interface ApiProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  child: ChildProcess;
  /** The `application_name` of its PostgreSQL sessions (unless its DATABASE_URL names one). */
  applicationName: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGKILL, as in a crash (of its whole process group when it leads one: see `ownProcessGroup`). */
  kill(): Promise<void>;
  /**
   * kill -9 as a crash: SIGKILL to the process (its whole group with `ownProcessGroup`, so nothing it
   * spawned lives on), then waits, up to `settleMs`, until PostgreSQL has dropped every session of it, so
   * its open transactions are rolled back and their locks gone, as they are once the database notices
   * a dead client.
   */
  crash(settleMs?: number): Promise<void>;
  /** SIGTERM (drain, close the pool), then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ApiProcessOptions {
  /**
   * Start the process as the leader of a process group of its own (`detached`), so a kill reaches the
   * whole group, as kill -9 of a service's process group does. Off by default: a process in its own group
   * does not get the terminal's Ctrl-C, so the test must stop it (it always should).
   */
  ownProcessGroup?: boolean;
}

/**
 * `npm run serve` as its own process against `databaseUrl`, listening on 127.0.0.1 at a free port,
 * with PUBLIC_URL {@link PROCESS_PUBLIC_URL} and the tests' SECRET_KEY unless `env` says otherwise.
 * Resolves once the server listens (it prints "Stockless is serving at" after `listen`). The port is
 * picked first and the start retried if another process takes it meanwhile.
 *
 * The database must not be empty (see {@link createTestDatabase}), or the process seeds the demo.
 */
export async function startApiProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: ApiProcessOptions = {},
): Promise<ApiProcess> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    try {
      return await spawnApi(databaseUrl, port, env, options);
    } catch (err) {
      if (err instanceof PortTaken && attempt < 5) continue;
      throw err;
    }
  }
}

class PortTaken extends Error {}

let spawned = 0;

function spawnApi(
  databaseUrl: string,
  port: number,
  env: Record<string, string>,
  options: ApiProcessOptions,
): Promise<ApiProcess> {
  const applicationName = env.PGAPPNAME ?? `stockless-api-${process.pid}-${++spawned}`;
  const group = options.ownProcessGroup === true;
  const child = spawn(process.execPath, ['server/main.ts', 'serve'], {
    detached: group,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: PROCESS_PUBLIC_URL,
      SECRET_KEY: TEST_SECRET_KEY,
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8,::1/128',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE: '2s',
      // The statement budget has tests of its own (statement-budget.test.ts); here a loaded CI machine's
      // lock waits must not turn into 503s the test did not ask about.
      API_STATEMENT_TIMEOUT: '30s',
      // The pool's sessions carry it, so a crash can wait for exactly this process's sessions to go.
      PGAPPNAME: applicationName,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      if (group && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      } else child.kill('SIGKILL');
    }
    await exited;
  };
  const proc: ApiProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    applicationName,
    output: () => output,
    kill,
    async crash(settleMs = 10_000) {
      await kill();
      await sessionsGone(databaseUrl, applicationName, settleMs);
    },
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => void kill(), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void kill();
      reject(new Error(`API process did not start in 30 s:\n${output}`));
    }, 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('Stockless is serving at')) {
        clearTimeout(timer);
        resolve(proc);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (output.includes('is already in use')) reject(new PortTaken(output));
      else reject(new Error(`API process exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

/**
 * Waits until no session named `applicationName` is left on the database (PostgreSQL ends a dead
 * client's backend, rolling back its transaction, once it notices the closed socket), or `timeoutMs`.
 */
async function sessionsGone(databaseUrl: string, applicationName: string, timeoutMs: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`,
        [applicationName],
      );
      if ((rows[0]?.n ?? 0) === 0) return;
      if (Date.now() > deadline) {
        throw new Error(
          `${rows[0]?.n} sessions of ${applicationName} still open ${timeoutMs} ms after the kill`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await client.end();
  }
}

/**
 * A TestApp whose HTTP side is the given process and whose database side is the test's own pool,
 * so helpers written for `startTestApp` (OAuth flows, fixtures) drive a real process.
 */
export function asTestApp(db: TestDatabase, proc: ApiProcess): TestApp {
  const request = requestTo(proc.url);
  return {
    url: proc.url,
    databaseUrl: db.databaseUrl,
    orm: db.orm,
    em: () => db.em(),
    request,
    get: getVia(request),
    createStore: (name) => db.createStore(name),
    close: async () => {},
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request sent from a chosen loopback address (127.0.0.2, …: every 127/8 address reaches
 * a server on 127.0.0.1 on Linux), so per-address limits can be given a fresh address per test.
 */
export function sendFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
