import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { type MetricsListener, startMetricsListener } from '../../server/metrics/listener.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/http.ts';
import { type Exposition, familyOf, sampleValue, scrape } from '../helpers/prometheus.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

/**
 * A real worker process's /metrics (METRICS_PORT): webhook attempts by outcome and delivery lag move
 * by exactly the deliveries made, the database gauges answer from the worker, and every expression of
 * the Grafana dashboard and the alert rules names a metric the service really exports.
 */

let app: TestApp;
let receiver: Receiver;
let worker: WorkerProcess;
let workerMetrics: string;
let apiMetrics: MetricsListener;
let workerOutput = '';

beforeAll(async () => {
  app = await startTestApp({}, { metrics: true });
  apiMetrics = await startMetricsListener(0, '127.0.0.1', createLogger('silent'));
  receiver = await startReceiver();
  const port = await freePort();
  workerMetrics = `http://127.0.0.1:${port}`;
  worker = await startWorkerProcess(app.databaseUrl, receiver.caFile, {
    METRICS_PORT: String(port),
    METRICS_HOST: '127.0.0.1',
  });
  worker.child.stdout?.on('data', (d: Buffer) => {
    workerOutput += d.toString();
  });
});
afterAll(async () => {
  await worker?.stop();
  await receiver.close();
  await apiMetrics.close();
  await app.close();
});

/** `n` events to one subscription, each envelope carrying its commit time as the real ones do. */
async function queue(storeId: number, subscriptionId: number, tag: string, n: number) {
  await rows(
    app.em(),
    sql`WITH e AS (
        INSERT INTO webhook_events (store_id, event, event_key, body)
        SELECT ${storeId}, 'webhook.ping', 'webhook.ping:' || ${tag} || '.' || g,
          '{"id":"evt_m' || g || '","event":"webhook.ping","event_key":"k","created_at":"' ||
          to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","tag":"' || ${tag} || '"}'
        FROM generate_series(1, ${n}) g RETURNING id)
      INSERT INTO webhook_deliveries (subscription_id, event_id) SELECT ${subscriptionId}, id FROM e`,
  );
  await rows(
    app.em(),
    sql`SELECT add_keyed_job('deliver_webhooks', '{}'::json, 'deliver_webhooks', 'replace')`,
  );
}

const attempts = (e: Exposition, outcome: string) =>
  sampleValue(e, 'stockless_webhook_attempts_total', { outcome });

