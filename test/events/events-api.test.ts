import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ErrorBody,
  type GetEventResponse,
  type ListEventsResponse,
  Stockless,
  type StocklessEvent,
} from '../../client/src/index.ts';
import { createTaskList } from '../../jobs/tasks.ts';
import { JOBS, parseJobPayload } from '../../src/db/jobs.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { fanOutToListingStores } from '../../src/events/listing-stores.ts';
import { recordEvents } from '../../src/events/outbox.ts';
import type { EventName } from '../../src/events/vocabulary/index.ts';
import { pruneEventLog } from '../../src/events-api/prune-events.ts';
import { getEventOutput, listEventsOutput } from '../../src/events-api/schemas.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { closeCoalescingWindow, createWebhookEvents, webhookFanOut } from '../../src/webhooks/fanout.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { mintAppToken, registerClient } from '../helpers/oauth.ts';
import { startReceiver, startWorkerProcess } from '../helpers/webhooks.ts';

/**
 * The event log, GET /api/v1/events and /api/v1/events/{id}: every event of the store as its webhooks
 * deliver it, with the dispatcher and the coalescing window run in this process (no worker) except
 * where a delivery is the point.
 */

let app: TestApp;
let supplierId: number;

beforeAll(async () => {
  app = await startTestApp();
  supplierId = await fixtures(app.em()).supplier({ name: 'Events Supplier' });
});
afterAll(async () => {
  await app?.close();
});

type Store = Awaited<ReturnType<TestApp['createStore']>>;

/**
 * A store with live API keys (the test app's own are test keys): a credential reads the events of
 * its mode, and everything this file records is live.
 */
async function liveStore(target: TestApp, name: string): Promise<Store> {
  const { id } = await target.createStore(name);
  const em = target.em();
  const rw = await createApiKey({ em }, { storeId: id, scope: 'read_write', mode: 'live' });
  const ro = await createApiKey({ em }, { storeId: id, scope: 'read', mode: 'live' });
  return { id, readWrite: rw.key, read: ro.key };
}
const EVENTS = '/api/v1/events';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The dispatcher's run, as the worker's `dispatch_events` task does it. */
async function dispatch(): Promise<void> {
  await dispatchPendingEvents(app.em(), webhookFanOut(60_000));
}

/** Every open coalescing window closes now (as its job would when the window ends). */
async function closeWindows(): Promise<void> {
  const jobs = await rows<{ id: string; payload: unknown }>(
    app.em(),
    sql`SELECT j.id::text AS id, j.payload FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = ${JOBS.webhookCoalesce}
      ORDER BY j.id`,
  );
  for (const job of jobs) {
    await closeCoalescingWindow(app.em(), parseJobPayload(JOBS.webhookCoalesce, job.payload));
    await rows(app.em(), sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${job.id}::bigint`);
  }
}

/**
 * Until every event of the store is below every running transaction (the cluster is shared with other
 * test files, whose transactions hold the log's horizon back for as long as they run).
 */
async function settled(storeId: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const [r] = await rows<{ done: boolean }>(
      app.em(),
      sql`SELECT COALESCE(bool_and(xid < pg_snapshot_xmin(pg_current_snapshot())), true) AS done
        FROM webhook_events WHERE store_id = ${storeId}`,
    );
    if (r?.done) return;
    await sleep(25);
  }
  throw new Error('the log did not settle');
}

function get<T = ListEventsResponse>(path: string, key?: string) {
  return send<T>(app, 'GET', path, { key });
}

/** A wholesale order of the store through the API (`order.created`, with the buyer). */
async function placeOrder(store: Store): Promise<number> {
  const product = await fixtures(app.em()).product({ supplierId });
  const res = await send<{ order: { id: number } }>(app, 'POST', '/api/v1/orders', {
    key: store.readWrite,
    body: {
      customer: { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' },
      items: [{ product_id: product, quantity: 1 }],
      shipping: { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.order.id;
}

/** Events of any kind recorded in the outbox for the store, dispatched and settled. */
async function record(storeId: number, events: { event: EventName; entityId: number; data?: object }[]) {
  await app.em().transactional((tx) =>
    recordEvents(
      tx,
      events.map((e) => ({ storeId, event: e.event, entityId: e.entityId, data: { ...e.data } })),
    ),
  );
  await dispatch();
  await closeWindows();
  await settled(storeId);
}

/** Every event of the store, oldest first, following the cursor. */
async function walk(key: string, query = '', limit = 100): Promise<StocklessEvent[]> {
  const all: StocklessEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await get(
      `${EVENTS}?order=asc&limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      key,
    );
    expect(page.status, page.text).toBe(200);
    all.push(...(page.body.events as StocklessEvent[]));
    cursor = page.body.next_cursor;
    if (!page.body.has_more) return all;
  }
}

