import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { type ExportFileStore, LocalFileStore } from '../../src/exports/file-store.ts';
import { runExport } from '../../src/exports/run-export.ts';
import { advanceOrder } from '../../src/orders/advance-order.ts';
import { checkoutStorefront } from '../../src/orders/checkout-storefront.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { createExport, dispatch, download, exportSettings, getExport, settled } from './helpers.ts';

/**
 * Nothing skipped under concurrent writes: a write whose transaction began before the export's
 * snapshot and commits while the export runs (a lower xid, committed later: the case a timestamp or a
 * sequence cursor skips), and writes after it, are each either in the file or in the feed read from the
 * export's continuation cursor. The file and the feed together are the store as it now is.
 */

let app: TestApp;
let supplierId: number;
const settings = exportSettings(2);

beforeAll(async () => {
  app = await startTestApp({ EXPORT_DIR: settings.dir });
  supplierId = await fixtures(app.em()).supplier({ name: 'Continuation Supplier' });
});
afterAll(async () => {
  await app?.close();
});

/**
 * Runs the export with `write` in a transaction begun before the export's snapshot and committed after
 * it, while the export runs: when its file is written, before the export completes (the completion
 * records an event, which waits on the dispatcher's job key a held order change also holds).
 */
async function exportWithLateCommit(
  exportId: string,
  write: (tx: ReturnType<TestApp['em']>) => Promise<unknown>,
) {
  let release!: () => void;
  let wrote!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const written = new Promise<void>((r) => (wrote = r));
  const held = app.em().transactional(async (tx) => {
    await write(tx);
    wrote();
    await gate;
  });
  await written;
  const local = new LocalFileStore(settings.dir);
  const files: ExportFileStore = {
    open: (key) => local.open(key),
    size: (key) => local.size(key),
    remove: (key) => local.remove(key),
    create: async (key) => {
      const pending = await local.create(key);
      return {
        ...pending,
        commit: async () => {
          release();
          await held;
          await pending.commit();
        },
      };
    },
  };
  try {
    expect(await runExport({ em: () => app.em(), settings, files }, exportId.slice(4))).toBe('completed');
  } finally {
    release();
    await held;
  }
}

const SHIPPING = {
  address: '1 Test Street',
  address2: '',
  city: 'Sydney',
  state: 'NSW',
  zip: '2000',
  country: 'AU',
};

async function order(storeId: number, productId: number): Promise<number> {
  const placed = await checkoutStorefront(
    { em: app.em() },
    {
      storeId,
      channel: 'direct',
      customer: { email: 'c@example.com', name: 'Cy Buyer', phone: '+61 400 000 000' },
      shipping: SHIPPING,
      items: [{ product_id: productId, quantity: 1 }],
    },
  );
  return placed.id;
}

describe('an orders export and the event log from its cursor', () => {
  it('together hold every order change, the late-committing one included', async () => {
    const store = await app.createStore('Orders Continuation');
    const f = fixtures(app.em());
    const productId = await f.product({ supplierId, stock: [100] });
    await f.listing(store.id, productId);
    const o1 = await order(store.id, productId);
    const o2 = await order(store.id, productId);
    await dispatch(app);
    const made = await createExport(app, store.readWrite, { type: 'orders' });
    expect(made.status, made.text).toBe(202);

    await exportWithLateCommit(made.body.export.id, (tx) =>
      advanceOrder({ em: tx }, { orderId: o1, status: 'processing' }),
    );
    const o3 = await order(store.id, productId);
    await advanceOrder({ em: app.em() }, { orderId: o2, status: 'processing' });

    const done = await getExport(app, store.read, made.body.export.id);
    const lines = (await download(app, done)) as { id: number; status: string }[];
    // The held change was not in the snapshot: o1 is still pending in the file, o3 is not there.
    expect(lines.map((l) => [l.id, l.status])).toEqual([
      [o1, 'pending'],
      [o2, 'pending'],
    ]);

    await dispatch(app);
    await settled(app, store.id);
    const cursor = encodeURIComponent(done.continuation?.events_cursor ?? '');
    const feed = await send<{ events: { event: string; data: { order: { id: number; status: string } } }[] }>(
      app,
      'GET',
      `/api/v1/events?order=asc&limit=100&type=order.*&cursor=${cursor}`,
      { key: store.read },
    );
    expect(feed.status, feed.text).toBe(200);
    const state = new Map(lines.map((l) => [l.id, l.status]));
    for (const e of feed.body.events) state.set(e.data.order.id, e.data.order.status);
    const now = await send<{ orders: { id: number; status: string }[] }>(
      app,
      'GET',
      '/api/v1/orders?sort_by=id&order=asc',
      { key: store.read },
    );
    expect([...state.entries()].sort((a, b) => a[0] - b[0])).toEqual(
      now.body.orders.map((o) => [o.id, o.status]),
    );
    expect(now.body.orders.map((o) => [o.id, o.status])).toEqual([
      [o1, 'processing'],
      [o2, 'processing'],
      [o3, 'pending'],
    ]);
  });
});