describe('a worker process', () => {
  it('counts deliveries by outcome and their lag exactly, and answers the database gauges', async () => {
    const store = await app.createStore('Worker metrics');
    const created = await app.request('/api/v1/vendor/webhooks', {
      key: store.readWrite,
      method: 'POST',
      body: { url: `${receiver.url}/ok`, events: ['webhook.ping'] },
    });
    expect(created.status).toBe(201);
    const [ok] = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM webhook_subscriptions WHERE store_id = ${store.id}`,
    );
    const [gone] = await rows<{ id: number }>(
      app.em(),
      sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
        SELECT store_id, url || '-gone', events, secret_encrypted FROM webhook_subscriptions WHERE id = ${ok?.id}
        RETURNING id`,
    );
    receiver.behave((r) => (r.body.includes('"tag":"gone"') ? 410 : 200));
    const before = await scrape(workerMetrics);
    const seen = receiver.received.length;
    await queue(store.id, ok?.id ?? 0, 'ok', 5);
    await queue(store.id, gone?.id ?? 0, 'gone', 3);
    const tagged = (tag: string) =>
      receiver.received.slice(seen).filter((r) => r.body.includes(`"tag":"${tag}"`));

    await expect
      .poll(async () => attempts(await scrape(workerMetrics), 'succeeded') - attempts(before, 'succeeded'), {
        timeout: 20_000,
      })
      .toBe(5);
    await expect
      .poll(async () => attempts(await scrape(workerMetrics), 'gone') - attempts(before, 'gone'), {
        timeout: 10_000,
      })
      .toBe(tagged('gone').length);
    const after = await scrape(workerMetrics);
    expect(tagged('ok')).toHaveLength(5);
    expect(tagged('gone').length).toBeGreaterThanOrEqual(1);
    expect(attempts(after, 'failed') - attempts(before, 'failed')).toBe(0);
    const lag = 'stockless_webhook_delivery_lag_seconds';
    expect(sampleValue(after, `${lag}_count`) - sampleValue(before, `${lag}_count`)).toBe(5);
    const lagSum = sampleValue(after, `${lag}_sum`) - sampleValue(before, `${lag}_sum`);
    expect(lagSum).toBeGreaterThan(0);
    expect(lagSum / 5).toBeLessThan(20);

    expect(sampleValue(after, 'stockless_db_gauges_up'), workerOutput).toBe(1);
    // A scrape's database read may be up to a moment old (the gauges of one scrape share it).
    const disabled = { state: 'disabled_gone' };
    await expect
      .poll(async () => sampleValue(await scrape(workerMetrics), 'stockless_webhook_subscriptions', disabled))
      .toBe(1);
    expect(
      after.samples.some((s) => s.name === 'stockless_jobs_queued' && s.labels.task === 'deliver_webhooks'),
    ).toBe(true);
    expect(sampleValue(after, 'stockless_exports', { status: 'running' })).toBe(0);
    expect(sampleValue(after, 'stockless_db_pool_max', { pool: 'worker' })).toBeGreaterThan(0);
    expect(after.types.get('process_cpu_user_seconds_total')).toBe('counter');
  }, 60_000);

  it('reports the event log head lag and the inventory feed head lag', async () => {
    const [event] = await rows<{ id: string }>(
      app.em(),
      sql`INSERT INTO domain_events (store_id, event, entity_id, created_at)
        SELECT id, 'product.updated', 1, now() - interval '1 hour' FROM stores ORDER BY id LIMIT 1
        RETURNING id::text`,
    );
    // Held by an open transaction with an xid: the dispatcher skips it (SKIP LOCKED), and the feed's
    // horizon waits for that transaction.
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      const locked = await holder.query(
        'SELECT id FROM domain_events WHERE id = $1 AND dispatched_at IS NULL FOR UPDATE',
        [event?.id],
      );
      expect(locked.rowCount).toBe(1);
      await new Promise((r) => setTimeout(r, 1500));
      const e = await scrape(workerMetrics);
      expect(sampleValue(e, 'stockless_event_log_head_lag_seconds')).toBeGreaterThanOrEqual(3590);
      expect(sampleValue(e, 'stockless_inventory_feed_head_lag_seconds')).toBeGreaterThanOrEqual(1.4);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await rows(app.em(), sql`DELETE FROM domain_events WHERE id = ${event?.id}::bigint`);
    }
  });
});

/** Every metric a PromQL expression names (ours, and the process/Node defaults prom-client exports). */
const METRIC_NAME = /\b(?:stockless|process|nodejs)_[a-zA-Z0-9_]+\b/g;

function expressionsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) expressionsOf(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((k === 'expr' || k === 'expression') && typeof v === 'string') out.push(v);
      else expressionsOf(v, out);
    }
  }
  return out;
}

describe('the dashboard and the alert rules', () => {
  it.each(['docs/grafana/stockless-dashboard.json', 'docs/prometheus/stockless-alerts.json'])(
    '%s names only metrics the service exports (scraped from an API and a worker)',
    async (file) => {
      const api = await scrape(apiMetrics.url);
      const work = await scrape(workerMetrics);
      const types = new Map([...api.types, ...work.types]);
      const exprs = expressionsOf(JSON.parse(readFileSync(file, 'utf8')));
      expect(exprs.length).toBeGreaterThan(5);
      const unknown: string[] = [];
      for (const expr of exprs) {
        const names = expr.match(METRIC_NAME) ?? [];
        expect(names.length, expr).toBeGreaterThan(0);
        for (const name of names) if (!familyOf(name, types)) unknown.push(`${name} in ${expr}`);
      }
      expect(unknown).toEqual([]);
    },
  );
});