describe('the log', () => {
  it('keeps every event of the store, wanted by a subscription or not, as the envelope webhooks deliver', async () => {
    const store = await liveStore(app, 'Log');
    const first = await placeOrder(store);
    const second = await placeOrder(store);
    await dispatch();
    const product = await fixtures(app.em()).product({ supplierId });
    const added = await send(app, 'POST', '/api/v1/my-products', {
      key: store.readWrite,
      body: { product_id: product },
    });
    expect(added.status, added.text).toBe(201);
    await dispatch();
    await closeWindows();
    await settled(store.id);

    const res = await get(EVENTS, store.read);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['events', 'has_more', 'next_cursor']);
    // The page as the contract declares it (the answer is never re-parsed on its way out).
    expect(listEventsOutput.parse(res.body)).toEqual(res.body);
    const events = res.body.events as StocklessEvent[];
    // Newest first: the product's window closed after the orders were dispatched.
    expect(events.map((e) => e.event_key)).toEqual([
      expect.stringMatching(new RegExp(`^product\\.created:${product}\\.\\d+$`)),
      `order.created:${second}`,
      `order.created:${first}`,
    ]);
    for (const e of events) {
      expect(Object.keys(e)).toEqual(['id', 'event', 'event_key', 'created_at', 'livemode', 'data']);
      expect(e.id).toMatch(/^evt_[1-9]\d*$/);
      expect(e.livemode).toBe(true);
      expect(Number.isNaN(Date.parse(e.created_at))).toBe(false);
    }
    const [newest, ordered] = events;
    expect(newest?.data).toEqual({ product_id: product });
    if (ordered?.event !== 'order.created') throw new Error('expected an order event');
    expect(ordered.data.order).toMatchObject({
      id: second,
      status: 'pending',
      customer: { email: 'bea@example.com', name: 'Bea Buyer' },
      shipping: { city: 'Sydney' },
    });
    expect(res.body.has_more).toBe(false);

    // Oldest first is the same log the other way round; one event by its id is the same envelope.
    const asc = await get(`${EVENTS}?order=asc`, store.read);
    expect(asc.body.events).toEqual([...events].reverse());
    const one = await get<GetEventResponse>(`${EVENTS}/${ordered.id}`, store.read);
    expect(one.status, one.text).toBe(200);
    expect(getEventOutput.parse(one.body)).toEqual(one.body);
    expect(one.body).toEqual({ event: ordered });
    // Stored as the delivered bytes: the row's body is the answer's JSON.
    const [row] = await rows<{ body: string }>(
      app.em(),
      sql`SELECT body FROM webhook_events WHERE id = ${ordered.id.slice(4)}::bigint`,
    );
    expect(JSON.parse(row?.body ?? '')).toEqual(ordered);
  });

  it('stores a coalesced event once per store and window, for every listing store, and delivers only what is wanted', async () => {
    const stores = [
      await liveStore(app, 'Lister 1'),
      await liveStore(app, 'Lister 2'),
      await liveStore(app, 'Lister 3'),
    ];
    const product = await fixtures(app.em()).product({ supplierId, stock: [4, 5] });
    for (const s of stores) await fixtures(app.em()).listing(s.id, product);
    const [wanting] = stores;
    if (!wanting) throw new Error('no store');
    await rows(
      app.em(),
      sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted, next_due_at)
        VALUES (${wanting.id}, 'https://hooks.example/events', ARRAY['inventory.updated'], 'unused', now() + interval '1 hour')`,
    );
    const change = {
      events: [{ event: 'inventory.updated' as const, data: { product_id: product } }],
      touchFeed: false,
    };
    // Two changes within the window, dispatched apart: one event per store when it closes.
    await fanOutToListingStores(app.em(), product, change);
    await dispatch();
    await fanOutToListingStores(app.em(), product, change);
    await dispatch();
    const [job] = await rows<{ payload: unknown }>(
      app.em(),
      sql`SELECT payload FROM graphile_worker._private_jobs WHERE key = ${`${JOBS.webhookCoalesce}:inventory.updated:${product}`}`,
    );
    // The window's payload names the stores as lists, one item per dispatched batch.
    expect(job?.payload).toEqual([
      expect.objectContaining({ product_id: product, store_ids: stores.map((s) => s.id) }),
      expect.objectContaining({ product_id: product, store_ids: stores.map((s) => s.id) }),
    ]);
    await closeWindows();
    for (const s of stores) {
      await settled(s.id);
      const res = await get(`${EVENTS}?type=inventory.updated`, s.read);
      expect(res.body.events, s.id.toString()).toEqual([
        expect.objectContaining({ event: 'inventory.updated', data: { product_id: product } }),
      ]);
    }
    const deliveries = await rows<{ store_id: number }>(
      app.em(),
      sql`SELECT e.store_id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE e.store_id = ANY (${stores.map((s) => s.id)}::integer[])`,
    );
    expect(deliveries).toEqual([{ store_id: wanting.id }]);
  });

  it('reads a coalescing window queued before the store lists (one store an item)', async () => {
    const store = await liveStore(app, 'Old window');
    const n = await closeCoalescingWindow(app.em(), [
      { store_id: store.id, event: 'product.updated', product_id: 77, variant_id: 5, at: 1_700_000_000_000 },
      { store_id: store.id, event: 'product.updated', product_id: 77, variant_id: 5 },
    ]);
    expect(n).toBe(0);
    await settled(store.id);
    const res = await get(EVENTS, store.read);
    expect(res.body.events).toEqual([
      expect.objectContaining({
        event: 'product.updated',
        event_key: 'product.updated:77.1700000000000',
        data: { product_id: 77, variant_id: 5 },
      }),
    ]);
  });
});

describe('filters', () => {
  let store: Store;
  beforeAll(async () => {
    store = await liveStore(app, 'Filters');
    await record(store.id, [
      { event: 'site.published', entityId: store.id, data: { store_id: store.id, published: true } },
      {
        event: 'order.held',
        entityId: 1,
        data: { marketplace: 'etsy', external_order_id: 'x', reason: 'unmapped_sku', lines: [] },
      },
      { event: 'invoice.issued', entityId: 2, data: {} },
      { event: 'product.deleted', entityId: 3, data: { product_id: 3 } },
    ]);
  });

  it('type: names and prefixes, comma-separated', async () => {
    const names = async (type: string) =>
      (await get(`${EVENTS}?order=asc&type=${encodeURIComponent(type)}`, store.read)).body.events.map(
        (e) => e.event,
      );
    expect(await names('order.*')).toEqual(['order.held']);
    expect(await names('order.*, invoice.issued')).toEqual(['order.held', 'invoice.issued']);
    expect(await names('site.published,product.*')).toEqual(['site.published', 'product.deleted']);
    expect(await names('order.created')).toEqual([]);
  });

  it('refuses an unknown event, an empty type, a bad time, limit or wait out of range, wait without asc', async () => {
    for (const query of [
      'type=order.nope',
      'type=orders.*',
      'type=*',
      'type=,',
      'created_gte=yesterday',
      'created_gte=2026-11-01',
      // Times PostgreSQL cannot take: year 0, an offset past ±15:59 (a 500 before).
      'created_gte=0000-01-01T00:00:00Z',
      'created_lt=2026-11-01T00:00:00%2B20:00',
      'order=asc&wait=5&created_gte=0000-06-01T00:00:00Z',
      'limit=0',
      'limit=101',
      'limit=abc',
      'order=up',
      'wait=31',
      'wait=-1',
      'wait=1',
      'wait=1&order=desc',
      'created_gte=2026-11-02T00:00:00Z&created_lt=2026-11-01T00:00:00Z',
    ]) {
      const res = await get<ErrorBody>(`${EVENTS}?${query}`, store.read);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toBe('bad_request');
    }
    expect((await get<ErrorBody>(`${EVENTS}?wait=0&order=desc`, store.read)).status).toBe(200);
  });

  it('created_gte and created_lt bound the events by their created_at', async () => {
    await rows(
      app.em(),
      sql`UPDATE webhook_events SET created_at = '2026-01-10T00:00:00Z' WHERE store_id = ${store.id} AND event = 'order.held'`,
    );
    const names = async (q: string) =>
      (await get(`${EVENTS}?order=asc&${q}`, store.read)).body.events.map((e) => e.event);
    expect(await names('created_lt=2026-02-01T00:00:00Z')).toEqual(['order.held']);
    expect(await names('created_gte=2026-01-10T00:00:00Z&created_lt=2026-01-10T00:00:00.001Z')).toEqual([
      'order.held',
    ]);
    expect(await names('created_gte=2026-01-10T11:00:01%2B11:00')).toEqual([
      'site.published',
      'invoice.issued',
      'product.deleted',
    ]);
  });
});

describe('cursor', () => {
  let store: Store;
  let all: string[];
  beforeAll(async () => {
    store = await liveStore(app, 'Cursor');
    await record(
      store.id,
      Array.from({ length: 7 }, (_, i) => ({ event: 'site.published', entityId: i + 1, data: { n: i } })),
    );
    all = (await walk(store.read)).map((e) => e.id);
    expect(all).toHaveLength(7);
  });

  async function pages(order: 'asc' | 'desc', limit: number) {
    const got: { ids: string[]; has_more: boolean }[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await get(
        `${EVENTS}?order=${order}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        store.read,
      );
      expect(res.status, res.text).toBe(200);
      got.push({ ids: res.body.events.map((e) => e.id), has_more: res.body.has_more });
      cursor = res.body.next_cursor;
      if (!res.body.has_more) break;
    }
    return { got, cursor };
  }

  it('walks oldest first and newest first, page by page, each event once', async () => {
    const asc = await pages('asc', 3);
    expect(asc.got).toEqual([
      { ids: all.slice(0, 3), has_more: true },
      { ids: all.slice(3, 6), has_more: true },
      { ids: all.slice(6), has_more: false },
    ]);
    const desc = await pages('desc', 3);
    const newest = [...all].reverse();
    expect(desc.got).toEqual([
      { ids: newest.slice(0, 3), has_more: true },
      { ids: newest.slice(3, 6), has_more: true },
      { ids: newest.slice(6), has_more: false },
    ]);
    // At the end of the log the cursor stays where it is, and picks up what comes next.
    const end = await get(`${EVENTS}?order=asc&cursor=${asc.cursor}`, store.read);
    expect(end.body).toEqual({ events: [], next_cursor: asc.cursor, has_more: false });
    await record(store.id, [{ event: 'site.unpublished', entityId: 99, data: {} }]);
    const next = await get(`${EVENTS}?order=asc&cursor=${asc.cursor}`, store.read);
    expect(next.body.events.map((e) => e.event)).toEqual(['site.unpublished']);
    all.push(next.body.events[0]?.id ?? '');
    // A desc page's cursor is a position too: the newest event's starts an asc walk after it.
    const head = await get(`${EVENTS}?order=desc&limit=1`, store.read);
    expect(head.body.events.map((e) => e.id)).toEqual([all.at(-1)]);
    expect(
      (await get(`${EVENTS}?order=asc&cursor=${head.body.next_cursor}`, store.read)).body.events,
    ).toEqual([]);
    const before = await get(`${EVENTS}?order=desc&cursor=${head.body.next_cursor}&limit=2`, store.read);
    expect(before.body.events.map((e) => e.id)).toEqual([all.at(-2), all.at(-3)]);
  });

  it('refuses a cursor of another store, an edited one, an inventory cursor and garbage', async () => {
    const other = await liveStore(app, 'Other cursor');
    const theirs = (await get(`${EVENTS}?order=asc`, other.read)).body.next_cursor;
    const mine = (await get(`${EVENTS}?order=asc&limit=1`, store.read)).body.next_cursor;
    const [payload, mac] = mine.split('.');
    const edited = `${Buffer.from(
      Buffer.from(payload ?? '', 'base64url')
        .toString()
        .replace(/:\d+$/, ':1'),
    ).toString('base64url')}.${mac}`;
    const inventory = (await get<{ next_cursor: string }>('/api/v1/inventory', store.read)).body.next_cursor;
    for (const cursor of [theirs, edited, inventory, 'garbage', '', 'a.b.c']) {
      const res = await get<ErrorBody>(`${EVENTS}?cursor=${encodeURIComponent(cursor)}`, store.read);
      expect(res.status, cursor).toBe(400);
      expect(res.body, cursor).toMatchObject({
        code: 'INVALID_CURSOR',
        details: [{ path: 'cursor', message: expect.any(String) }],
      });
    }
  });

  it('never skips an event whose transaction commits late, under concurrent writers', async () => {
    const busy = await liveStore(app, 'Concurrent');
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; i < 12; i++) {
        await app.em().transactional(async (tx) => {
          // Half take their transaction id before drawing their event's id: xid order and id order
          // then disagree, and every one holds its commit back a while, so ids commit out of order.
          if (i % 2) await rows(tx, sql`SELECT pg_current_xact_id()`);
          await createWebhookEvents(tx, [
            {
              storeId: busy.id,
              event: 'site.published',
              eventKey: `site.published:${w}.${i}`,
              createdAt: new Date().toISOString(),
              data: { w, i },
            },
          ]);
          await sleep(Math.random() * 30);
        });
      }
    };
    const seen: string[] = [];
    const reader = (async () => {
      let cursor: string | undefined;
      const until = Date.now() + 25_000;
      while (Date.now() < until) {
        const res = await get(`${EVENTS}?order=asc&limit=3${cursor ? `&cursor=${cursor}` : ''}`, busy.read);
        expect(res.status, res.text).toBe(200);
        seen.push(...res.body.events.map((e) => e.id));
        cursor = res.body.next_cursor;
        if (!writing && seen.length >= 48 && !res.body.has_more) return;
        if (!res.body.has_more) await sleep(2);
      }
    })();
    await Promise.all([0, 1, 2, 3].map(writer));
    writing = false;
    await reader;
    const stored = await rows<{ id: string }>(
      app.em(),
      sql`SELECT 'evt_' || id AS id FROM webhook_events WHERE store_id = ${busy.id}`,
    );
    expect(stored).toHaveLength(48);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(stored.map((r) => r.id).sort());
  });
});

