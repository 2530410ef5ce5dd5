import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET_KEY } from '../helpers/app.ts';
import { freePort } from '../helpers/http.ts';
import { createTestDatabase, PROCESS_PUBLIC_URL, type TestDatabase } from '../helpers/processes.ts';
import { sampleValue, scrape } from '../helpers/prometheus.ts';

/**
 * `npm start`'s both-in-one mode (`server/main.ts all`, a real process): one metrics listener answers
 * the API's and the worker's metrics, and the partner port does not serve them.
 */

let db: TestDatabase & { first: { read: string } };
let child: ChildProcess;
let api: string;
let metrics: string;
let output = '';

beforeAll(async () => {
  db = await createTestDatabase();
  const [port, metricsPort] = [await freePort(), await freePort()];
  api = `http://127.0.0.1:${port}`;
  metrics = `http://127.0.0.1:${metricsPort}`;
  child = spawn(process.execPath, ['server/main.ts', 'all'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: db.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      PUBLIC_URL: PROCESS_PUBLIC_URL,
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE: '1s',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${api}/health/live`).catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`all did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 60_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await db?.close();
});

describe('npm start (all)', () => {
  it("answers the API's and the worker's metrics on one listener, never on the partner port", async () => {
    const before = await scrape(metrics);
    const res = await fetch(`${api}/api/v1/products?limit=1`, {
      headers: { authorization: `Bearer ${db.first.read}` },
    });
    expect(res.status).toBe(200);
    const after = await scrape(metrics);
    const listed = { operation: 'listProducts', status: '200' };
    expect(
      sampleValue(after, 'stockless_http_requests_total', listed) -
        sampleValue(before, 'stockless_http_requests_total', listed),
    ).toBe(1);
    // The worker's side: its pool and the database gauges, from the same process.
    expect(sampleValue(after, 'stockless_db_gauges_up'), output).toBe(1);
    expect(sampleValue(after, 'stockless_db_pool_max', { pool: 'worker' })).toBeGreaterThan(0);
    expect(sampleValue(after, 'stockless_db_pool_max', { pool: 'api' })).toBeGreaterThan(0);
    expect((await fetch(`${api}/metrics`)).status).toBe(404);
    expect((await fetch(`${metrics}/api/v1/products`)).status).toBe(404);
  });
});
