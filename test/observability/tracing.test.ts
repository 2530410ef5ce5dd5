import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { requestTo } from '../helpers/http.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import {
  type ApiProcess,
  createTestDatabase,
  startApiProcess,
  type TestDatabase,
  type TestStore,
} from '../helpers/processes.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

/**
 * OpenTelemetry end to end, with real processes: an API process and a worker process export to an
 * OTLP/HTTP receiver in this process; a partner's POST /api/v1/orders is one trace from its server
 * span to the webhook delivery it causes, and the webhook receiver gets the attempt's traceparent.
 */

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let db: TestDatabase;
let store: TestStore;
let otlp: OtlpReceiver;
let hooks: Receiver;
let api: ApiProcess;
let worker: WorkerProcess;
let productId: number;

function tracingEnv(service: string): Record<string, string> {
  // A short batch delay: spans reach the receiver in a tenth of a second, not the SDK's 5 s.
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
}

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  const created = await createTestDatabase();
  db = created;
  store = created.first;
  const supplierId = await fixtures(db.em()).supplier({ name: 'Traced Supplier' });
  productId = await fixtures(db.em()).product({ supplierId });
  // `info`: the request log lines, which name their trace.
  api = await startApiProcess(db.databaseUrl, { ...tracingEnv('stockless-api'), LOG_LEVEL: 'info' });
  worker = await startWorkerProcess(db.databaseUrl, hooks.caFile, tracingEnv('stockless-worker'));
  const res = await requestTo(api.url)('/api/v1/vendor/webhooks', {
    key: store.readWrite,
    method: 'POST',
    body: { url: `${hooks.url}/traced?token=secret`, events: ['order.created'] },
  });
  expect(res.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  await hooks?.close();
  await otlp?.close();
  await db?.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function placeOrder(url: string, headers: Record<string, string>) {
  return requestTo(url)('/api/v1/orders', {
    key: store.readWrite,
    method: 'POST',
    headers,
    body: {
      customer: { email: 'traced.buyer@example.com', name: 'Tracy Buyer', phone: '+61 400 000 001' },
      items: [{ product_id: productId, quantity: 1 }],
      shipping: { address: '9 Secret Lane', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
    },
  });
}

function one(spans: ReceivedSpan[], where: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan {
  const found = spans.filter(where);
  expect(found, what).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

/** Whether `span` descends from `ancestor` within `spans`. */
function descends(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let s: ReceivedSpan | undefined = span; s; s = byId.get(s.parentSpanId))
    if (s.parentSpanId === ancestor.spanId) return true;
  return false;
}

describe('tracing on', () => {
  it("continues a partner's traceparent from POST /api/v1/orders to the webhook delivery, as one trace", async () => {
    const traceId = hex(16);
    const partnerSpan = hex(8);
    const before = hooks.received.length;
    const res = await placeOrder(api.url, { traceparent: `00-${traceId}-${partnerSpan}-01` });
    expect(res.status).toBe(201);
    const orderId = ((await res.json()) as { order: { id: number } }).order.id;
    const [delivered] = (await hooks.waitFor(before + 1)).slice(before);
    const sent = String(delivered?.headers.traceparent);
    expect(sent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const attemptId = sent.split('-')[2];
    const spans = await otlp.waitFor((all) => {
      const mine = all.filter((s) => s.traceId === traceId);
      return mine.some((s) => s.spanId === attemptId) && mine.some((s) => s.kind === SERVER)
        ? mine
        : undefined;
    });
    const server = one(spans, (s) => s.kind === SERVER, 'the server span');
    expect(server).toMatchObject({
      name: 'POST /api/v1/orders',
      parentSpanId: partnerSpan,
      service: 'stockless-api',
    });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/v1/orders',
      'http.response.status_code': 201,
      'url.path': '/api/v1/orders',
    });
    // The request's log line names its trace, so an operator goes from a log line to the trace.
    expect(api.output()).toMatch(new RegExp(`"path":"/api/v1/orders".*"trace_id":"${traceId}"`));
    const procedure = one(spans, (s) => s.name === 'orders.create', 'the procedure span');
    expect(procedure.parentSpanId).toBe(server.spanId);
    expect(procedure.attributes).toMatchObject({ 'rpc.system': 'trpc', 'rpc.method': 'orders.create' });

    const statements = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(2);
    for (const s of statements) expect(s.kind).toBe(CLIENT);
    expect(statements.some((s) => descends(spans, s, procedure))).toBe(true);
    const enqueue = one(spans, (s) => s.name === 'send dispatch_events', 'the enqueue span');
    expect(enqueue.kind).toBe(PRODUCER);
    expect(descends(spans, enqueue, procedure)).toBe(true);
    // The order's statement (its event and the job's enqueue) runs inside the enqueue span.
    const insert = one(
      statements,
      (s) =>
        s.parentSpanId === enqueue.spanId && String(s.attributes['db.query.text']).includes('domain_events'),
      'the order statement',
    );
    expect(insert.name).toBe('WITH');

    const dispatch = one(spans, (s) => s.name === 'dispatch order.created', 'the dispatch span');
    expect(dispatch).toMatchObject({
      kind: CONSUMER,
      parentSpanId: enqueue.spanId,
      service: 'stockless-worker',
    });
    const fanOut = one(spans, (s) => s.name === 'fan-out order.created', 'the fan-out span');
    expect(fanOut.parentSpanId).toBe(dispatch.spanId);
    const attempt = one(spans, (s) => s.spanId === attemptId, 'the delivery attempt');
    expect(attempt).toMatchObject({ name: 'POST', kind: CLIENT, parentSpanId: fanOut.spanId });
    expect(attempt.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      // The origin alone: a receiver's path may be its secret (Slack- and Discord-style URLs).
      'url.full': new URL(hooks.url).origin,
      'stockless.event': 'order.created',
    });

    // The batch job that took the event is a trace of its own, linked to the request's.
    const job = await otlp.waitFor((all) =>
      all.find((s) => s.name === 'process dispatch_events' && s.spanId === dispatch.links[0]?.spanId),
    );
    expect(job.traceId).not.toBe(traceId);
    expect(job.links).toContainEqual({ traceId, spanId: enqueue.spanId });

    // Parameters never reach a span: the buyer's details stay in the database.
    const exported = JSON.stringify(otlp.spans);
    for (const secret of ['traced.buyer@example.com', 'Tracy Buyer', '9 Secret Lane', 'token=secret'])
      expect(exported).not.toContain(secret);
    const [row] = await rows<{ traceparent: string }>(
      db.em(),
      sql`SELECT traceparent FROM domain_events WHERE entity_id = ${orderId} AND event = 'order.created'`,
    );
    expect(row?.traceparent).toBe(`00-${traceId}-${enqueue.spanId}-01`);
  }, 60_000);

  it('ignores a malformed traceparent: the request answers 2xx and starts a trace of its own', async () => {
    for (const bad of ['nonsense', `00-${'0'.repeat(32)}-${hex(8)}-01`, `00-${hex(16)}-${hex(8)}`]) {
      const res = await requestTo(api.url)('/api/v1/orders?limit=1', {
        key: store.read,
        headers: { traceparent: bad },
      });
      expect(res.status, bad).toBe(200);
      const requestId = res.headers.get('x-request-id');
      const server = await otlp.waitFor((all) =>
        all.find((s) => s.kind === SERVER && s.attributes['stockless.request_id'] === requestId),
      );
      expect(server.name).toBe('GET /api/v1/orders');
      expect(server.parentSpanId).toBe('');
      expect(bad).not.toContain(server.traceId);
    }
  }, 60_000);
});

describe('tracing off', () => {
  it('exports nothing, writes no trace context and sends no traceparent', async () => {
    await worker.stop();
    await api.stop();
    const exportsBefore = otlp.requests.length;
    const offApi = await startApiProcess(db.databaseUrl);
    const offWorker = await startWorkerProcess(db.databaseUrl, hooks.caFile);
    try {
      const before = hooks.received.length;
      const traceId = hex(16);
      const res = await placeOrder(offApi.url, { traceparent: `00-${traceId}-${hex(8)}-01` });
      expect(res.status).toBe(201);
      const orderId = ((await res.json()) as { order: { id: number } }).order.id;
      const [delivered] = (await hooks.waitFor(before + 1)).slice(before);
      expect(delivered?.headers.traceparent).toBeUndefined();
      const [row] = await rows<{ outbox: string | null; event: string | null }>(
        db.em(),
        sql`SELECT d.traceparent AS outbox, w.traceparent AS event
          FROM domain_events d JOIN webhook_events w ON w.event_key = 'order.created:' || d.entity_id
          WHERE d.entity_id = ${orderId} AND d.event = 'order.created'`,
      );
      expect(row).toEqual({ outbox: null, event: null });
      await new Promise((r) => setTimeout(r, 500));
      expect(otlp.requests.length).toBe(exportsBefore);
      expect(otlp.spans.some((s) => s.traceId === traceId)).toBe(false);
    } finally {
      await offWorker.stop();
      await offApi.stop();
    }
  }, 60_000);
});