describe('wait (long poll)', () => {
  it('holds an empty asc page until an event arrives, then answers at once', async () => {
    const store = await liveStore(app, 'Long poll');
    const head = (await get(`${EVENTS}?order=desc&limit=1`, store.read)).body.next_cursor;
    const started = Date.now();
    const polled = get(`${EVENTS}?order=asc&wait=10&cursor=${head}`, store.read);
    await sleep(600);
    await record(store.id, [{ event: 'site.published', entityId: store.id, data: { store_id: store.id } }]);
    const res = await polled;
    const took = Date.now() - started;
    expect(res.status, res.text).toBe(200);
    expect(res.body.events.map((e) => e.event)).toEqual(['site.published']);
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(5000);
  });

  it('answers an empty page with the same cursor when the time passes', async () => {
    const store = await liveStore(app, 'Quiet');
    const head = (await get(`${EVENTS}?order=asc`, store.read)).body.next_cursor;
    const started = Date.now();
    const res = await get(`${EVENTS}?order=asc&wait=1&cursor=${head}&type=order.*`, store.read);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(res.body).toEqual({ events: [], next_cursor: head, has_more: false });
  });

  it('holds no database connection while it waits: more polls than the pool has, and other calls still answer', async () => {
    const store = await liveStore(app, 'Many polls');
    const head = (await get(`${EVENTS}?order=asc`, store.read)).body.next_cursor;
    // The test app's pool has 6 connections.
    const polls = Array.from({ length: 12 }, () =>
      get(`${EVENTS}?order=asc&wait=8&cursor=${head}`, store.read),
    );
    await sleep(400);
    const started = Date.now();
    const other = await get(`${EVENTS}?order=desc`, store.read);
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    await record(store.id, [{ event: 'site.published', entityId: store.id, data: {} }]);
    for (const res of await Promise.all(polls)) expect(res.body.events).toHaveLength(1);
  });
});

