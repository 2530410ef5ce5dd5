import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { LocalFileStore } from '../../src/exports/file-store.ts';
import { failStalledExports, pruneExports } from '../../src/exports/prune-exports.ts';
import { type RunExportDeps, runExport } from '../../src/exports/run-export.ts';
import type { ExportObject } from '../../src/exports/schemas.ts';
import { checkoutStorefront } from '../../src/orders/checkout-storefront.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { mintAppToken } from '../helpers/oauth.ts';
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
 * The rules around an export: one running per store and mode, the daily limit, idempotency, who may
 * create and read which export (the security table), validation, test mode, paging, the failure path
 * and retention.
 */

let app: TestApp;
let supplierId: number;
const settings = exportSettings(3);

beforeAll(async () => {
  app = await startTestApp({ EXPORT_DIR: settings.dir, EXPORTS_PER_DAY: '4' });
  supplierId = await fixtures(app.em()).supplier({ name: 'Rules Supplier' });
});
afterAll(async () => {
  await app?.close();
});

const SHIPPING = {
  address: '1 Test Street',
  address2: '',
  city: 'Sydney',
  state: 'NSW',
  zip: '2000',
  country: 'AU',
};

/** A store with one listed product, and a test key pair. */
async function storeWithListing(name: string) {
  const store = await app.createStore(name);
  const f = fixtures(app.em());
  const productId = await f.product({ supplierId, stock: [50] });
  await f.listing(store.id, productId);
  const em = app.em();
  const testRw = (await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'test' })).key;
  const testRead = (await createApiKey({ em }, { storeId: store.id, scope: 'read', mode: 'test' })).key;
  return { ...store, productId, testRw, testRead };
}

async function order(storeId: number, productId: number, livemode: boolean, email: string) {
  const placed = await checkoutStorefront(
    { em: app.em() },
    {
      storeId,
      livemode,
      channel: 'direct',
      customer: { email, name: 'Bea Buyer', phone: '+61 400 000 000' },
      shipping: SHIPPING,
      items: [{ product_id: productId, quantity: 1 }],
    },
  );
  return placed;
}

describe('one export at a time', () => {
  it('a second POST while one is queued is 409 EXPORT_ALREADY_RUNNING naming it; the other mode is free', async () => {
    const store = await storeWithListing('One At A Time');
    const first = await createExport(app, store.readWrite, { type: 'catalogue' });
    expect(first.status, first.text).toBe(202);
    const second = await createExport(app, store.readWrite, { type: 'orders' });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      error: 'conflict',
      code: 'EXPORT_ALREADY_RUNNING',
      export_id: first.body.export.id,
    });
    expect(JSON.stringify(second.body)).toContain(first.body.export.id);
    const test = await createExport(app, store.testRw, { type: 'orders' });
    expect(test.status, test.text).toBe(202);
    expect(test.body.export.livemode).toBe(false);
    await runQueuedExports(app, settings);
    const third = await createExport(app, store.readWrite, { type: 'orders' });
    expect(third.status, third.text).toBe(202);
    await runQueuedExports(app, settings);
  });

  it('past EXPORTS_PER_DAY a POST is 429 EXPORT_DAILY_LIMIT with Retry-After', async () => {
    const store = await storeWithListing('Daily Limit');
    for (let i = 0; i < 4; i++) {
      const res = await createExport(app, store.readWrite, { type: 'listings' });
      expect(res.status, res.text).toBe(202);
      await runQueuedExports(app, settings);
    }
    const refused = await createExport(app, store.readWrite, { type: 'listings' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limited', code: 'EXPORT_DAILY_LIMIT' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
  });
});

