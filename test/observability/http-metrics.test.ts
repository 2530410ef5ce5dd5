import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/logger.ts';
import { type MetricsListener, startMetricsListener } from '../../server/metrics/listener.ts';
import { instrumentPool } from '../../server/metrics/pool-metrics.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { type Exposition, sampleValue, scrape, seriesCount } from '../helpers/prometheus.ts';

/**
 * /metrics of an API (the real app, metrics on, scraped over HTTP from its own listener): each
 * counter moves by exactly the requests made, nothing is on the partner port, and no client can grow
 * the label sets.
 */

let app: TestApp;
let metrics: MetricsListener;
let store: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp({ INVENTORY_RATE_LIMIT: '2' }, { metrics: true });
  metrics = await startMetricsListener(0, '127.0.0.1', createLogger('silent'));
  await instrumentPool(app.orm, 'api');
  store = await app.createStore('Metrics');
});
afterAll(async () => {
  await metrics.close();
  await app.close();
});

const REQUESTS = 'stockless_http_requests_total';
const delta = (a: Exposition, b: Exposition, name: string, labels: Record<string, string> = {}) =>
  sampleValue(b, name, labels) - sampleValue(a, name, labels);
const total = (e: Exposition) =>
  e.samples.filter((s) => s.name === REQUESTS).reduce((sum, s) => sum + s.value, 0);

describe('request metrics', () => {
  it('count a 200, a 400, a 429 refusal and an idempotent replay exactly', async () => {
    const supplierId = await fixtures(app.em()).supplier({ name: 'Maker' });
    const productId = await fixtures(app.em()).product({ supplierId, stock: [10] });
    const before = await scrape(metrics.url);
    for (let i = 0; i < 3; i++)
      expect((await app.get('/api/v1/products?limit=2', store.read)).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await app.get('/api/v1/products?limit=abc', store.read)).status).toBe(400);
    const inventory = [];
    for (let i = 0; i < 3; i++) inventory.push((await app.get('/api/v1/inventory', store.read)).status);
    expect(inventory).toEqual([200, 200, 429]);
    const body = {
      customer: { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' },
      shipping: { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
      items: [{ product_id: productId, quantity: 1 }],
    };
    const headers = { 'Idempotency-Key': `metrics-${randomUUID()}` };
    const first = await send(app, 'POST', '/api/v1/orders', { key: store.readWrite, body, headers });
    const again = await send(app, 'POST', '/api/v1/orders', { key: store.readWrite, body, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const after = await scrape(metrics.url);

    expect(delta(before, after, REQUESTS, { operation: 'listProducts', status: '200' })).toBe(3);
    expect(delta(before, after, REQUESTS, { operation: 'listProducts', status: '400' })).toBe(2);
    expect(delta(before, after, REQUESTS, { operation: 'listInventory', status: '200' })).toBe(2);
    expect(delta(before, after, REQUESTS, { operation: 'listInventory', status: '429' })).toBe(1);
    expect(delta(before, after, REQUESTS, { operation: 'createWholesaleOrder', status: '201' })).toBe(2);
    expect(total(after) - total(before)).toBe(10);
    const limit = { limit: 'inventory' };
    expect(delta(before, after, 'stockless_rate_limit_refusals_total', limit)).toBe(1);
    const replays = { operation: 'createWholesaleOrder' };
    expect(delta(before, after, 'stockless_idempotent_replays_total', replays)).toBe(1);
    const timed = { operation: 'listProducts', status: '200' };
    expect(delta(before, after, 'stockless_http_request_duration_seconds_count', timed)).toBe(3);
    expect(delta(before, after, 'stockless_http_request_duration_seconds_sum', timed)).toBeGreaterThan(0);
    expect(sampleValue(after, 'stockless_http_requests_in_flight')).toBe(0);
    expect(delta(before, after, 'stockless_db_pool_acquire_seconds_count', { pool: 'api' })).toBeGreaterThan(
      0,
    );
    expect(sampleValue(after, 'stockless_db_pool_max', { pool: 'api' })).toBe(6);
  });

  it('fold 1,000 requests to random unknown paths into at most one new series', async () => {
    const before = await scrape(metrics.url);
    const paths = Array.from({ length: 1000 }, (_, i) =>
      i % 2 ? `/api/v1/${randomUUID()}` : `/${randomUUID()}/${i}`,
    );
    for (let i = 0; i < paths.length; i += 25) {
      await Promise.all(paths.slice(i, i + 25).map(async (p) => (await app.request(p)).arrayBuffer()));
    }
    const after = await scrape(metrics.url);
    expect(seriesCount(after, REQUESTS) - seriesCount(before, REQUESTS)).toBeLessThanOrEqual(1);
    expect(delta(before, after, REQUESTS, { operation: 'unmatched', status: '404' })).toBe(1000);
    const buckets = 'stockless_http_request_duration_seconds_bucket';
    expect(seriesCount(after, buckets) - seriesCount(before, buckets)).toBeLessThanOrEqual(12);
  });
});

describe('where /metrics answers', () => {
  it('never on the partner port: 404 there, as any unknown path', async () => {
    const res = await app.request('/metrics');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('ROUTE_NOT_FOUND');
  });

  it('its listener serves /metrics alone, nothing of the partner API', async () => {
    for (const path of ['/api/v1/products', '/health', '/']) {
      expect((await fetch(`${metrics.url}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${metrics.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('is off unless METRICS_PORT is set, binds loopback by default, and never shares the partner port', () => {
    const config = loadConfig({});
    expect(config.METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_HOST).toBe('127.0.0.1');
    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(
      /METRICS_PORT must differ from PORT/,
    );
  });
});
