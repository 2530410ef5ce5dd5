import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CreateWebhookResponse,
  CreateWholesaleOrderResponse,
  GetWebhookResponse,
  ListWebhookDeliveriesResponse,
  ResendWebhookDeliveryResponse,
  RotateWebhookSecretResponse,
  TestWebhookResponse,
  UpdateWebhookResponse,
  WebhookAttempt,
  WebhookPayloads,
} from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { createCaller } from '../../src/router.ts';
import { createWebhookEvents } from '../../src/webhooks/fanout.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import {
  type Behaviour,
  type Received,
  type Receiver,
  startReceiver,
  startWorkerProcess,
  type WorkerProcess,
} from '../helpers/webhooks.ts';

/**
 * The webhook delivery engine end to end: a real HTTPS receiver, the worker as its own process
 * (`node server/main.ts worker`), the API app in this process, one database. Every test has its own
 * store and subscriptions, and reads only the requests whose `X-Stockless-Delivery-Id` starts with
 * its subscription's id.
 */

/** The main worker's deadline: long enough that a hang is clearly seen while other deliveries go on. */
const TIMEOUT_MS = 4000;
/** The main worker's coalescing window: three quick API calls always fall within it. */
const WINDOW_MS = 2000;
const MAIN_WORKER = { WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`, WEBHOOK_COALESCE_WINDOW: `${WINDOW_MS}ms` };
/** The ladder of the fast settings: one try and five retries. */
const ATTEMPTS = 6;
const OPERATOR_TOKEN = 'op_webhooks_engine_token_0123456789abcdef';
const HOOKS = '/api/v1/vendor/webhooks';

let app: TestApp;
let receiver: Receiver;
let supplierId: number;
/** The worker the tests share (replaced by the crash test, stopped by the URL-check test). */
let worker: WorkerProcess | undefined;
const started: WorkerProcess[] = [];
const stripe = new Stripe('sk_test_unused');

type Store = Awaited<ReturnType<TestApp['createStore']>>;
type Route = (attempt: number, r: Received) => Behaviour;
/** What the receiver answers, per subscription id (200 for any other). */
const routes = new Map<number, Route>();

type EventName = keyof WebhookPayloads;
/** A delivery's body: one of the contract's webhook payloads (`B` narrows it to an event's). */
type Envelope = WebhookPayloads[EventName];
interface Got<B extends Envelope = Envelope> {
  sub: number;
  key: string;
  attempt: number;
  body: B;
  raw: Received;
}
interface DeliveryRow {
  id: number;
  status: string;
  attempts: number;
  event: string;
  event_key: string;
}

beforeAll(async () => {
  app = await startTestApp();
  receiver = await startReceiver();
  receiver.behave((r) => {
    const id = parseId(r);
    return routes.get(id.sub)?.(id.attempt, r) ?? 200;
  });
  supplierId = await fixtures(app.em()).supplier({ name: 'Engine Supplier' });
});

afterAll(async () => {
  for (const w of started) await w.stop();
  await receiver?.close();
  await app?.close();
});

async function startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const w = await startWorkerProcess(app.databaseUrl, receiver.caFile, { ...MAIN_WORKER, ...env });
  started.push(w);
  return w;
}

async function mainWorker(): Promise<WorkerProcess> {
  worker ??= await startWorker();
  return worker;
}

function parseId(r: Received) {
  const parts = String(r.headers['x-stockless-delivery-id'] ?? '').split(':');
  return { sub: Number(parts[0]), key: parts.slice(1, -1).join(':'), attempt: Number(parts.at(-1)) };
}

/** Every request the receiver got for this subscription, in arrival order. */
function mine(sub: number): Got[] {
  return receiver.received
    .filter((r) => String(r.headers['x-stockless-delivery-id'] ?? '').startsWith(`${sub}:`))
    .map((r) => ({ ...parseId(r), body: JSON.parse(r.body) as Envelope, raw: r }));
}

function mineOf<E extends EventName>(sub: number, event: E): Got<WebhookPayloads[E]>[] {
  return mine(sub).filter((g): g is Got<WebhookPayloads[E]> => g.body.event === event);
}

async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 30_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** Waits until `n` requests of `event` reached the subscription; returns them. */
function received<E extends EventName>(
  sub: number,
  event: E,
  n = 1,
  timeoutMs = 30_000,
): Promise<Got<WebhookPayloads[E]>[]> {
  return waitUntil(
    `${n} × ${event} at subscription ${sub}`,
    () => {
      const got = mineOf(sub, event);
      return got.length >= n && got;
    },
    timeoutMs,
  );
}

function call<T = unknown>(method: string, path: string, key: string, body?: unknown) {
  return send<T>(app, method, path, { key, body });
}

async function subscribe(store: Store, events: string[], path = '/engine') {
  const res = await call<CreateWebhookResponse>('POST', HOOKS, store.readWrite, {
    url: `${receiver.url}${path}`,
    events,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook;
}

async function ping(store: Store, sub: number) {
  const res = await call<TestWebhookResponse>('POST', `${HOOKS}/${sub}/test`, store.readWrite);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.delivery;
}

async function getHook(store: Store, sub: number) {
  const res = await app.get<GetWebhookResponse>(`${HOOKS}/${sub}`, store.read);
  expect(res.status).toBe(200);
  return res.body.webhook;
}

/** The delivery log through the API, oldest first. */
async function log(store: Store, sub: number): Promise<WebhookAttempt[]> {
  const res = await app.get<ListWebhookDeliveriesResponse>(`${HOOKS}/${sub}/deliveries`, store.read);
  expect(res.status).toBe(200);
  return [...res.body.deliveries].reverse();
}

async function deliveries(sub: number): Promise<DeliveryRow[]> {
  return rows<DeliveryRow>(
    app.em(),
    sql`SELECT d.id::integer AS id, d.status, d.attempts, e.event, e.event_key
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.subscription_id = ${sub} ORDER BY d.id`,
  );
}

/** Waits until the subscription's only delivery (or the one given) is in `status`. */
function deliveryIs(sub: number, status: string, id?: number, timeoutMs = 30_000) {
  return waitUntil(
    `a ${status} delivery of subscription ${sub}`,
    async () => {
      const all = await deliveries(sub);
      const d = id === undefined ? all.at(-1) : all.find((x) => x.id === id);
      return d?.status === status && d;
    },
    timeoutMs,
  );
}

async function placeOrder(store: Store, productId: number): Promise<number> {
  const res = await call<CreateWholesaleOrderResponse>('POST', '/api/v1/orders', store.readWrite, {
    customer: { email: 'eve@example.com', name: 'Eve Engine', phone: '+61 400 000 002' },
    items: [{ product_id: productId, quantity: 1 }],
    shipping: { address: '3 Kent St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.order.id;
}

const internal = () =>
  createCaller(testContext(app, { authorization: `Bearer ${OPERATOR_TOKEN}`, operatorToken: OPERATOR_TOKEN }))
    .internal;

describe('webhook delivery engine', () => {
  it('a 410 Gone disables the subscription at once: no retry, later events not delivered', async () => {
    await mainWorker();
    const store = await app.createStore('Gone');
    const gone = await subscribe(store, ['order.created'], '/gone');
    const sentinel = await subscribe(store, ['order.created'], '/sentinel');
    routes.set(gone.id, () => 410);
    const product = await fixtures(app.em()).product({ supplierId, stock: [10] });

    const first = await placeOrder(store, product);
    const off = await waitUntil('the subscription to be disabled', async () => {
      const w = await getHook(store, gone.id);
      return !w.active && w;
    });
    expect(off).toMatchObject({ active: false, disabled_reason: 'gone' });

    // A later event reaches the store's other subscription, and not this one.
    const second = await placeOrder(store, product);
    const atSentinel = await received(sentinel.id, 'order.created', 2);
    expect(atSentinel.map((g) => g.body.event_key)).toEqual([
      `order.created:${first}`,
      `order.created:${second}`,
    ]);
    expect(mine(gone.id).map((g) => `${g.key}:${g.attempt}`)).toEqual([`order.created:${first}:1`]);
    const entries = await log(store, gone.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      attempt: 1,
      outcome: 'gone',
      response_status: 410,
      next_attempt_at: null,
    });
    const ds = await deliveries(gone.id);
    expect(ds).toHaveLength(1);
    expect(ds[0]?.status).not.toBe('pending');
    expect(ds[0]?.attempts).toBe(1);
  });

  it('a receiver that hangs on one subscription does not stall another; the hang fails after the deadline and is retried', async () => {
    await mainWorker();
    const storeA = await app.createStore('Hanging');
    const storeB = await app.createStore('Prompt');
    const a = await subscribe(storeA, ['order.created'], '/hang');
    const b = await subscribe(storeB, ['order.created'], '/prompt');
    routes.set(a.id, (attempt) => (attempt === 1 ? 'hang' : 200));
    const product = await fixtures(app.em()).product({ supplierId, stock: [10] });
    // As many hanging attempts as one subscription may hold in flight (a sixth would wait for a slot).
    const HANGS = 5;

    // Events for A at an ordinary pace (one when the last has arrived, and a moment), each hanging.
    for (let n = 1; n <= HANGS; n++) {
      await ping(storeA, a.id);
      await waitUntil(`hanging request ${n} at A`, () => mine(a.id).length >= n);
      await new Promise((r) => setTimeout(r, 150));
    }
    // Two of B's events, through the dispatcher like any store change.
    const placed = Date.now();
    const orders = [await placeOrder(storeB, product), await placeOrder(storeB, product)];
    const atB = await received(b.id, 'order.created', 2);

    // Every attempt of A hangs once, fails at the deadline, and is retried.
    await waitUntil('A to get every event through', async () => {
      const ds = await deliveries(a.id);
      return ds.length === HANGS && ds.every((d) => d.status === 'succeeded');
    });
    const entries = await log(storeA, a.id);
    const failed = entries.filter((e) => e.attempt === 1);
    // B's were sent and answered while A's were still hanging: before the first of A's ended.
    const firstEnd = Math.min(...failed.map((e) => Date.parse(e.created_at)));
    const lastB = Math.max(...atB.map((g) => g.raw.at));
    const late = `B's last arrived ${lastB - placed} ms after its orders, ${lastB - firstEnd} ms after A's first hang ended`;
    expect(lastB, late).toBeLessThan(firstEnd);
    expect(atB.map((g) => g.body.event_key).sort()).toEqual(orders.map((id) => `order.created:${id}`).sort());

    expect(failed).toHaveLength(HANGS);
    for (const e of failed) {
      expect(e).toMatchObject({
        outcome: 'failed',
        response_status: null,
        error: `no answer within ${TIMEOUT_MS} ms`,
      });
      expect(e.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(e.next_attempt_at).not.toBeNull();
    }
    expect(entries.filter((e) => e.attempt === 2).map((e) => e.outcome)).toEqual(
      Array(HANGS).fill('succeeded'),
    );
    expect(mine(a.id).filter((g) => g.attempt === 2)).toHaveLength(HANGS);
    expect((await log(storeB, b.id)).map((e) => [e.attempt, e.outcome])).toEqual([
      [1, 'succeeded'],
      [1, 'succeeded'],
    ]);
  }, 60_000);

  it('a hanging subscription holds at most five attempts in flight', async () => {
    await mainWorker();
    const store = await app.createStore('Capped');
    const hook = await subscribe(store, ['order.created'], '/capped');
    routes.set(hook.id, (attempt) => (attempt === 1 ? 'hang' : 200));
    await ping(store, hook.id);
    await ping(store, hook.id);
    await waitUntil('two hanging requests', () => mine(hook.id).length >= 2);
    // Six more events at once, while two attempts hang.
    await app.em().transactional((tx) =>
      createWebhookEvents(
        tx,
        Array.from({ length: 6 }, (_, i) => ({
          storeId: store.id,
          event: 'webhook.ping',
          eventKey: `webhook.ping:${hook.id}.batch${i}`,
          createdAt: new Date().toISOString(),
          data: { webhook_id: hook.id },
          subscriptionId: hook.id,
        })),
      ),
    );
    await waitUntil('all eight delivered', async () => {
      const ds = await deliveries(hook.id);
      return ds.length === 8 && ds.every((d) => d.status === 'succeeded');
    });
    // Every first attempt hangs for the whole deadline: whatever arrived before the first one could
    // have ended was in flight at once. (The log's time is its write's, which may come later.)
    const firsts = mine(hook.id).filter((g) => g.attempt === 1);
    const firstEnd = Math.min(...firsts.map((g) => g.raw.at)) + TIMEOUT_MS - 500;
    const concurrent = firsts.filter((g) => g.raw.at < firstEnd);
    expect(concurrent.length).toBe(5);
  });

  it('a backlog larger than a subscription may hold arrives in full and once per attempt, while a hang holds its slots', async () => {
    await mainWorker();
    const store = await app.createStore('Backlog');
    const slow = await subscribe(store, ['order.created'], '/backlog-slow');
    const fast = await subscribe(store, ['order.created'], '/backlog-fast');
    // The first five requests to `slow` hang until the deadline: its slots stay full meanwhile.
    let hung = 0;
    routes.set(slow.id, (attempt) => (attempt === 1 && hung++ < 5 ? 'hang' : 200));
    const EVENTS = 60;
    await app.em().transactional((tx) =>
      createWebhookEvents(
        tx,
        [slow.id, fast.id].flatMap((sub) =>
          Array.from({ length: EVENTS }, (_, i) => ({
            storeId: store.id,
            event: 'webhook.ping',
            eventKey: `webhook.ping:${sub}.backlog${i}`,
            createdAt: new Date().toISOString(),
            data: { webhook_id: sub },
            subscriptionId: sub,
          })),
        ),
      ),
    );
    // The other subscription is not held up by the hang.
    await waitUntil(
      'the fast backlog delivered',
      async () => {
        const ds = await deliveries(fast.id);
        return ds.length === EVENTS && ds.every((d) => d.status === 'succeeded');
      },
      TIMEOUT_MS - 500,
    );
    await waitUntil('the slow backlog delivered', async () => {
      const ds = await deliveries(slow.id);
      return ds.length === EVENTS && ds.every((d) => d.status === 'succeeded');
    });
    for (const sub of [slow.id, fast.id]) {
      const sent = mine(sub).map((g) => `${g.key}#${g.attempt}`);
      expect(new Set(sent).size, 'no attempt sent twice').toBe(sent.length);
      expect(new Set(mine(sub).map((g) => g.key)).size).toBe(EVENTS);
    }
    expect(mine(fast.id)).toHaveLength(EVENTS);
    expect(mine(slow.id)).toHaveLength(EVENTS + 5);
    // A subscription's events go out in their order, give or take what it holds at once (20): none
    // of its newer events overtakes an older one that was left behind.
    const firsts = mine(slow.id)
      .filter((g) => g.attempt === 1)
      .map((g) => Number(g.key.split('.backlog')[1]));
    firsts.forEach((n, i) => {
      expect(Math.max(...firsts.slice(0, i + 1)) - n).toBeLessThanOrEqual(20);
    });
  });

  it('a 3xx is not followed and counts as a failure; a connection reset and a 503 are retried too', async () => {
    await mainWorker();
    const store = await app.createStore('Redirected');
    const hook = await subscribe(store, ['order.created'], '/redirect-source');
    // Another path on the same receiver, under a host name only a followed redirect would use.
    const target = receiver.url.replace('127.0.0.1', 'localhost');
    const behaviours: Behaviour[] = [{ redirect: `${target}/redirect-target` }, 'reset', 503];
    routes.set(hook.id, (attempt) => behaviours[attempt - 1] ?? 200);
    const sent = await ping(store, hook.id);
    await deliveryIs(hook.id, 'succeeded', sent.id);

    const got = mine(hook.id);
    expect(got.map((g) => g.attempt)).toEqual([1, 2, 3, 4]);
    expect(new Set(got.map((g) => g.key))).toEqual(new Set([sent.event_key]));
    expect(receiver.received.filter((r) => String(r.headers.host).startsWith('localhost'))).toEqual([]);
    const entries = await log(store, hook.id);
    expect(entries.map((e) => [e.attempt, e.outcome, e.response_status])).toEqual([
      [1, 'failed', 302],
      [2, 'failed', null],
      [3, 'failed', 503],
      [4, 'succeeded', 200],
    ]);
    expect(entries[1]?.error).toEqual(expect.any(String));
    expect(entries.slice(0, 3).every((e) => e.next_attempt_at !== null)).toBe(true);
  });

  it('an answer counts once its status is in: a 2xx whose body is over 64 KiB or cut off succeeds; a 503 cut off is retried', async () => {
    await mainWorker();
    const store = await app.createStore('Long answers');
    const huge = await subscribe(store, ['order.created'], '/huge');
    const cut = await subscribe(store, ['order.created'], '/cut');
    routes.set(huge.id, () => ({ status: 200, body: 'huge' }));
    const behaviours: Behaviour[] = [
      { status: 503, body: 'cut' },
      { status: 202, body: 'cut' },
    ];
    routes.set(cut.id, (attempt) => behaviours[attempt - 1] ?? 200);
    await ping(store, huge.id);
    await ping(store, cut.id);
    await deliveryIs(huge.id, 'succeeded');
    await deliveryIs(cut.id, 'succeeded');
    expect((await log(store, huge.id)).map((e) => [e.attempt, e.outcome, e.response_status])).toEqual([
      [1, 'succeeded', 200],
    ]);
    expect((await log(store, cut.id)).map((e) => [e.attempt, e.outcome, e.response_status])).toEqual([
      [1, 'failed', 503],
      [2, 'succeeded', 202],
    ]);
  });

  it('the twentieth dead letter in a row disables the subscription and mails the owner; re-enabling clears the streak', async () => {
    await mainWorker();
    const store = await app.createStore('Streak');
    await rows(app.em(), sql`UPDATE stores SET owner_email = 'owner@streak.test' WHERE id = ${store.id}`);
    const hook = await subscribe(store, ['order.created'], '/streak');
    let answer = 500;
    routes.set(hook.id, () => answer);
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET dead_letter_streak = 19 WHERE id = ${hook.id}`);
    expect(await getHook(store, hook.id)).toMatchObject({ active: true, failure_streak: 19 });
    const product = await fixtures(app.em()).product({ supplierId, stock: [10] });

    const first = await placeOrder(store, product);
    const off = await waitUntil('auto-disable', async () => {
      const w = await getHook(store, hook.id);
      return !w.active && w;
    });
    expect(off).toMatchObject({ active: false, disabled_reason: 'dead_letters', failure_streak: 20 });
    expect(mine(hook.id).map((g) => g.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    const [dead] = await deliveries(hook.id);
    expect(dead).toMatchObject({ status: 'dead', attempts: ATTEMPTS, event_key: `order.created:${first}` });
    const mail = await rows<{ kind: string; to_address: string }>(
      app.em(),
      sql`SELECT kind, to_address FROM mail_outbox WHERE store_id = ${store.id} ORDER BY id`,
    );
    expect(mail).toEqual([{ kind: 'webhook_disabled', to_address: 'owner@streak.test' }]);

    answer = 200;
    const on = await call<UpdateWebhookResponse>('PUT', `${HOOKS}/${hook.id}`, store.readWrite, {
      active: true,
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.webhook).toMatchObject({ active: true, disabled_reason: null, failure_streak: 0 });
    expect(await getHook(store, hook.id)).toMatchObject({ active: true, failure_streak: 0 });

    const second = await placeOrder(store, product);
    const [next] = await waitUntil('the next event', () => {
      const got = mine(hook.id).filter((g) => g.key === `order.created:${second}`);
      return got.length > 0 && got;
    });
    expect(next?.attempt).toBe(1);
    const ds = await deliveries(hook.id);
    await deliveryIs(hook.id, 'succeeded', ds.at(-1)?.id);
  });

  it('a subscription switched off while its last attempt is out: the attempt is logged, the delivery stays discarded, no dead-letter mail', async () => {
    await mainWorker();
    const store = await app.createStore('Switched off');
    const hook = await subscribe(store, ['order.created'], '/switched-off');
    // Every try fails; the last one hangs until the deadline.
    routes.set(hook.id, (attempt) => (attempt === ATTEMPTS ? 'hang' : 503));
    await ping(store, hook.id);
    await received(hook.id, 'webhook.ping', ATTEMPTS);
    const off = await call('PUT', `${HOOKS}/${hook.id}`, store.readWrite, { active: false });
    expect(off.status).toBe(200);
    await waitUntil('the last attempt logged', async () => (await log(store, hook.id)).length === ATTEMPTS);
    const entries = await log(store, hook.id);
    expect(entries.at(-1)).toMatchObject({ attempt: ATTEMPTS, outcome: 'failed', response_status: null });
    expect((await deliveries(hook.id)).map((d) => [d.status, d.attempts])).toEqual([['discarded', ATTEMPTS]]);
    const mail = await rows<{ kind: string }>(
      app.em(),
      sql`SELECT kind FROM mail_outbox WHERE store_id = ${store.id}`,
    );
    expect(mail).toEqual([]);
    expect(await getHook(store, hook.id)).toMatchObject({
      active: false,
      disabled_reason: 'manual',
      failure_streak: 0,
    });
  });

  it('a dead-lettered event can be resent: 202, then the same body with the next attempt number', async () => {
    await mainWorker();
    const store = await app.createStore('Resend');
    const hook = await subscribe(store, ['order.created'], '/resend');
    let answer = 500;
    routes.set(hook.id, () => answer);
    const sent = await ping(store, hook.id);
    await deliveryIs(hook.id, 'dead', sent.id);
    expect(await getHook(store, hook.id)).toMatchObject({ active: true, failure_streak: 1 });
    const entries = await log(store, hook.id);
    expect(entries.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    const deliveryId = entries.at(-1)?.delivery_id;
    expect(deliveryId).toBe(sent.id);

    answer = 200;
    const res = await call<ResendWebhookDeliveryResponse>(
      'POST',
      `${HOOKS}/${hook.id}/deliveries/${deliveryId}/resend`,
      store.readWrite,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.delivery).toMatchObject({ id: deliveryId, status: 'pending', event_key: sent.event_key });

    const got = await waitUntil('the resent event', () => mine(hook.id).length >= 7 && mine(hook.id));
    const [original, again] = [got[0], got[6]];
    expect(again?.raw.headers['x-stockless-delivery-id']).toBe(`${hook.id}:${sent.event_key}:7`);
    expect(again?.raw.body).toBe(original?.raw.body);
    await deliveryIs(hook.id, 'succeeded', sent.id);
    const after = await log(store, hook.id);
    expect(after).toHaveLength(7);
    expect(after.at(-1)).toMatchObject({ attempt: 7, outcome: 'succeeded', response_status: 200 });
    // A success ends the run of dead letters.
    expect(await getHook(store, hook.id)).toMatchObject({ failure_streak: 0 });
  });

  it('after rotate-secret the next delivery verifies with the new secret, not the old one', async () => {
    await mainWorker();
    const store = await app.createStore('Rotate');
    const hook = await subscribe(store, ['order.created'], '/rotate');
    const rotated = await call<RotateWebhookSecretResponse>(
      'POST',
      `${HOOKS}/${hook.id}/rotate-secret`,
      store.readWrite,
    );
    expect(rotated.status).toBe(200);
    const secret = rotated.body.secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);

    await ping(store, hook.id);
    const [got] = await received(hook.id, 'webhook.ping');
    if (!got) throw new Error('nothing received');
    const signature = String(got.raw.headers['x-stockless-signature']);
    expect(stripe.webhooks.constructEvent(got.raw.body, signature, secret)).toMatchObject({
      event: 'webhook.ping',
    });
    expect(() => stripe.webhooks.constructEvent(got.raw.body, signature, hook.secret)).toThrow();
    const headers = {
      'webhook-id': String(got.raw.headers['webhook-id']),
      'webhook-timestamp': String(got.raw.headers['webhook-timestamp']),
      'webhook-signature': String(got.raw.headers['webhook-signature']),
    };
    expect(new StandardWebhook(secret).verify(got.raw.body, headers)).toMatchObject({
      event: 'webhook.ping',
    });
    expect(() => new StandardWebhook(hook.secret).verify(got.raw.body, headers)).toThrow();
  });

  it('coalesces product changes within the window into one ids-only delivery; inventory.updated names the variant only when one changed', async () => {
    await mainWorker();
    const store = await app.createStore('Coalesce');
    const hook = await subscribe(store, ['product.created', 'product.updated', 'inventory.updated'], '/co');
    const product = await fixtures(app.em()).product({ supplierId, stock: [5, 5] });
    const variants = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM product_variants WHERE product_id = ${product} ORDER BY position, id`,
    );
    const [v1, v2] = variants.map((v) => v.id) as [number, number];

    const added = await call('POST', '/api/v1/my-products', store.readWrite, { product_id: product });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const [created] = await received(hook.id, 'product.created');
    expect(created?.body.data).toEqual({ product_id: product });
    expect(created?.body.event_key).toMatch(new RegExp(`^product\\.created:${product}\\.\\d+$`));

    const changes = [
      await call('PUT', `/api/v1/my-products/${product}/pricing`, store.readWrite, {
        custom_retail_price_cents: 2500,
      }),
      await call('PUT', `/api/v1/my-products/${product}/pricing`, store.readWrite, {
        custom_retail_price_cents: 2600,
      }),
      await call('PATCH', `/api/v1/my-products/${product}/enquiry-mode`, store.readWrite, {
        purchase_mode: 'enquiry',
      }),
    ];
    expect(changes.map((c) => c.status)).toEqual([200, 200, 200]);
    const [updated] = await received(hook.id, 'product.updated');
    expect(updated?.body.data).toEqual({ product_id: product });
    expect(updated?.body.event_key).toMatch(new RegExp(`^product\\.updated:${product}\\.\\d+$`));
    expect(updated?.raw.headers['x-stockless-event']).toBe('product.updated');

    // Stock of one variant (the fan-out runs as the inventory_fanout job in the worker).
    await internal().inventory.setStock({ productId: product, variantId: v1, quantity: 7 });
    const [one] = await received(hook.id, 'inventory.updated');
    expect(one?.body.data).toEqual({ product_id: product, variant_id: v1 });
    expect(one?.body.event_key).toMatch(new RegExp(`^inventory\\.updated:${product}\\.\\d+$`));

    // Two variants within one window: the product only.
    await internal().inventory.setStock({ productId: product, variantId: v1, quantity: 8 });
    await internal().inventory.setStock({ productId: product, variantId: v2, quantity: 9 });
    const inventory = await received(hook.id, 'inventory.updated', 2);
    // Both changes reached the outbox: the second variant's too (not lost on the way to it).
    const outbox = await rows<{ data: { variant_id?: number } }>(
      app.em(),
      sql`SELECT data FROM domain_events WHERE store_id = ${store.id} AND event = 'inventory.updated' ORDER BY id`,
    );
    expect(
      outbox.slice(1).some((e) => e.data.variant_id === undefined || e.data.variant_id === v2),
      `the change to variant ${v2} made no inventory.updated event: ${JSON.stringify(outbox)}`,
    ).toBe(true);
    expect(inventory[1]?.body.data).toEqual({ product_id: product });

    // By now any second product.updated of the first window would long have been sent.
    expect(mineOf(hook.id, 'product.updated')).toHaveLength(1);
    expect(mineOf(hook.id, 'product.created')).toHaveLength(1);
    expect(mineOf(hook.id, 'inventory.updated')).toHaveLength(2);
    const events = (await deliveries(hook.id)).map((d) => d.event);
    expect(events).toEqual(['product.created', 'product.updated', 'inventory.updated', 'inventory.updated']);
  });

  it('order events carry data.order and <event>:<order id>; site.published/unpublished fire on real changes only', async () => {
    await mainWorker();
    const store = await app.createStore('Orders');
    const hook = await subscribe(
      store,
      [
        'order.created',
        'order.updated',
        'order.fulfilled',
        'order.shipped',
        'invoice.issued',
        'site.published',
        'site.unpublished',
      ],
      '/orders',
    );
    const product = await fixtures(app.em()).product({ supplierId, stock: [10] });
    const id = await placeOrder(store, product);

    const expectOrderEvent = async <
      E extends 'order.created' | 'order.updated' | 'order.fulfilled' | 'order.shipped' | 'invoice.issued',
    >(
      event: E,
      status: string,
    ) => {
      const [got] = await received(hook.id, event);
      expect(got?.body).toMatchObject({ event, event_key: `${event}:${id}` });
      expect(got?.raw.headers['x-stockless-event']).toBe(event);
      expect(got?.raw.headers['x-stockless-delivery-id']).toBe(`${hook.id}:${event}:${id}:1`);
      expect(got?.body.data.order).toMatchObject({ id, status });
      expect(Number.isNaN(Date.parse(String(got?.body.created_at)))).toBe(false);
      return got as Got<WebhookPayloads[E]>;
    };
    await expectOrderEvent('order.created', 'pending');
    await internal().orders.advance({ orderId: id, status: 'processing' });
    await expectOrderEvent('order.updated', 'processing');
    await internal().orders.advance({ orderId: id, status: 'fulfilled' });
    await expectOrderEvent('order.fulfilled', 'fulfilled');
    await internal().orders.advance({ orderId: id, status: 'shipped', tracking: 'TRK-ENGINE-1' });
    const shipped = await expectOrderEvent('order.shipped', 'shipped');
    expect(shipped.body.data.order?.tracking_number).toBe('TRK-ENGINE-1');
    const invoice = await expectOrderEvent('invoice.issued', 'shipped');
    expect(invoice.body.data.order?.invoice_number).toEqual(expect.any(String));

    const published = await internal().store.setPublished({ storeId: store.id, published: true });
    expect(published).toMatchObject({ published: true, changed: true });
    const [site] = await received(hook.id, 'site.published');
    expect(site?.body).toMatchObject({
      event: 'site.published',
      event_key: `site.published:${store.id}`,
      data: { store_id: store.id, published: true },
    });
    expect(await internal().store.setPublished({ storeId: store.id, published: true })).toMatchObject({
      changed: false,
    });
    await internal().store.setPublished({ storeId: store.id, published: false });
    const [down] = await received(hook.id, 'site.unpublished');
    expect(down?.body).toMatchObject({
      event_key: `site.unpublished:${store.id}`,
      data: { store_id: store.id, published: false },
    });
    expect(mineOf(hook.id, 'site.published')).toHaveLength(1);
    expect((await deliveries(hook.id)).map((d) => d.event)).toEqual([
      'order.created',
      'order.updated',
      'order.fulfilled',
      'order.shipped',
      'invoice.issued',
      'site.published',
      'site.unpublished',
    ]);
  });

  it('a ["*"] subscription gets webhook.ping and everything; an order.created subscription gets no product events', async () => {
    await mainWorker();
    const store = await app.createStore('Filters');
    const all = await subscribe(store, ['*'], '/all');
    const orders = await subscribe(store, ['order.created'], '/orders-only');

    const sent = await ping(store, all.id);
    const [pinged] = await received(all.id, 'webhook.ping');
    expect(pinged?.body).toMatchObject({
      event: 'webhook.ping',
      event_key: sent.event_key,
      data: { webhook_id: all.id },
    });
    expect(pinged?.raw.headers['x-stockless-event']).toBe('webhook.ping');

    const product = await fixtures(app.em()).product({ supplierId, stock: [10] });
    expect((await call('POST', '/api/v1/my-products', store.readWrite, { product_id: product })).status).toBe(
      201,
    );
    const repriced = await call('PUT', `/api/v1/my-products/${product}/pricing`, store.readWrite, {
      custom_retail_price_cents: 2700,
    });
    expect(repriced.status).toBe(200);
    const id = await placeOrder(store, product);

    await received(all.id, 'product.created');
    await received(all.id, 'product.updated');
    await received(all.id, 'order.created');
    const [order] = await received(orders.id, 'order.created');
    expect(order?.body.event_key).toBe(`order.created:${id}`);
    expect(mine(orders.id).map((g) => g.body.event)).toEqual(['order.created']);
    expect((await deliveries(orders.id)).map((d) => d.event)).toEqual(['order.created']);
  });

  it('a worker killed mid-delivery: another worker delivers the event at once', async () => {
    const first = await mainWorker();
    const store = await app.createStore('Crash');
    const hook = await subscribe(store, ['order.created'], '/crash');
    let hang = true;
    routes.set(hook.id, () => (hang ? 'hang' : 200));
    const sent = await ping(store, hook.id);
    await waitUntil('the hanging attempt', () => mine(hook.id).length >= 1);
    worker = undefined;
    await first.kill();

    // Nothing was recorded: the delivery is still pending. The dead worker's hold on the subscription
    // ends within twice the deadline and 4 s; then a new worker takes it.
    expect(await log(store, hook.id)).toEqual([]);
    const [held] = await deliveries(hook.id);
    expect(held).toMatchObject({ status: 'pending', attempts: 0 });

    hang = false;
    const restarted = Date.now();
    worker = await startWorker();
    const done = await deliveryIs(hook.id, 'succeeded', sent.id, 60_000);
    expect(done.attempts).toBe(1);
    // Well within a delivery deadline of the restart (worker start-up included).
    expect(Date.now() - restarted).toBeLessThan(15_000);
    const got = mine(hook.id);
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(new Set(got.map((g) => g.key))).toEqual(new Set([sent.event_key]));
    expect(got.at(-1)?.raw.body).toBe(got[0]?.raw.body);
    expect((await log(store, hook.id)).map((e) => e.outcome)).toEqual(['succeeded']);
  }, 120_000);

  it('the URL is checked again at delivery: a worker that no longer allows the address refuses, nothing is sent', async () => {
    // Only the restricted worker may run now.
    const previous = worker;
    worker = undefined;
    await previous?.stop();
    await startWorker({ WEBHOOK_ALLOW_PRIVATE: '192.0.2.0/32' });
    const store = await app.createStore('Refused');
    const hook = await subscribe(store, ['order.created'], '/refused');
    const sent = await ping(store, hook.id);
    await deliveryIs(hook.id, 'dead', sent.id);

    const entries = await log(store, hook.id);
    expect(entries.map((e) => [e.attempt, e.outcome, e.response_status])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => [n, 'refused', null]),
    );
    for (const e of entries) expect(e.error).toMatch(/private or reserved/);
    expect(mine(hook.id)).toEqual([]);
  }, 60_000);
});
