import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRequest, type LoggedRequest, Stockless, StocklessError } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';
import { createTestDatabase, startApiProcess } from '../helpers/processes.ts';

/**
 * The request log from the outside: the SDK (`client.requests`), `npm run listen -- --requests`, and a
 * real `serve` process that writes what its buffer holds when it is stopped.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let client: Stockless;

beforeAll(async () => {
  app = await startTestApp({}, { requestLog: { flushMs: 50 } });
  store = await app.createStore('SDK Store');
  client = new Stockless({ baseUrl: app.url, apiKey: store.read, retry: false });
});
afterAll(async () => {
  await app?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

/** How many reads of the log the store's credentials have made (a tail's polls among them), as logged. */
async function logReads(): Promise<number> {
  await app.requestLog?.flush();
  const [row] = await rows<{ n: number }>(
    app.em(),
    sql`SELECT count(*)::integer AS n FROM request_log WHERE operation = 'listRequests' AND store_id = ${store.id}`,
  );
  return row?.n ?? 0;
}

/** A request through HTTP, answered with its request id once its batch is written. */
async function made(path: string, key = store.readWrite): Promise<string> {
  const res = await send(app, 'GET', path, { key });
  const id = res.headers.get('x-request-id') ?? '';
  await until(async () => {
    await app.requestLog?.flush();
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM request_log WHERE request_id = ${id}`,
    );
    return (row?.n ?? 0) > 0;
  });
  return id;
}

describe('the SDK', () => {
  it('lists, gets and iterates every page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await made('/api/v1/vendor/me'));
    const page = await client.requests.list({ operation: 'getStore', limit: 2 });
    expect(page.requests.map((r) => r.id)).toEqual([ids[4], ids[3]]);
    expect(page.has_more).toBe(true);
    const walked: string[] = [];
    for await (const r of client.requests.iterate({ operation: 'getStore', limit: 2 })) walked.push(r.id);
    expect(walked).toEqual([...ids].reverse());
    const one = await client.requests.get(ids[0] ?? '');
    expect(one.request).toMatchObject({ id: ids[0], operation: 'getStore', status: 200 });
    const missing = await client.requests.get('req_not_logged').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(StocklessError);
    expect((missing as StocklessError).code).toBe('REQUEST_NOT_FOUND');
  });

  it('tail yields each new request once, oldest first, and leaves out its own polls', async () => {
    await made('/api/v1/vendor/me');
    const polledBefore = await logReads();
    const stop = new AbortController();
    const got: LoggedRequest[] = [];
    const tailing = (async () => {
      for await (const r of client.requests.tail({ intervalMs: 100, signal: stop.signal })) got.push(r);
    })();
    // The tail's first poll (its own read, logged once its answer is sent) sets what "from now" is.
    await until(async () => (await logReads()) > polledBefore);
    const a = await made('/api/v1/orders/1');
    const b = await made('/api/v1/vendor/me');
    await until(() => got.some((r) => r.id === b));
    await sleep(300);
    stop.abort();
    await tailing;
    // What was logged before the tail started is not shown; nothing twice; none of its own polls.
    expect(got.map((r) => r.id)).toEqual([a, b]);
    expect(describeRequest(got[0] as LoggedRequest)).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  404  GET    /api/v1/orders/1  \\d+\\.\\d ms  ${a}  ORDER_NOT_FOUND$`,
      ),
    );
  });
});

/** `npm run listen -- …` as a process: its output so far, and its end. */
function listenTool(args: string[]) {
  const root = resolve(import.meta.dirname, '../..');
  const child = spawn(resolve(root, 'node_modules/.bin/node'), ['client/src/listen-cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, STOCKLESS_API_KEY: '' },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exit = new Promise<number | null>((done) => child.once('exit', done));
  return { child, output: () => output, exit };
}

describe('listen --requests', () => {
  it('prints one line per new request that passes its filters, and stops on Ctrl-C', async () => {
    const tool = listenTool([
      '--requests',
      '--api-key',
      store.read,
      '--base-url',
      app.url,
      '--status-class',
      '4xx',
    ]);
    const polledBefore = await logReads();
    await until(() => tool.output().includes('Following'));
    // Its first poll (logged once answered) sets what "from now" is.
    await until(async () => (await logReads()) > polledBefore, 15_000);
    const ok = await made('/api/v1/vendor/me');
    const refused = await made('/api/v1/orders/77');
    await until(() => tool.output().includes(refused), 15_000);
    tool.child.kill('SIGINT');
    expect(await tool.exit).toBe(0);
    const lines = tool
      .output()
      .split('\n')
      .filter((l) => l.includes(refused));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ {2}404 {2}GET {4}\/api\/v1\/orders\/77 {2}[\d.]+ ms {2}/);
    expect(tool.output()).not.toContain(ok);
  });

  it('refuses a malformed filter with its usage, and a bad key with the API’s words', async () => {
    const bad = listenTool([
      '--requests',
      '--api-key',
      store.read,
      '--base-url',
      app.url,
      '--status-class',
      '3xx',
    ]);
    expect(await bad.exit).toBe(2);
    expect(bad.output()).toContain('--status-class 3xx: expected 2xx, 4xx or 5xx');
    const refused = listenTool([
      '--requests',
      '--api-key',
      `sl_live_${'b'.repeat(40)}`,
      '--base-url',
      app.url,
    ]);
    expect(await refused.exit).toBe(1);
    expect(refused.output()).toMatch(/Invalid credential/);
  });
});

describe('a serve process', () => {
  it('writes the requests its buffer holds when it is stopped (SIGTERM), however long its flush interval', async () => {
    const db = await createTestDatabase();
    const proc = await startApiProcess(db.databaseUrl, { REQUEST_LOG_FLUSH: '10m' });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${proc.url}/api/v1/vendor/me`, {
          headers: { authorization: `Bearer ${db.first.read}` },
        });
        ids.push(res.headers.get('x-request-id') ?? '');
      }
      await sleep(200);
      const count = async () =>
        (await rows<{ n: number }>(db.em(), sql`SELECT count(*)::integer AS n FROM request_log`))[0]?.n;
      expect(await count()).toBe(0);
      await proc.stop();
      const logged = await rows<{ request_id: string }>(
        db.em(),
        sql`SELECT request_id FROM request_log ORDER BY created_at`,
      );
      expect(logged.map((r) => r.request_id)).toEqual(ids);
    } finally {
      await proc.stop().catch(() => {});
      await db.close();
    }
  });
});