describe('modes', () => {
  it('a test key reads the store’s test events, a live key or an app token the live ones', async () => {
    const store = await liveStore(app, 'Modes');
    const testKey = (await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read', mode: 'test' }))
      .key;
    await app.em().transactional((tx) =>
      createWebhookEvents(
        tx,
        [true, false].map((livemode) => ({
          storeId: store.id,
          event: 'order.held',
          eventKey: `order.held:${livemode}`,
          createdAt: new Date().toISOString(),
          data: {
            marketplace: 'etsy',
            external_order_id: String(livemode),
            reason: 'unmapped_sku',
            lines: [],
          },
          livemode,
        })),
      ),
    );
    await settled(store.id);
    const live = (await get(EVENTS, store.read)).body.events;
    const test = (await get(EVENTS, testKey)).body.events;
    expect(live.map((e) => [e.event_key, e.livemode])).toEqual([['order.held:true', true]]);
    expect(test.map((e) => [e.event_key, e.livemode])).toEqual([['order.held:false', false]]);
    expect((await get(`${EVENTS}/${test[0]?.id}`, testKey)).status).toBe(200);
    expect((await get(`${EVENTS}/${test[0]?.id}`, store.read)).status).toBe(404);
    expect((await get(`${EVENTS}/${live[0]?.id}`, testKey)).status).toBe(404);
  });
});

describe('one event', () => {
  it('is 404 for another store’s event and one that does not exist; 400 for what is not an event id', async () => {
    const mine = await liveStore(app, 'Mine');
    const theirs = await liveStore(app, 'Theirs');
    await record(theirs.id, [{ event: 'site.published', entityId: theirs.id, data: {} }]);
    const [event] = (await get(EVENTS, theirs.read)).body.events;
    expect((await get(`${EVENTS}/${event?.id}`, theirs.read)).status).toBe(200);
    const other = await get<ErrorBody>(`${EVENTS}/${event?.id}`, mine.read);
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ error: 'not_found', code: 'EVENT_NOT_FOUND' });
    expect((await get(`${EVENTS}/evt_999999999999999999`, mine.read)).status).toBe(404);
    for (const id of ['123', 'evt_', 'evt_0', 'evt_01', 'evt_1234567890123456789', 'evt_x']) {
      expect((await get(`${EVENTS}/${id}`, mine.read)).status, id).toBe(400);
    }
  });
});