describe('idempotency', () => {
  it('a retried POST with the same Idempotency-Key answers the same export and queues one job', async () => {
    const store = await storeWithListing('Idempotent Export');
    const key = randomUUID();
    const a = await createExport(app, store.readWrite, { type: 'listings' }, { 'Idempotency-Key': key });
    const b = await createExport(app, store.readWrite, { type: 'listings' }, { 'Idempotency-Key': key });
    expect(a.status, a.text).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.export.id).toBe(a.body.export.id);
    const [n] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM exports WHERE store_id = ${store.id}`,
    );
    expect(n?.n).toBe(1);
    expect(await runQueuedExports(app, settings)).toBe(1);
  });
});

describe('the security table', () => {
  let store: Awaited<ReturnType<typeof storeWithListing>>;
  let orders: string;
  beforeAll(async () => {
    store = await storeWithListing('Security Export');
    await order(store.id, store.productId, true, 'live@example.com');
    const res = await createExport(app, store.readWrite, { type: 'orders' });
    orders = res.body.export.id;
    await runQueuedExports(app, settings);
  });

  it('no credential is 401; a read key may read but not create (403 INSUFFICIENT_SCOPE)', async () => {
    expect((await send(app, 'POST', '/api/v1/exports', { body: { type: 'listings' } })).status).toBe(401);
    expect((await send(app, 'GET', '/api/v1/exports')).status).toBe(401);
    expect((await send(app, 'GET', `/api/v1/exports/${orders}`)).status).toBe(401);
    const refused = await createExport(app, store.read, { type: 'listings' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_write' });
    expect((await getExport(app, store.read, orders)).status).toBe('completed');
  });

  it('a test key does not see live exports (404), nor another store (404)', async () => {
    const test = await send(app, 'GET', `/api/v1/exports/${orders}`, { key: store.testRead });
    expect(test.status).toBe(404);
    expect(test.body).toMatchObject({ code: 'EXPORT_NOT_FOUND' });
    const other = await app.createStore('Other Store');
    expect((await send(app, 'GET', `/api/v1/exports/${orders}`, { key: other.read })).status).toBe(404);
    const list = await send<{ exports: ExportObject[] }>(app, 'GET', '/api/v1/exports', { key: other.read });
    expect(list.body.exports).toEqual([]);
  });

  it("an app token needs the type's read scope, and reads orders without buyers unless read_customers", async () => {
    const products = await mintAppToken(app, store.id, ['read_products']);
    const refused = await createExport(app, products.access_token, { type: 'orders' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_orders' });
    const hidden = await send(app, 'GET', `/api/v1/exports/${orders}`, { key: products.access_token });
    expect(hidden.status).toBe(403);
    const listed = await send<{ exports: ExportObject[] }>(app, 'GET', '/api/v1/exports', {
      key: products.access_token,
    });
    expect(listed.body.exports.map((e) => e.type)).not.toContain('orders');

    const reader = await mintAppToken(app, store.id, ['read_orders']);
    // The key's orders export holds buyers: an app without read_customers neither reads nor lists it.
    const buyers = await send(app, 'GET', `/api/v1/exports/${orders}`, { key: reader.access_token });
    expect(buyers.status).toBe(403);
    expect(buyers.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_customers' });
    const readerList = await send<{ exports: ExportObject[] }>(app, 'GET', '/api/v1/exports', {
      key: reader.access_token,
    });
    expect(readerList.body.exports.map((e) => e.id)).not.toContain(orders);
    const withBuyers = await mintAppToken(app, store.id, ['read_orders', 'read_customers']);
    const allowed = await send(app, 'GET', `/api/v1/exports/${orders}`, { key: withBuyers.access_token });
    expect(allowed.status).toBe(200);

    const made = await createExport(app, reader.access_token, { type: 'orders' });
    expect(made.status, made.text).toBe(202);
    await runQueuedExports(app, settings);
    const done = await getExport(app, reader.access_token, made.body.export.id);
    const lines = (await download(app, done)) as Record<string, unknown>[];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toHaveProperty('customer');
    const page = await send<{ orders: unknown[] }>(
      app,
      'GET',
      '/api/v1/orders?sort_by=id&order=asc&limit=500',
      {
        key: reader.access_token,
      },
    );
    expect(lines).toEqual(page.body.orders);
  });
});

describe('test mode', () => {
  it("a test key exports the store's test orders only, each line as GET /orders lists it", async () => {
    const store = await storeWithListing('Test Mode Export');
    await order(store.id, store.productId, true, 'live@example.com');
    await order(store.id, store.productId, false, 'test1@example.com');
    await order(store.id, store.productId, false, 'test2@example.com');
    const made = await createExport(app, store.testRw, { type: 'orders', filters: { status: 'pending' } });
    expect(made.status, made.text).toBe(202);
    expect(made.body.export.filters).toEqual({ status: 'pending' });
    await runQueuedExports(app, settings);
    const done = await getExport(app, store.testRead, made.body.export.id);
    expect(done.livemode).toBe(false);
    const lines = (await download(app, done)) as { livemode: boolean; customer: { email: string } }[];
    expect(lines.map((l) => l.customer.email).sort()).toEqual(['test1@example.com', 'test2@example.com']);
    const page = await send<{ orders: unknown[] }>(
      app,
      'GET',
      '/api/v1/orders?sort_by=id&order=asc&status=pending',
      {
        key: store.testRead,
      },
    );
    expect(lines).toEqual(page.body.orders);
    // The live key's list does not show it.
    const live = await send<{ exports: ExportObject[] }>(app, 'GET', '/api/v1/exports', { key: store.read });
    expect(live.body.exports.map((e) => e.id)).not.toContain(done.id);
  });
});

describe('validation', () => {
  it.each([
    [{ type: 'everything' }, 'type'],
    [{ type: 'catalogue', filters: { page: 2 } }, 'filters'],
    [{ type: 'catalogue', filters: { in_stok: true } }, 'filters'],
    [{ type: 'catalogue', filters: { price_min_cents: -1 } }, 'filters.price_min_cents'],
    [{ type: 'orders', filters: { status: 'lost' } }, 'filters.status'],
    [{ type: 'orders', filters: { in_stock: true } }, 'filters'],
    [{ type: 'listings', filters: { search: 'x' } }, 'filters'],
    [{ type: 'listings', extra: 1 }, ''],
  ])('%j is 400 VALIDATION_FAILED', async (body, path) => {
    const store = await app.createStore('Validation');
    const res = await createExport(app, store.readWrite, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(res.body)).toContain(path);
  });

  it('a malformed id is 400, a cursor of another list is 400 INVALID_CURSOR', async () => {
    const store = await app.createStore('Validation Ids');
    expect((await send(app, 'GET', '/api/v1/exports/42', { key: store.read })).status).toBe(400);
    expect((await send(app, 'GET', '/api/v1/exports/exp_0', { key: store.read })).status).toBe(400);
    const bad = await send(app, 'GET', '/api/v1/exports?cursor=abc.def', { key: store.read });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_CURSOR' });
  });
});

describe('the list', () => {
  it('pages newest first with next_cursor until has_more is false', async () => {
    const store = await storeWithListing('Paged Exports');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await createExport(app, store.readWrite, { type: 'listings' })).body.export.id);
      await runQueuedExports(app, settings);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await send<{ exports: ExportObject[]; next_cursor: string | null; has_more: boolean }>(
        app,
        'GET',
        `/api/v1/exports?limit=2${q}`,
        { key: store.read },
      );
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.exports.map((e) => e.id));
      if (!page.body.has_more) {
        expect(page.body.next_cursor).toBeNull();
        break;
      }
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual([...ids].reverse());
  });
});

describe('the failure path', () => {
  it('a job that cannot write retries, then on its last attempt fails the export once, with export.failed', async () => {
    const store = await storeWithListing('Failing Export');
    const made = await createExport(app, store.readWrite, { type: 'listings' });
    const rowId = made.body.export.id.slice(4);
    const broken: RunExportDeps = {
      em: () => app.em(),
      settings,
      files: {
        ...new LocalFileStore(settings.dir),
        create: async () => {
          throw new Error('disk full');
        },
        open: async () => undefined,
        size: async () => undefined,
        remove: async () => {},
      },
    };
    await expect(runExport(broken, rowId)).rejects.toThrow('disk full');
    expect((await getExport(app, store.read, made.body.export.id)).status).toBe('running');
    // The queued job's last attempt: settings whose directory is a file cannot be written either.
    const blocked = { ...settings, dir: join(settings.dir, `${made.body.export.id}-blocker`) };
    await (await import('node:fs/promises')).writeFile(blocked.dir, 'not a directory');
    await runQueuedExports(app, blocked, 3);
    await runQueuedExports(app, blocked, 3);
    const failed = await getExport(app, store.read, made.body.export.id);
    expect(failed).toMatchObject({ status: 'failed', url: null, error: { code: 'EXPORT_FAILED' } });
    expect(failed.expires_at).toBeNull();
    await pruneExports(() => app.em(), new LocalFileStore(settings.dir));
    expect((await getExport(app, store.read, made.body.export.id)).status).toBe('failed');
    await dispatch(app);
    await settled(app, store.id);
    const events = await send<{ events: { event: string }[] }>(app, 'GET', '/api/v1/events?type=export.*', {
      key: store.read,
    });
    expect(events.body.events.map((e) => e.event)).toEqual(['export.failed']);
    expect(existsSync(join(settings.dir, `${made.body.export.id}.jsonl.gz`))).toBe(false);
    // The slot is free again.
    expect((await createExport(app, store.readWrite, { type: 'listings' })).status).toBe(202);
    await runQueuedExports(app, settings);
  });
});

describe('retention', () => {
  it('expired exports lose their file and become expired, in batches; their url then answers 404', async () => {
    const store = await storeWithListing('Retention');
    const made: ExportObject[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await createExport(app, store.readWrite, { type: 'listings' });
      await runQueuedExports(app, settings);
      made.push(await getExport(app, store.read, res.body.export.id));
    }
    const old = made.slice(0, 2);
    await rows(
      app.em(),
      sql`UPDATE exports SET expires_at = now() - interval '1 second'
        WHERE id = ANY (${old.map((e) => e.id.slice(4))}::bigint[])`,
    );
    const files = new LocalFileStore(settings.dir);
    expect(await pruneExports(() => app.em(), files, 1)).toBeGreaterThanOrEqual(2);
    for (const e of old) {
      expect((await getExport(app, store.read, e.id)).status).toBe('expired');
      expect(existsSync(join(settings.dir, `${e.id}.jsonl.gz`))).toBe(false);
      const res = await fetch(local(app, e.url ?? ''));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'EXPORT_FILE_GONE' });
    }
    const kept = made[2] as ExportObject;
    expect((await getExport(app, store.read, kept.id)).status).toBe('completed');
    expect((await fetch(local(app, kept.url ?? ''))).status).toBe(200);
  });

  it('an export whose job died for good is failed once, its partial file removed, and the store can export again', async () => {
    const store = await storeWithListing('Stalled');
    const made = await createExport(app, store.readWrite, { type: 'listings' });
    const id = made.body.export.id;
    // The worker died on its last attempt: the job is gone, the export still says running.
    await rows(app.em(), sql`DELETE FROM graphile_worker._private_jobs WHERE payload::jsonb ? 'export_id'`);
    await rows(
      app.em(),
      sql`UPDATE exports SET status = 'running', started_at = now() - interval '3 hours' WHERE id = ${id.slice(4)}::bigint`,
    );
    const part = join(settings.dir, `${id}.jsonl.gz.part`);
    writeFileSync(part, 'half a file');
    expect((await createExport(app, store.readWrite, { type: 'listings' })).status).toBe(409);
    const files = new LocalFileStore(settings.dir);
    const young = await failStalledExports(() => app.em(), files, 240);
    expect(young).toBe(0);
    expect(await failStalledExports(() => app.em(), files)).toBe(1);
    expect(await failStalledExports(() => app.em(), files)).toBe(0);
    expect(existsSync(part)).toBe(false);
    const failed = await getExport(app, store.read, id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'EXPORT_FAILED' } });
    await dispatch(app);
    await settled(app, store.id);
    const events = await send<{ events: { event: string }[] }>(app, 'GET', '/api/v1/events?type=export.*', {
      key: store.read,
    });
    expect(events.body.events.map((e) => e.event)).toEqual(['export.failed']);
    expect((await createExport(app, store.readWrite, { type: 'listings' })).status).toBe(202);
    await runQueuedExports(app, settings);
  });
});
