import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  GetWebhookResponse,
  ListWebhookDeliveriesResponse,
  OrderCreatedEvent,
} from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

let app: TestApp;
let receiver: Receiver;
let worker: WorkerProcess | undefined;
let supplierId: number;
const stripe = new Stripe('sk_test_unused');

beforeAll(async () => {
  app = await startTestApp();
  receiver = await startReceiver();
  supplierId = await fixtures(app.em()).supplier({ name: 'Hook Supplier' });
});
afterAll(async () => {
  await worker?.stop();
  await receiver.close();
  await app.close();
});
afterEach(() => {
  receiver.behave(() => 200);
});

async function subscribe(key: string, events: string[], path = '/hook') {
  const res = await app.request('/api/v1/vendor/webhooks', {
    key,
    method: 'POST',
    body: { url: `${receiver.url}${path}`, events },
  });
  const body = (await res.json()) as { webhook: { id: number; secret: string } };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.webhook;
}

function order(key: string, productId: number) {
  return app.request('/api/v1/orders', {
    key,
    method: 'POST',
    body: {
      customer: { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' },
      items: [{ product_id: productId, quantity: 1 }],
      shipping: { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
    },
  });
}

describe('delivery', () => {
  it('signs order.created so that Stripe and Standard Webhooks libraries both verify it', async () => {
    worker ??= await startWorkerProcess(app.databaseUrl, receiver.caFile);
    const store = await app.createStore('Signed');
    const hook = await subscribe(store.readWrite, ['order.created']);
    const product = await fixtures(app.em()).product({ supplierId });
    const before = receiver.received.length;
    const res = await order(store.readWrite, product);
    expect(res.status).toBe(201);
    const created = ((await res.json()) as { order: { id: number } }).order;
    const [got] = (await receiver.waitFor(before + 1)).slice(before);
    if (!got) throw new Error('nothing received');
    const body: OrderCreatedEvent = JSON.parse(got.body);
    expect(body).toMatchObject({ event: 'order.created', event_key: `order.created:${created.id}` });
    expect(body.data.order).toMatchObject({ id: created.id, status: 'pending' });
    expect(got.headers['x-stockless-event']).toBe('order.created');
    expect(got.headers['x-stockless-delivery-id']).toBe(`${hook.id}:order.created:${created.id}:1`);
    const event = stripe.webhooks.constructEvent(
      got.body,
      String(got.headers['x-stockless-signature']),
      hook.secret,
    );
    expect(event).toMatchObject({ event: 'order.created' });
    const standard = new StandardWebhook(hook.secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    expect(standard).toMatchObject({ event: 'order.created' });
    // A wrong secret fails both.
    expect(() =>
      stripe.webhooks.constructEvent(
        got.body,
        String(got.headers['x-stockless-signature']),
        `${hook.secret}x`,
      ),
    ).toThrow();
    const t = /t=(\d+)/.exec(String(got.headers['x-stockless-signature']))?.[1];
    expect(String(got.headers['x-stockless-signature'])).toBe(
      `t=${t},v1=${createHmac('sha256', hook.secret).update(`${t}.${got.body}`).digest('hex')}`,
    );
  });

  it('retries non-2xx answers on the ladder, logs every attempt, then dead-letters and emails the owner', async () => {
    worker ??= await startWorkerProcess(app.databaseUrl, receiver.caFile);
    const store = await app.createStore('Failing');
    await rows(app.em(), sql`UPDATE stores SET owner_email = 'owner@failing.test' WHERE id = ${store.id}`);
    const hook = await subscribe(store.readWrite, ['order.created'], '/fail');
    receiver.behave((r) =>
      (r.headers['x-stockless-delivery-id'] as string)?.startsWith(`${hook.id}:`) ? 500 : 200,
    );
    const product = await fixtures(app.em()).product({ supplierId });
    const before = receiver.received.length;
    expect((await order(store.readWrite, product)).status).toBe(201);
    await receiver.waitFor(before + 6);
    await new Promise((r) => setTimeout(r, 1000));
    const mine = receiver.received.filter((r) =>
      String(r.headers['x-stockless-delivery-id']).startsWith(`${hook.id}:`),
    );
    expect(mine.map((r) => String(r.headers['x-stockless-delivery-id']).split(':').pop())).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    const log = await app.get<ListWebhookDeliveriesResponse>(
      `/api/v1/vendor/webhooks/${hook.id}/deliveries`,
      store.read,
    );
    expect(log.status).toBe(200);
    expect(log.body.deliveries).toHaveLength(6);
    expect(log.body.deliveries.every((d) => d.response_status === 500)).toBe(true);
    const [d] = await rows<{ status: string }>(
      app.em(),
      sql`SELECT status FROM webhook_deliveries WHERE subscription_id = ${hook.id}`,
    );
    expect(d?.status).toBe('dead');
    const mail = await rows<{ kind: string; to_address: string }>(
      app.em(),
      sql`SELECT kind, to_address FROM mail_outbox WHERE store_id = ${store.id}`,
    );
    expect(mail).toContainEqual({ kind: 'webhook_dead_letter', to_address: 'owner@failing.test' });
    const sub = await app.get<GetWebhookResponse>(`/api/v1/vendor/webhooks/${hook.id}`, store.read);
    expect(sub.body.webhook).toMatchObject({ active: true, failure_streak: 1 });
  });
});