describe('retention', () => {
  it('the hourly job deletes events older than 30 days in batches, keeping those a pending delivery may need', async () => {
    const store = await liveStore(app, 'Retention');
    const make = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        storeId: store.id,
        event: 'site.published' as const,
        eventKey: `site.published:${store.id}.${i}`,
        createdAt: new Date().toISOString(),
        data: {},
      }));
    await app.em().transactional((tx) => createWebhookEvents(tx, make(7)));
    const ids = (
      await rows<{ id: string }>(
        app.em(),
        sql`SELECT id::text FROM webhook_events WHERE store_id = ${store.id} ORDER BY id`,
      )
    ).map((r) => r.id);
    // A month on: this store's first five events, and every event logged before them in this
    // database, are past the 30 days; its last two are not.
    await rows(
      app.em(),
      sql`UPDATE webhook_events SET created_at = CASE WHEN id <= ${ids[4]}::bigint
          THEN now() - interval '31 days' ELSE now() - interval '29 days' END
        WHERE id <= ${ids[4]}::bigint OR store_id = ${store.id}`,
    );
    const [oldest] = ids;
    const resent = ids[4];
    // A pending delivery of the newest old event (a resend of it, say), and a finished one of the oldest.
    const [sub] = await rows<{ id: number }>(
      app.em(),
      sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted, next_due_at)
        VALUES (${store.id}, 'https://hooks.example/retention', ARRAY['site.published'], 'unused', now() + interval '1 hour')
        RETURNING id`,
    );
    await rows(
      app.em(),
      sql`INSERT INTO webhook_deliveries (subscription_id, event_id, status)
        VALUES (${sub?.id}, ${oldest}::bigint, 'succeeded'), (${sub?.id}, ${resent}::bigint, 'pending')`,
    );
    // Every finished delivery of this database is past the retention now.
    await rows(
      app.em(),
      sql`UPDATE webhook_deliveries SET created_at = now() - interval '31 days' WHERE status <> 'pending'`,
    );
    const pruned = await pruneEventLog(app.em(), { batch: 2 });
    // This store's four, and the other stores' events this file logged before them.
    expect(pruned.events).toBeGreaterThan(4);
    expect(pruned.deliveries).toBeGreaterThanOrEqual(1);
    const left = async () =>
      (
        await rows<{ id: string }>(
          app.em(),
          sql`SELECT id::text FROM webhook_events WHERE store_id = ${store.id} ORDER BY id`,
        )
      ).map((r) => r.id);
    expect(await left()).toEqual(ids.slice(-3));
    const [delivery] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE subscription_id = ${sub?.id}`,
    );
    expect(delivery?.n).toBe(1);
    expect((await get(`${EVENTS}/evt_${oldest}`, store.read)).status).toBe(404);
    expect((await get(`${EVENTS}/evt_${resent}`, store.read)).status).toBe(200);

    // The scheduled task does the same: once the delivery has ended, its old event goes too.
    await rows(
      app.em(),
      sql`UPDATE webhook_deliveries SET status = 'succeeded' WHERE subscription_id = ${sub?.id}`,
    );
    const logged: string[] = [];
    const helpers = { logger: { info: (m: string) => logged.push(m) } } as unknown as JobHelpers;
    const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS)[JOBS.pruneEvents];
    if (!task) throw new Error('no prune_events task');
    await task({ _cron: { ts: new Date().toISOString(), backfilled: false } }, helpers);
    expect(logged.join('\n')).toMatch(/^pruned 1 events, /);
    expect(await left()).toEqual(ids.slice(-2));
  });
});

