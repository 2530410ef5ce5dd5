import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../client/src/index.ts';
import { fixtures } from '../helpers/fixtures.ts';
import {
  type ApiProcess,
  createTestDatabase,
  startApiProcess,
  type TestDatabase,
  type TestStore,
} from '../helpers/processes.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

/**
 * The platform as it is meant to run: two API processes and two worker processes on one PostgreSQL.
 * Orders taken by either API process each reach the store's webhook exactly once, whichever worker
 * sends them, at a hostname resolved by the workers (WEBHOOK_TEST_HOSTS stands in for DNS).
 */

const HOST = 'hooks-platform.test';
let db: TestDatabase & { first: TestStore };
let apis: ApiProcess[] = [];
let workers: WorkerProcess[] = [];
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver({ hostnames: [HOST] });
  const env = {
    WEBHOOK_TEST_HOSTS: `${HOST}=127.0.0.1`,
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
  };
  apis = await Promise.all([startApiProcess(db.databaseUrl, env), startApiProcess(db.databaseUrl, env)]);
  workers = await Promise.all([
    startWorkerProcess(db.databaseUrl, receiver.caFile, env),
    startWorkerProcess(db.databaseUrl, receiver.caFile, env),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([...apis.map((a) => a.stop()), ...workers.map((w) => w.stop())]);
  await receiver.close();
  await db.close();
});

async function send(api: ApiProcess, path: string, key: string, body?: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { order: { id: number } } };
}

describe('two API and two worker processes on one database', () => {
  it('deliver each order taken by either API process to the hostname once', async () => {
    const store = db.first;
    const port = new URL(receiver.url).port;
    const hook = await send(apis[0] as ApiProcess, '/api/v1/vendor/webhooks', store.readWrite, {
      url: `https://${HOST}:${port}/orders`,
      events: ['order.created'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const fx = fixtures(db.em());
    const productId = await fx.product({
      supplierId: await fx.supplier({ name: 'Platform Maker' }),
      stock: [100],
    });
    const before = receiver.received.length;
    const orders = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(apis[i % 2] as ApiProcess, '/api/v1/orders', store.readWrite, {
          customer: { email: `b${i}@example.com`, name: `Buyer ${i}`, phone: '+61 400 000 000' },
          items: [{ product_id: productId, quantity: 1 }],
          shipping: { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
        }),
      ),
    );
    expect(orders.map((o) => o.status)).toEqual(Array(30).fill(201));
    await receiver.waitFor(before + 30, 30_000);
    // Nothing more arrives: each event was sent once.
    await new Promise((r) => setTimeout(r, 1500));
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(30);
    const keys = got.map((r) => (JSON.parse(r.body) as WebhookEvent).event_key);
    expect(new Set(keys)).toEqual(new Set(orders.map((o) => `order.created:${o.body.order.id}`)));
    expect(new Set(got.map((r) => String(r.headers['x-stockless-delivery-id']))).size).toBe(30);
    expect(got.every((r) => r.headers.host === `${HOST}:${port}`)).toBe(true);
  }, 60_000);
});
