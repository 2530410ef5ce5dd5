import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { resolve } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  developmentSecret,
  type GetEventResponse,
  listen,
  Stockless,
  verifyWebhook,
} from '../client/src/index.ts';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import { rows, sql } from '../src/db/sql.ts';
import { dispatchPendingEvents } from '../src/events/dispatch.ts';
import { triggerEvent } from '../src/sandbox/trigger-event.ts';
import { createApiKey } from '../src/store/create-api-key.ts';
import { closeCoalescingWindow, webhookFanOut } from '../src/webhooks/fanout.ts';
import { startTestApp, type TestApp, testContext } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { fixtures } from './helpers/fixtures.ts';
import { send } from './helpers/http.ts';

/**
 * A newcomer's loop: `trigger` makes a test event happen, `listen` follows the store's test events
 * and POSTs each to localhost signed exactly as a delivery, so a webhook consumer is developed with
 * no certificate, no public address, no subscription and no restart.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let testKey: string;
let productId: number;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Listening');
  testKey = (await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read', mode: 'test' })).key;
  const supplierId = await fixtures(app.em()).supplier({ name: 'Listen Maker' });
  productId = await fixtures(app.em()).product({ supplierId, stock: [20] });
  const listed = await send(app, 'POST', '/api/v1/my-products', {
    key: store.readWrite,
    body: { product_id: productId },
  });
  expect(listed.status).toBe(201);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(received.length === 2 ? 500 : 200).end('ok');
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((done) => receiver.close(() => done()));
  await app.close();
});

/** What the worker's dispatcher does: the outbox's events into the log (and any coalescing window, closed). */
async function dispatch() {
  await dispatchPendingEvents(app.em(), webhookFanOut(60_000));
  const windows = await rows<{ id: string; payload: unknown }>(
    app.em(),
    sql`SELECT j.id::text AS id, j.payload FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = ${JOBS.webhookCoalesce}`,
  );
  for (const w of windows) {
    await closeCoalescingWindow(app.em(), parseJobPayload(JOBS.webhookCoalesce, w.payload));
    await rows(app.em(), sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${w.id}::bigint`);
  }
}

const trigger = (event: Parameters<typeof triggerEvent>[1]['event']) =>
  triggerEvent(testContext(app), { storeId: store.id, event });

async function until(check: () => boolean, ms = 10_000) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('trigger', () => {
  it('order events come from a real test order moved along its states', async () => {
    const shipped = await trigger('order.shipped');
    expect(shipped).toMatchObject({ event: 'order.shipped', livemode: false, order: { status: 'shipped' } });
    const orderId = 'order' in shipped ? shipped.order.id : 0;
    const events = await rows<{ event: string; livemode: boolean }>(
      app.em(),
      sql`SELECT event, livemode FROM domain_events WHERE entity_id = ${orderId} AND store_id = ${store.id}
        AND (event LIKE 'order.%' OR event = 'invoice.issued') ORDER BY id`,
    );
    expect(events.map((e) => e.event)).toEqual([
      'order.created',
      'order.updated',
      'order.fulfilled',
      'order.shipped',
      'invoice.issued',
    ]);
    expect(events.every((e) => !e.livemode)).toBe(true);
    // A live key sees none of it.
    expect((await send(app, 'GET', `/api/v1/orders/${orderId}`, { key: store.read })).status).toBe(404);
  });

  it('product, inventory and site events are test announcements: the listing and stock stay as they are', async () => {
    const before = await rows(
      app.em(),
      sql`SELECT stock_quantity FROM product_variants WHERE product_id = ${productId}`,
    );
    for (const event of ['product.updated', 'inventory.updated', 'site.published'] as const) {
      expect(await trigger(event)).toMatchObject({ event, livemode: false });
    }
    const after = await rows(
      app.em(),
      sql`SELECT stock_quantity FROM product_variants WHERE product_id = ${productId}`,
    );
    expect(after).toEqual(before);
    const [store_] = await rows<{ published_at: string | null }>(
      app.em(),
      sql`SELECT published_at::text FROM stores WHERE id = ${store.id}`,
    );
    expect(store_?.published_at).toBeNull();
  });

  it('order.held comes from a test marketplace post that cannot be mapped', async () => {
    expect(await trigger('order.held')).toMatchObject({ result: 'held', livemode: false });
  });

  it('refuses an unknown event or store from the command line, naming what is wrong', async () => {
    const unknown = await runCli(app.databaseUrl, 'trigger', 'order.teleported', '--store', String(store.id));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('EVENT must be one of order.created');
    const made = await runCli(
      app.databaseUrl,
      'trigger',
      'order.created',
      '--store',
      String(store.id),
      '--json',
    );
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ event: 'order.created', livemode: false });
    const noStore = await runCli(app.databaseUrl, 'trigger', 'order.created', '--store', '999999');
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toContain('No store with id 999999');
  });
});

describe('listen', () => {
  it('forwards each new test event to localhost, signed as a real delivery, and reports the answers', async () => {
    await dispatch();
    received.length = 0;
    const secret = developmentSecret();
    const stop = new AbortController();
    const lines: { status?: number; id: string }[] = [];
    const running = listen(new Stockless({ baseUrl: app.url, apiKey: testKey }), {
      forwardTo: receiverUrl,
      secret,
      signal: stop.signal,
      onForward: (f) => lines.push({ status: f.status, id: f.event.id }),
    });
    // Let the first long poll start: earlier events are not forwarded.
    await new Promise((r) => setTimeout(r, 300));
    await trigger('order.updated');
    await dispatch();
    // Both answers reported, not only both requests received: stopping between the two aborts the
    // second forward before its answer is read (a CI run saw [200, undefined]).
    await until(() => received.length >= 2 && lines.length >= 2);
    stop.abort();
    await running;

    expect(received.map((r) => r.headers['x-stockless-event'])).toEqual(['order.created', 'order.updated']);
    expect(lines.map((l) => l.status)).toEqual([200, 500]);
    const [first] = received;
    if (!first) throw new Error('nothing received');
    const event = verifyWebhook(first.body, String(first.headers['x-stockless-signature']), secret);
    expect(event).toMatchObject({ event: 'order.created', livemode: false });
    const standard = new StandardWebhook(secret.slice('whsec_'.length));
    expect(
      standard.verify(first.body, {
        'webhook-id': String(first.headers['webhook-id']),
        'webhook-timestamp': String(first.headers['webhook-timestamp']),
        'webhook-signature': String(first.headers['webhook-signature']),
      }),
    ).toMatchObject({ id: event.id });
    expect(first.headers['x-stockless-event-id']).toBe(event.id);
    // The body is the event as the events API answers it: what a real delivery carries.
    const logged = await send<GetEventResponse>(app, 'GET', `/api/v1/events/${event.id}`, { key: testKey });
    expect(JSON.parse(first.body)).toEqual(logged.body.event);
  });

  it('runs from the operator CLI with a key of its own, revoked when it stops', async () => {
    received.length = 0;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: app.databaseUrl,
      PUBLIC_URL: app.url,
      LOG_LEVEL: 'silent',
    };
    delete env.OPERATOR_TOKEN;
    const root = resolve(import.meta.dirname, '..');
    const child = spawn(
      resolve(root, 'node_modules/.bin/node'),
      [
        'server/cli/main.ts',
        'listen',
        '--store',
        String(store.id),
        '--forward-to',
        receiverUrl,
        '--events',
        'order.*',
      ],
      { cwd: root, env },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    await until(() => stderr.includes('Signing secret: whsec_'), 20_000);
    await new Promise((r) => setTimeout(r, 500));
    await trigger('order.created');
    await trigger('site.unpublished');
    await dispatch();
    await until(() => /order\.created\s+evt_\d+\s+→ (200|500)/.test(stdout), 20_000);
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(received.map((r) => r.headers['x-stockless-event'])).toEqual(['order.created']);
    const secret = /Signing secret: (whsec_\S+)/.exec(stderr)?.[1] ?? '';
    const [got] = received;
    if (!got) throw new Error('nothing received');
    expect(verifyWebhook(got.body, String(got.headers['x-stockless-signature']), secret).event).toBe(
      'order.created',
    );
    const keys = await rows<{ revoked: boolean }>(
      app.em(),
      sql`SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE store_id = ${store.id} AND name = 'cli listen (temporary)'`,
    );
    expect(keys).toEqual([{ revoked: true }]);
  });

  it('runs as the SDK’s own command with just an API key', async () => {
    received.length = 0;
    const root = resolve(import.meta.dirname, '..');
    const node = resolve(root, 'node_modules/.bin/node');
    const bad = spawn(node, ['client/src/listen-cli.ts', '--api-key', testKey], { cwd: root });
    let usage = '';
    bad.stderr.on('data', (c: Buffer) => {
      usage += c.toString();
    });
    expect(await new Promise((done) => bad.once('exit', done))).toBe(2);
    expect(usage).toContain('--forward-to is required');

    const child = spawn(
      node,
      ['client/src/listen-cli.ts', '--api-key', testKey, '--base-url', app.url, '--forward-to', receiverUrl],
      { cwd: root },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    await until(() => stdout.includes('signing secret: whsec_'), 20_000);
    await new Promise((r) => setTimeout(r, 500));
    await trigger('order.cancelled');
    await dispatch();
    await until(() => /order\.cancelled\s+evt_\d+\s+→/.test(stdout), 20_000);
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(received.map((r) => r.headers['x-stockless-event'])).toEqual(['order.created', 'order.cancelled']);
  });
});