describe('security', () => {
  let store: Store;
  let order: number;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    store = await liveStore(app, 'Security');
    order = await placeOrder(store);
    await record(store.id, [
      { event: 'invoice.issued', entityId: order, data: {} },
      { event: 'product.updated', entityId: 5, data: { product_id: 5 } },
      { event: 'inventory.updated', entityId: 5, data: { product_id: 5 } },
      { event: 'site.published', entityId: store.id, data: { store_id: store.id } },
    ]);
    await app.em().transactional((tx) =>
      createWebhookEvents(tx, [
        {
          storeId: store.id,
          event: 'webhook.ping',
          eventKey: 'webhook.ping:1.1',
          createdAt: new Date().toISOString(),
          data: { webhook_id: 1 },
          subscriptionId: 1,
        },
      ]),
    );
    await settled(store.id);
    const apps: Record<string, string[]> = {
      orders: ['read_orders'],
      ordersCustomers: ['read_orders', 'read_customers'],
      writeOrders: ['write_orders'],
      products: ['read_products'],
      inventory: ['read_inventory', 'read_customers'],
      none: ['write_external_orders'],
    };
    for (const [name, scopes] of Object.entries(apps)) {
      const client = await registerClient(app, { client_name: `Events ${name}` });
      tokens[name] = (await mintAppToken(app, store.id, scopes, { clientId: client.client_id })).access_token;
    }
  });

  const kinds = async (key: string | undefined, query = '') => {
    const res = await get(`${EVENTS}?order=asc${query}`, key);
    return {
      status: res.status,
      events: res.status === 200 ? res.body.events.map((e) => e.event) : [],
      body: res.body,
    };
  };
  /** In the log's order: the coalesced events are stored when their windows close, after the others. */
  const ALL = [
    'order.created',
    'invoice.issued',
    'site.published',
    'inventory.updated',
    'product.updated',
    'webhook.ping',
  ];

  it('list: no credential 401; API keys read every event; an app token the events its scopes read', async () => {
    const none = await get<ErrorBody>(EVENTS);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await get(EVENTS, 'sl_live_not_a_real_key_0123456789abcdefghij')).status).toBe(401);
    expect((await kinds(store.read)).events).toEqual(ALL);
    expect((await kinds(store.readWrite)).events).toEqual(ALL);
    expect((await kinds(tokens.orders)).events).toEqual(['order.created', 'invoice.issued']);
    expect((await kinds(tokens.writeOrders)).events).toEqual(['order.created', 'invoice.issued']);
    expect((await kinds(tokens.products)).events).toEqual(['product.updated']);
    expect((await kinds(tokens.inventory)).events).toEqual(['inventory.updated']);
    // Any app scope may call: an app whose scopes read no event reads an empty log.
    const nothing = await get(EVENTS, tokens.none);
    expect(nothing.status).toBe(200);
    expect(nothing.body.events).toEqual([]);
    expect((await get<ErrorBody>(`${EVENTS}?type=order.*`, tokens.none)).body).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      required_scope: 'read_orders',
    });
  });

  it('list: an app asking for events it may not read is refused, never answered with a silent subset', async () => {
    const products = await get<ErrorBody>(`${EVENTS}?type=order.*,product.*`, tokens.orders);
    expect(products.status).toBe(403);
    expect(products.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_products' });
    const site = await get<ErrorBody>(`${EVENTS}?type=site.*`, tokens.orders);
    expect(site.status).toBe(403);
    expect(site.body).toMatchObject({ code: 'APP_TOKEN_NOT_ALLOWED' });
    expect((await get<ErrorBody>(`${EVENTS}?type=webhook.ping`, tokens.products)).body).toMatchObject({
      code: 'APP_TOKEN_NOT_ALLOWED',
    });
    expect((await kinds(tokens.orders, '&type=invoice.issued')).events).toEqual(['invoice.issued']);
    expect((await kinds(store.read, '&type=site.*,webhook.ping')).events).toEqual([
      'site.published',
      'webhook.ping',
    ]);
  });

  it('get: by the same rule', async () => {
    const all = (await get(`${EVENTS}?order=asc`, store.read)).body.events;
    const id = (event: string) => all.find((e) => e.event === event)?.id ?? '';
    expect((await get(`${EVENTS}/${id('order.created')}`)).status).toBe(401);
    for (const key of [store.read, store.readWrite]) {
      for (const e of all) expect((await get(`${EVENTS}/${e.id}`, key)).status, e.event).toBe(200);
    }
    expect((await get(`${EVENTS}/${id('order.created')}`, tokens.orders)).status).toBe(200);
    expect((await get(`${EVENTS}/${id('inventory.updated')}`, tokens.inventory)).status).toBe(200);
    const scope = await get<ErrorBody>(`${EVENTS}/${id('order.created')}`, tokens.products);
    expect(scope.status).toBe(403);
    expect(scope.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_orders' });
    const site = await get<ErrorBody>(`${EVENTS}/${id('site.published')}`, tokens.ordersCustomers);
    expect(site.status).toBe(403);
    expect(site.body).toMatchObject({ code: 'APP_TOKEN_NOT_ALLOWED' });
    expect((await get(`${EVENTS}/${id('webhook.ping')}`, tokens.none)).status).toBe(403);
  });

  it('leaves the buyer out of an order without read_customers, as GET /orders/{id} does', async () => {
    const orderOf = async (key: string | undefined) => {
      const [created] = (await get(`${EVENTS}?type=order.created`, key)).body.events as StocklessEvent[];
      const one = (await get<GetEventResponse>(`${EVENTS}/${created?.id}`, key)).body.event;
      expect(one).toEqual(created);
      if (created?.event !== 'order.created') throw new Error('no order.created');
      return created.data.order as unknown as Record<string, unknown>;
    };
    const full = await orderOf(store.read);
    expect(full).toMatchObject({ id: order, customer: { name: 'Bea Buyer' }, shipping: { city: 'Sydney' } });
    expect(await orderOf(tokens.ordersCustomers)).toEqual(full);
    const redacted = await orderOf(tokens.orders);
    expect(redacted).not.toHaveProperty('customer');
    expect(redacted).not.toHaveProperty('shipping');
    const { customer: _c, shipping: _s, ...rest } = full;
    expect(redacted).toEqual(rest);
    const apiOrder = (await get<{ order: Record<string, unknown> }>(`/api/v1/orders/${order}`, tokens.orders))
      .body.order;
    expect(Object.keys(redacted).sort()).toEqual(Object.keys(apiOrder).sort());
  });
});

