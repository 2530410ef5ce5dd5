import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
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
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGKILL, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM (drain, close the pool), then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
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
): Promise<ApiProcess> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    try {
      return await spawnApi(databaseUrl, port, env);
    } catch (err) {
      if (err instanceof PortTaken && attempt < 5) continue;
      throw err;
    }
  }
}

class PortTaken extends Error {}

function spawnApi(databaseUrl: string, port: number, env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['server/main.ts', 'serve'], {
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
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: ApiProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => output,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
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
      if (output.includes('EADDRINUSE')) reject(new PortTaken(output));
      else reject(new Error(`API process exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
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
