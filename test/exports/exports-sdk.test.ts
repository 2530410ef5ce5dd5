import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stockless, StocklessError, StocklessExportError } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { exportSettings, local, runQueuedExports } from './helpers.ts';

/**
 * The SDK's exports: create, retrieve, list, and `lines`, which waits for the export (the job runs
 * meanwhile, as a worker would), downloads the signed url with no credential and parses each line.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let sdk: Stockless;
const settings = exportSettings(2);

beforeAll(async () => {
  app = await startTestApp({ EXPORT_DIR: settings.dir });
  store = await app.createStore('SDK Export');
  const f = fixtures(app.em());
  const supplierId = await f.supplier();
  for (const stock of [1, 2, 3]) await f.listing(store.id, await f.product({ supplierId, stock: [stock] }));
  // The url names the public host: the SDK's fetch reaches this test app for it.
  const fetchLocal: typeof fetch = (input, init) => fetch(local(app, String(input)), init);
  sdk = new Stockless({ baseUrl: app.url, apiKey: store.readWrite, fetch: fetchLocal });
});
afterAll(async () => {
  await app?.close();
});

describe('client.exports', () => {
  it('create, then lines(): waits, downloads and parses every listing, typed as the list item', async () => {
    const created = await sdk.exports.create({ type: 'listings' });
    expect(created.export.status).toBe('queued');
    const reading = (async () => {
      const out = [];
      for await (const listing of sdk.exports.lines('listings', created.export.id, { intervalMs: 50 })) {
        out.push(listing.product_id);
      }
      return out;
    })();
    await new Promise((r) => setTimeout(r, 120));
    await runQueuedExports(app, settings);
    const ids = await reading;
    const list = await sdk.listings.list({ limit: 100 });
    expect(ids.sort()).toEqual(list.products.map((p) => p.product_id).sort());
    expect(ids).toHaveLength(3);

    const page = await sdk.exports.list({ limit: 10 });
    expect(page.exports.map((e) => e.id)).toContain(created.export.id);
    expect((await sdk.exports.retrieve(created.export.id)).export.status).toBe('completed');
  });

  it('a second create while one runs throws StocklessError EXPORT_ALREADY_RUNNING; a failed export throws StocklessExportError', async () => {
    const first = await sdk.exports.create({ type: 'catalogue', filters: { in_stock: true } });
    const refused = await sdk.exports.create({ type: 'orders' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StocklessError);
    expect((refused as StocklessError).code).toBe('EXPORT_ALREADY_RUNNING');
    await rows(
      app.em(),
      sql`UPDATE exports SET status = 'failed', error_code = 'EXPORT_FAILED', error_message = 'x'
        WHERE id = ${first.export.id.slice(4)}::bigint`,
    );
    const failed = await sdk.exports.wait(first.export.id, { intervalMs: 10 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StocklessExportError);
    expect((failed as StocklessExportError).export.error?.code).toBe('EXPORT_FAILED');
  });
});
