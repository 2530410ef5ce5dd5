import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { oas31 } from 'zod-openapi';
import type { CodeSample } from '../../server/contract/code-samples.ts';
import { buildOpenApiDocument } from '../../server/contract/document.ts';
import { type DemoCredentials, seedDemo } from '../../src/demo/demo-store.ts';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { setWebhookResolver } from '../../src/webhooks/delivery/url-guard.ts';
import { webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The reference's curl samples, copied as printed and run with a shell, work against what
 * `npm start` seeds: its ids and prices are those of the demo data (product 1042, order 1, event
 * evt_1), and the Idempotency-Key is made with tools every shell has. A sample that needs an object
 * the demo does not make (a webhook subscription, a marketplace order to cancel, a test order for the
 * test helpers) is left out here,
 * by name.
 */
const run = promisify(execFile);
/** What `npm start` seeds by default (DEMO_PRODUCTS). */
const DEMO_PRODUCTS = 3000;
/** The samples' own base URL, replaced by the test app's. */
const SAMPLE_BASE = 'http://localhost:3000';
/**
 * Operations whose samples act on objects the demo does not make (a logged request: the test app
 * records none; the test helpers: a test order; an export).
 */
const NEEDS_MORE_THAN_THE_DEMO =
  /\/vendor\/webhooks\/\{|\/orders\/external\/\{id\}\/cancel|\/requests\/\{request_id\}|\/test_helpers\/|\/exports\/\{id\}/;

let app: TestApp;
let demo: DemoCredentials;
let doc: oas31.OpenAPIObject;

beforeAll(async () => {
  app = await startTestApp();
  // The webhook sample's https://example.com/… must resolve without a network: to a loopback address
  // (which the test app allows, as a developer's machine may).
  setWebhookResolver(async () => [{ address: '127.0.0.1', family: 4, ttl: 60 }]);
  demo = await seedDemo(app.em(), DEMO_PRODUCTS);
  // The worker would have put the demo orders' events in the log by now.
  await dispatchPendingEvents(app.em(), webhookFanOut(1000));
  doc = buildOpenApiDocument();
}, 180_000);
afterAll(async () => {
  setWebhookResolver();
  await app?.close();
});

/** Runs a printed curl sample with bash, as a reader pastes it; answers the HTTP status. */
async function runSample(source: string): Promise<{ status: number; body: string }> {
  const command = `${source.replaceAll(SAMPLE_BASE, app.url)} -s -w '\\n%{http_code}'`;
  const { stdout } = await run('bash', ['-c', command], {
    env: { ...process.env, STOCKLESS_API_KEY: demo.read_write_key },
    cwd: mkdtempSync(join(tmpdir(), 'stockless-sample-')),
  });
  const lines = stdout.trimEnd().split('\n');
  return { status: Number(lines.at(-1)), body: lines.slice(0, -1).join('\n') };
}

/** The curl sample of every /api/v1 operation the demo alone can serve, reads first. */
function samples(): { name: string; source: string }[] {
  const out: { name: string; source: string; read: boolean }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/api/v1/') || NEEDS_MORE_THAN_THE_DEMO.test(path)) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const curl = (item[method]?.['x-codeSamples'] as CodeSample[] | undefined)?.find(
        (s) => s.label === 'curl',
      );
      if (curl)
        out.push({ name: `${method.toUpperCase()} ${path}`, source: curl.source, read: method === 'get' });
    }
  }
  // Reads, then writes, then removals: as a reader would try them on one demo.
  const removal = (s: { name: string }) => s.name.startsWith('DELETE') || s.name.includes('bulk-remove');
  return [
    ...out.filter((s) => s.read),
    ...out.filter((s) => !s.read && !removal(s)),
    ...out.filter((s) => !s.read && removal(s)),
  ];
}

describe("the reference's curl samples against npm start's demo", () => {
  it('are printed without tools a shell may lack', () => {
    const all = JSON.stringify(doc);
    expect(all).not.toContain('uuidgen');
  });

  it('place a wholesale order as printed: 201, not a 404 for an unknown variant', async () => {
    const sample = samples().find((s) => s.name === 'POST /api/v1/orders');
    if (!sample) throw new Error('no POST /orders sample');
    const res = await runSample(sample.source);
    expect(res.status, res.body).toBe(201);
  });

  it('every read answers 2xx, and so does every write in the reference order', async () => {
    const failed: string[] = [];
    for (const sample of samples()) {
      const res = await runSample(sample.source);
      if (res.status < 200 || res.status > 299)
        failed.push(`${sample.name} → ${res.status} ${res.body.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
    // One curl process a sample, one after another: the time grows with the contract's operations, and
    // on a loaded machine 80 of them passed 30 s. Each sample is still checked; only the wait is longer.
  }, 120_000);
});
