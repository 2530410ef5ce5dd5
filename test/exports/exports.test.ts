import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../src/db/jobs.ts';
import { observeStatements, rows, sql } from '../../src/db/sql.ts';
import { signedUrl } from '../../src/exports/signed-url.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import {
  createExport,
  dispatch,
  download,
  exportSettings,
  getExport,
  local,
  runQueuedExports,
  settled,
} from './helpers.ts';

/**
 * Bulk exports end to end over HTTP: POST /api/v1/exports, the `export_run` job (run in this process
 * as the worker runs it), progress, the export.completed event and its webhook delivery, the signed
 * download, and each line against the list endpoint it claims to equal.
 */

let app: TestApp;
let supplierId: number;
const settings = exportSettings(2);

beforeAll(async () => {
  app = await startTestApp({ EXPORT_DIR: settings.dir });
  supplierId = await fixtures(app.em()).supplier({ name: 'Export Supplier' });
});
afterAll(async () => {
  await app?.close();
});

type Store = Awaited<ReturnType<TestApp['createStore']>>;

async function products(store: Store, stocks: number[]): Promise<number[]> {
  const f = fixtures(app.em());
  const ids: number[] = [];
  for (const stock of stocks) ids.push(await f.product({ supplierId, stock: [stock] }));
  await f.listing(store.id, ids[0] as number, { customRetail: 2500 });
  return ids;
}