describe('the SDK', () => {
  it('lists, retrieves (typed) and iterates, and follows the log with a long poll until stopped', async () => {
    const store = await liveStore(app, 'SDK');
    await record(store.id, [
      { event: 'site.published', entityId: store.id, data: { store_id: store.id, published: true } },
      { event: 'product.updated', entityId: 8, data: { product_id: 8 } },
      { event: 'site.unpublished', entityId: store.id, data: { store_id: store.id, published: false } },
    ]);
    const client = new Stockless({ baseUrl: app.url, apiKey: store.read });
    // The product's event is stored when its coalescing window closes, after the site events.
    const page = await client.events.list({ order: 'desc', limit: 2 });
    expect(page.events.map((e) => e.event)).toEqual(['product.updated', 'site.unpublished']);
    expect(page.has_more).toBe(true);
    const product = page.events[0];
    if (product?.event !== 'product.updated') throw new Error('expected product.updated');
    // Typed by `event`: the product event's data is ids only.
    const productId: number = product.data.product_id;
    expect(productId).toBe(8);
    const { event } = await client.events.retrieve(product.id);
    expect(event).toEqual(product);

    const walked: string[] = [];
    const stream = client.events.iterate({ limit: 2 });
    for await (const e of stream) walked.push(e.event);
    expect(walked).toEqual(['site.published', 'site.unpublished', 'product.updated']);
    const resumeAt = stream.cursor;
    expect(resumeAt).toBeTruthy();
    const newest: string[] = [];
    for await (const e of client.events.iterate({ order: 'desc', type: ['site.*'] })) newest.push(e.event);
    expect(newest).toEqual(['site.unpublished', 'site.published']);

    const stop = new AbortController();
    const follow = client.events.iterate({ cursor: resumeAt, follow: 5, signal: stop.signal });
    const later = (async () => {
      for await (const e of follow) {
        stop.abort();
        return e;
      }
    })();
    await sleep(300);
    await record(store.id, [{ event: 'site.published', entityId: store.id, data: { store_id: store.id } }]);
    const got = await later;
    expect(got?.event).toBe('site.published');
    expect(() => client.events.iterate({ order: 'desc', follow: true })).toThrow(TypeError);
  });
});