describe('a listings export and the inventory feed from its cursor', () => {
  it('together hold every listing change, the late-committing one included', async () => {
    const store = await app.createStore('Listings Continuation');
    const f = fixtures(app.em());
    const [a, b, c, d] = [
      await f.product({ supplierId }),
      await f.product({ supplierId }),
      await f.product({ supplierId }),
      await f.product({ supplierId }),
    ] as [number, number, number, number];
    for (const p of [a, b, c]) await f.listing(store.id, p);
    const made = await createExport(app, store.readWrite, { type: 'listings' });

    await exportWithLateCommit(made.body.export.id, async (tx) => {
      await rows(
        tx,
        sql`UPDATE listings SET custom_retail_price_cents = 3333 WHERE store_id = ${store.id} AND product_id = ${a}`,
      );
      await rows(tx, sql`INSERT INTO listings (store_id, product_id) VALUES (${store.id}, ${d})`);
    });
    await rows(
      app.em(),
      sql`UPDATE listings SET custom_retail_price_cents = 4444 WHERE store_id = ${store.id} AND product_id = ${b}`,
    );

    const done = await getExport(app, store.read, made.body.export.id);
    const lines = (await download(app, done)) as {
      product_id: number;
      custom_retail_price_cents: number | null;
    }[];
    expect(lines.map((l) => [l.product_id, l.custom_retail_price_cents])).toEqual([
      [a, null],
      [b, null],
      [c, null],
    ]);

    // The feed reads only below every running transaction: poll until the changes show.
    const cursor = encodeURIComponent(done.continuation?.inventory_cursor ?? '');
    let changed: number[] = [];
    for (let i = 0; i < 200 && !(changed.includes(a) && changed.includes(b) && changed.includes(d)); i++) {
      const feed = await send<{ items: { product_id: number }[] }>(
        app,
        'GET',
        `/api/v1/inventory?updated_since=${cursor}`,
        { key: store.read },
      );
      expect(feed.status, feed.text).toBe(200);
      changed = feed.body.items.map((item) => item.product_id);
      if (!changed.includes(d)) await new Promise((r) => setTimeout(r, 25));
    }
    expect(changed).toEqual(expect.arrayContaining([a, b, d]));
  });
});

describe('one snapshot', () => {
  it('a change committed between two batches is not in the later batch: every line is as of the start', async () => {
    const store = await app.createStore('One Snapshot');
    const f = fixtures(app.em());
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await f.product({ supplierId }));
    for (const p of ids) await f.listing(store.id, p);
    const made = await createExport(app, store.readWrite, { type: 'listings' });
    const last = ids[4] as number;
    const files = new LocalFileStore(settings.dir);
    const onProgress = async (n: number) => {
      // After the first batch (2 rows): the last listing repriced and the fourth removed, committed.
      if (n !== 2) return;
      await rows(
        app.em(),
        sql`UPDATE listings SET custom_retail_price_cents = 7777 WHERE store_id = ${store.id} AND product_id = ${last}`,
      );
      await rows(
        app.em(),
        sql`UPDATE listings SET deleted_at = now() WHERE store_id = ${store.id} AND product_id = ${ids[3] as number}`,
      );
    };
    const outcome = await runExport(
      { em: () => app.em(), settings, files, onProgress },
      made.body.export.id.slice(4),
    );
    expect(outcome).toBe('completed');
    const done = await getExport(app, store.read, made.body.export.id);
    const lines = (await download(app, done)) as {
      product_id: number;
      custom_retail_price_cents: number | null;
    }[];
    expect(lines.map((l) => [l.product_id, l.custom_retail_price_cents])).toEqual(
      ids.map((id) => [id, null]),
    );
  });
});