describe('a catalogue export', () => {
  it('is queued (202), written in batches with progress, and each line is the list item of GET /products', async () => {
    const store = await app.createStore('Catalogue Export');
    const ids = await products(store, [3, 0, 7, 1, 0]);
    const created = await createExport(app, store.readWrite, {
      type: 'catalogue',
      filters: { in_stock: true },
    });
    expect(created.status, created.text).toBe(202);
    const exp = created.body.export;
    expect(exp).toMatchObject({
      object: 'export',
      type: 'catalogue',
      status: 'queued',
      filters: { in_stock: true },
      livemode: true,
      rows_written: 0,
      row_count: null,
      url: null,
      continuation: null,
      error: null,
    });
    expect(exp.id).toMatch(/^exp_\d+$/);
    expect((await getExport(app, store.read, exp.id)).status).toBe('queued');

    const progress: unknown[] = [];
    observeStatements((s) => {
      if (/^UPDATE exports SET rows_written = \$1 WHERE/.test(s.sql)) progress.push(s.parameters[0]);
      return () => {};
    });
    try {
      expect(await runQueuedExports(app, settings)).toBe(1);
    } finally {
      observeStatements(undefined);
    }
    const done = await getExport(app, store.read, exp.id);
    // Every in-stock product of the catalogue (other tests' products too): batches of 2, progress each.
    const list = await send<{ products: { id: number }[] }>(
      app,
      'GET',
      '/api/v1/products?in_stock=true&limit=500',
      {
        key: store.read,
      },
    );
    expect(list.status).toBe(200);
    const expected = list.body.products.sort((a, b) => a.id - b.id);
    expect(done).toMatchObject({
      status: 'completed',
      row_count: expected.length,
      rows_written: expected.length,
    });
    expect(progress).toEqual(
      Array.from({ length: Math.ceil(expected.length / 2) }, (_, i) =>
        Math.min(2 * (i + 1), expected.length),
      ),
    );
    expect(done.started_at).not.toBeNull();
    expect(done.completed_at).not.toBeNull();
    expect(Date.parse(done.expires_at ?? '') - Date.parse(done.completed_at ?? '')).toBe(7 * 86_400_000);
    expect(done.continuation?.events_cursor).toMatch(/\./);
    expect(done.continuation?.inventory_cursor).toBeNull();

    const lines = await download(app, done);
    expect(lines).toEqual(expected);
    expect(lines.map((l) => (l as { id: number }).id)).toEqual(
      expect.arrayContaining([ids[0], ids[2], ids[3]]),
    );
    // The listed product's line carries the store's own price, as GET /products/{id} shows it.
    const one = await send<{ product: Record<string, unknown> }>(app, 'GET', `/api/v1/products/${ids[0]}`, {
      key: store.read,
    });
    const line = lines.find((l) => (l as { id: number }).id === ids[0]) as Record<string, unknown>;
    for (const [k, v] of Object.entries(line)) expect(one.body.product[k], k).toEqual(v);
    expect(line).toMatchObject({ in_store: true, custom_retail_price_cents: 2500 });
  });

  it('sends export.completed through the event log and to the subscriptions that name it, once', async () => {
    const store = await app.createStore('Export Events');
    await products(store, [2]);
    const hook = await send<{ webhook: { id: number } }>(app, 'POST', '/api/v1/vendor/webhooks', {
      key: store.readWrite,
      body: { url: 'https://127.0.0.1:9/hook', events: ['export.completed'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const created = await createExport(app, store.readWrite, { type: 'listings' });
    expect(created.status, created.text).toBe(202);
    await runQueuedExports(app, settings);
    // A second run of the same export (a retry after a crash) finds it ended: no second file or event.
    await rows(
      app.em(),
      sql`SELECT graphile_worker.add_job(${JOBS.runExport}::text, json_build_object('export_id', ${Number(created.body.export.id.slice(4))}::integer))`,
    );
    await runQueuedExports(app, settings);
    await dispatch(app);
    await settled(app, store.id);
    const events = await send<{ events: { event: string; data: { export: Record<string, unknown> } }[] }>(
      app,
      'GET',
      '/api/v1/events?type=export.*',
      { key: store.read },
    );
    expect(events.status, events.text).toBe(200);
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({
      event: 'export.completed',
      data: {
        export: {
          id: created.body.export.id,
          type: 'listings',
          status: 'completed',
          row_count: 1,
          error: null,
        },
      },
    });
    const [deliveries] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE subscription_id = ${hook.body.webhook.id}`,
    );
    expect(deliveries?.n).toBe(1);
    const files = readdirSync(settings.dir).filter((f) => f.startsWith(`${created.body.export.id}.`));
    expect(files).toEqual([`${created.body.export.id}.jsonl.gz`]);
  });
});

describe('test mode', () => {
  it("a test export's export.completed reaches only the store's test subscriptions", async () => {
    const store = await app.createStore('Test Mode Events');
    await products(store, [1]);
    const testKey = (
      await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read_write', mode: 'test' })
    ).key;
    const hook = async (key: string) => {
      const res = await send<{ webhook: { id: number } }>(app, 'POST', '/api/v1/vendor/webhooks', {
        key,
        body: { url: 'https://127.0.0.1:9/hook', events: ['export.completed'] },
      });
      expect(res.status, res.text).toBe(201);
      return res.body.webhook.id;
    };
    const live = await hook(store.readWrite);
    const test = await hook(testKey);
    const created = await createExport(app, testKey, { type: 'listings' });
    expect(created.body.export.livemode).toBe(false);
    await runQueuedExports(app, settings);
    await dispatch(app);
    const count = async (subscription: number) =>
      (
        await rows<{ n: number }>(
          app.em(),
          sql`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE subscription_id = ${subscription}`,
        )
      )[0]?.n;
    expect(await count(test)).toBe(1);
    expect(await count(live)).toBe(0);
    const events = await send<{ events: { livemode: boolean }[] }>(
      app,
      'GET',
      '/api/v1/events?type=export.*',
      {
        key: store.read,
      },
    );
    expect(events.body.events).toEqual([]);
  });
});

describe('a listings export', () => {
  it('lines are GET /my-products?include=variants items; the inventory cursor is handed back', async () => {
    const store = await app.createStore('Listings Export');
    const f = fixtures(app.em());
    const a = await f.product({ supplierId, stock: [2, 5] });
    const b = await f.product({ supplierId, stock: [0] });
    await f.listing(store.id, a);
    await f.listing(store.id, b, { customRetail: 4100 });
    await f.listing(store.id, await f.product({ supplierId }), { deleted: true });
    const created = await createExport(app, store.readWrite, { type: 'listings' });
    expect(created.status, created.text).toBe(202);
    await runQueuedExports(app, settings);
    const done = await getExport(app, store.read, created.body.export.id);
    const lines = await download(app, done);
    const list = await send<{ products: { id: number }[] }>(
      app,
      'GET',
      '/api/v1/my-products?include=variants',
      {
        key: store.read,
      },
    );
    expect(lines).toEqual(list.body.products.sort((x, y) => x.id - y.id));
    expect(lines).toHaveLength(2);
    expect(done.continuation?.inventory_cursor).toMatch(/\./);
    const feed = await send(
      app,
      'GET',
      `/api/v1/inventory?updated_since=${done.continuation?.inventory_cursor}`,
      {
        key: store.read,
      },
    );
    expect(feed.status, feed.text).toBe(200);
  });
});

describe('the signed download url', () => {
  let store: Store;
  let done: Awaited<ReturnType<typeof getExport>>;
  beforeAll(async () => {
    store = await app.createStore('Download Store');
    await products(store, [1]);
    const created = await createExport(app, store.readWrite, { type: 'listings' });
    await runQueuedExports(app, settings);
    done = await getExport(app, store.read, created.body.export.id);
  });

  it('needs no key, is re-signed on each GET, and answers HEAD with the headers alone', async () => {
    const url = new URL(local(app, done.url ?? ''));
    expect(url.pathname).toBe(`/api/v1/exports/${done.id}/file`);
    expect(Number(url.searchParams.get('expires')) * 1000).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect(Date.parse(done.url_expires_at ?? '')).toBe(Number(url.searchParams.get('expires')) * 1000);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(done.bytes);
    expect(await head.text()).toBe('');
  });

  it.each([
    [
      'an edited signature',
      (u: URL) => u.searchParams.set('signature', `A${u.searchParams.get('signature')?.slice(1)}`),
    ],
    [
      'a later expires',
      (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 60)),
    ],
    ['no signature', (u: URL) => u.searchParams.delete('signature')],
    [
      'another export id',
      (u: URL) => (u.pathname = u.pathname.replace(/exp_(\d+)/, (_, n) => `exp_${Number(n) + 1}`)),
    ],
    ['a signature that is not base64url', (u: URL) => u.searchParams.set('signature', '%%%')],
  ])('refuses %s: 403 EXPORT_URL_INVALID', async (_, edit) => {
    const url = new URL(local(app, done.url ?? ''));
    edit(url);
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden', code: 'EXPORT_URL_INVALID' });
  });

  it('refuses an expired url: 403 EXPORT_URL_EXPIRED', async () => {
    const past = Math.floor(Date.now() / 1000) - 5;
    const url = await signedUrl(app.em(), app.url, done.id.slice(4), past);
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden', code: 'EXPORT_URL_EXPIRED' });
  });

  it('refuses other methods with 405', async () => {
    const res = await fetch(local(app, done.url ?? ''), { method: 'DELETE' });
    expect(res.status).toBe(405);
  });
});