describe('webhook deliveries', () => {
  it('carry the event id in the body and in X-Stockless-Event-Id, and the API answers the same envelope', async () => {
    const other = await startTestApp();
    const receiver = await startReceiver();
    const worker = await startWorkerProcess(other.databaseUrl, receiver.caFile);
    try {
      const store = await liveStore(other, 'Delivered');
      const hook = await send<{ webhook: { id: number } }>(other, 'POST', '/api/v1/vendor/webhooks', {
        key: store.readWrite,
        body: { url: `${receiver.url}/hook`, events: ['order.created'] },
      });
      expect(hook.status, hook.text).toBe(201);
      const product = await fixtures(other.em()).product({
        supplierId: await fixtures(other.em()).supplier(),
      });
      const placed = await send<{ order: { id: number } }>(other, 'POST', '/api/v1/orders', {
        key: store.readWrite,
        body: {
          customer: { email: 'cy@example.com', name: 'Cy Buyer', phone: '' },
          items: [{ product_id: product, quantity: 1 }],
          shipping: { address: '1 Pitt St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
        },
      });
      expect(placed.status, placed.text).toBe(201);
      const listed = await send(other, 'POST', '/api/v1/my-products', {
        key: store.readWrite,
        body: { product_id: product },
      });
      expect(listed.status, listed.text).toBe(201);
      const [got] = await receiver.waitFor(1);
      if (!got) throw new Error('nothing delivered');
      const body = JSON.parse(got.body) as StocklessEvent;
      expect(body.id).toMatch(/^evt_\d+$/);
      expect(got.headers['x-stockless-event-id']).toBe(body.id);
      expect(got.headers['webhook-id']).toBe(`msg_${body.id.slice(4)}`);
      expect(body).toMatchObject({ event: 'order.created', livemode: true });
      const one = await send<GetEventResponse>(other, 'GET', `${EVENTS}/${body.id}`, { key: store.read });
      expect(one.body.event).toEqual(body);
      // The product listed is in the log too (its window closes a second later), though no
      // subscription wants it; and so is the stock its listing store now sees reserved.
      const until = Date.now() + 15_000;
      let kinds: string[] = [];
      while (Date.now() < until && !kinds.includes('product.created')) {
        const page = await send<ListEventsResponse>(other, 'GET', `${EVENTS}?order=asc`, { key: store.read });
        expect(page.body.events[0]).toEqual(body);
        kinds = page.body.events.map((e) => e.event);
        await sleep(100);
      }
      expect(kinds).toContain('product.created');
      expect(receiver.received).toHaveLength(1);
    } finally {
      await worker.stop();
      await receiver.close();
      await other.close();
    }
  }, 45_000);
});
