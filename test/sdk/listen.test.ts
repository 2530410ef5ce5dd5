import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  developmentSecret,
  type GetEventResponse,
  listen,
  Stockless,
  StocklessConnectionError,
  verifyWebhook,
} from '../../client/src/index.ts';
import { JOBS, parseJobPayload } from '../../src/db/jobs.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { triggerEvent } from '../../src/sandbox/trigger-event.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { closeCoalescingWindow, webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';

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
/** Where the tools keep their signing secrets in these tests (never the user's own ~/.config). */
let configDir: string;
const toolEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  STOCKLESS_CONFIG_DIR: configDir,
  ...extra,
});
const received: Received[] = [];

beforeAll(async () => {
  app = await startTestApp();
  configDir = mkdtempSync(join(tmpdir(), 'stockless-listen-'));
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
    // Each event in the log carries the order as it was at its own step, not the end of the chain.
    const page = await new Stockless({ baseUrl: app.url, apiKey: testKey }).events.list({
      order: 'asc',
      limit: 100,
    });
    const logged = page.events.flatMap((e) => {
      const order = (e.data as { order?: { id: number; status: string } }).order;
      return order?.id === orderId ? [{ event: e.event, status: order.status }] : [];
    });
    expect(logged).toEqual([
      { event: 'order.created', status: 'pending' },
      { event: 'order.updated', status: 'processing' },
      { event: 'order.fulfilled', status: 'fulfilled' },
      { event: 'order.shipped', status: 'shipped' },
      { event: 'invoice.issued', status: 'shipped' },
    ]);
  });

  it('product, inventory and site events are test announcements: the listing and stock stay as they are', async () => {
    const before = await rows(
      app.em(),
      sql`SELECT stock_quantity FROM product_variants WHERE product_id = ${productId}`,
    );
    for (const event of ['product.updated', 'inventory.updated'] as const) {
      // Coalesced as live ones are: the answer says when the event will arrive.
      expect(await trigger(event)).toMatchObject({ event, livemode: false, arrives_in_seconds: 1 });
    }
    const site = await trigger('site.published');
    expect(site).toMatchObject({ event: 'site.published', livemode: false });
    expect(site).not.toHaveProperty('arrives_in_seconds');
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
    const typo = await runCli(app.databaseUrl, 'trigger', 'order.create', '--store', String(store.id));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "order.created"?');
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
      STOCKLESS_CONFIG_DIR: configDir,
    };
    delete env.OPERATOR_TOKEN;
    const root = resolve(import.meta.dirname, '../..');
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
    const root = resolve(import.meta.dirname, '../..');
    const node = resolve(root, 'node_modules/.bin/node');
    const bad = spawn(node, ['client/src/listen-cli.ts', '--api-key', testKey], {
      cwd: root,
      env: toolEnv(),
    });
    let usage = '';
    bad.stderr.on('data', (c: Buffer) => {
      usage += c.toString();
    });
    expect(await new Promise((done) => bad.once('exit', done))).toBe(2);
    expect(usage).toContain('--forward-to is required');

    const child = spawn(
      node,
      ['client/src/listen-cli.ts', '--api-key', testKey, '--base-url', app.url, '--forward-to', receiverUrl],
      { cwd: root, env: toolEnv() },
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

/**
 * A stand-in for the API's address that can go away and come back on the same port, as `npm start`
 * does when it restarts: while it is down, connections are refused.
 */
async function restartableProxy(target: string) {
  let server: Server | undefined;
  let port = 0;
  const up = async () => {
    const proxy = createServer((req, res) => {
      const upstream = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((done) => proxy.listen(port, '127.0.0.1', done));
    const address = proxy.address();
    port = typeof address === 'object' && address ? address.port : 0;
    server = proxy;
  };
  const down = async () => {
    server?.closeAllConnections();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    server = undefined;
  };
  await up();
  return { url: () => `http://127.0.0.1:${port}`, up, down };
}

/** A port nothing listens on (fetch refuses well-known ports such as 1 before trying them). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const address = probe.address();
  await new Promise<void>((done) => probe.close(() => done()));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Runs a tool to its end: its exit code and everything it printed. */
function runTool(args: string[], env: NodeJS.ProcessEnv) {
  const root = resolve(import.meta.dirname, '../..');
  const child = spawn(resolve(root, 'node_modules/.bin/node'), args, { cwd: root, env });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  return {
    child,
    output: () => output,
    exit: new Promise<number | null>((done) => child.once('exit', done)),
  };
}

describe('listen through restarts, with a kept secret, and resending', () => {
  it('waits out a restart of the API and resumes where it was, skipping nothing', async () => {
    await dispatch();
    received.length = 0;
    const proxy = await restartableProxy(app.url);
    const stop = new AbortController();
    const changes: string[] = [];
    const forwarded: string[] = [];
    const running = listen(
      new Stockless({ baseUrl: proxy.url(), apiKey: testKey, retry: { maxRetries: 0 } }),
      {
        forwardTo: receiverUrl,
        secret: developmentSecret(),
        signal: stop.signal,
        maxBackoffMs: 300,
        onConnection: (c) => changes.push(c.state),
        onForward: (f) => forwarded.push(f.event.event),
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    await proxy.down();
    // Events that happen while the listener cannot reach the API are forwarded once it can.
    await trigger('order.cancelled');
    await dispatch();
    await until(() => changes.includes('lost'));
    await proxy.up();
    await until(() => forwarded.length >= 2, 20_000);
    stop.abort();
    await running;
    expect(changes.at(-1)).toBe('restored');
    expect(forwarded).toEqual(['order.created', 'order.cancelled']);
  });

  it('says where it cannot reach, names the setting, and keeps trying: no stack trace', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const tool = runTool(['client/src/listen-cli.ts', '--api-key', testKey, '--forward-to', receiverUrl], {
      ...toolEnv({ STOCKLESS_URL: nowhere }),
    });
    await until(() => tool.output().includes('Retrying in'), 20_000);
    tool.child.kill('SIGINT');
    expect(await tool.exit).toBe(0);
    expect(tool.output()).toContain(`Cannot reach the Stockless API at ${nowhere} (ECONNREFUSED)`);
    expect(tool.output()).toContain('STOCKLESS_URL');
    expect(tool.output()).not.toMatch(/\n\s+at /);
  });

  it('signs with the same secret for the same store and URL on every run, another for another URL', async () => {
    const secretOf = async (forwardTo: string) => {
      const tool = runTool(['client/src/listen-cli.ts', '--api-key', testKey, '--forward-to', forwardTo], {
        ...toolEnv({ STOCKLESS_URL: app.url }),
      });
      await until(() => tool.output().includes('signing secret: whsec_'), 20_000);
      tool.child.kill('SIGINT');
      await tool.exit;
      return /signing secret: (whsec_\S+)/.exec(tool.output())?.[1];
    };
    const first = await secretOf(receiverUrl);
    expect(first).toMatch(/^whsec_/);
    expect(await secretOf(receiverUrl)).toBe(first);
    expect(await secretOf(`${receiverUrl}/other`)).not.toBe(first);
  });

  it('resends one event by id, signed afresh; a receiver that refuses it fails the command', async () => {
    await trigger('order.created');
    await dispatch();
    const [latest] = (await new Stockless({ baseUrl: app.url, apiKey: testKey }).events.list({ limit: 1 }))
      .events;
    if (!latest) throw new Error('no event');
    received.length = 0;
    const args = ['client/src/listen-cli.ts', '--api-key', testKey, '--forward-to', receiverUrl];
    const ok = runTool([...args, '--resend', latest.id], toolEnv({ STOCKLESS_URL: app.url }));
    expect(await ok.exit, ok.output()).toBe(0);
    expect(received.map((r) => r.headers['x-stockless-event-id'])).toEqual([latest.id]);
    const down = runTool(
      [
        'client/src/listen-cli.ts',
        '--api-key',
        testKey,
        '--forward-to',
        `http://127.0.0.1:${await closedPort()}/hook`,
        '--resend',
        latest.id,
      ],
      toolEnv({ STOCKLESS_URL: app.url }),
    );
    expect(await down.exit).toBe(1);
    expect(down.output()).toMatch(/→ failed: .*ECONNREFUSED/);
  });

  it('names the address in the SDK error when the API cannot be reached', async () => {
    const client = new Stockless({ baseUrl: 'http://127.0.0.1:1', apiKey: testKey, retry: false });
    const err = await client.store.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StocklessConnectionError);
    expect((err as StocklessConnectionError).url).toBe('http://127.0.0.1:1/api/v1/vendor/me');
    expect((err as Error).message).toContain('Cannot reach the Stockless API at http://127.0.0.1:1');
  });
});
