import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import type { PartnerContext } from '../../src/trpc/context.ts';
import { recordAttempts } from '../../src/webhooks/delivery/record-attempts.ts';
import { type Claimed, deliveryRound } from '../../src/webhooks/delivery/round.ts';
import { resendDelivery } from '../../src/webhooks/resend-delivery.ts';
import { startTestApp, TEST_WEBHOOKS, type TestApp, testContext } from '../helpers/app.ts';

/**
 * Holds and their bookkeeping (`next_due_at`) under the races a review found: a delivery committed
 * while a round runs is never stranded, one subscription is held by one run at a time, and a run
 * whose hold ran out and was taken over only logs what it had out.
 */

let app: TestApp;
let storeId: number;

beforeAll(async () => {
  app = await startTestApp();
  const store = await app.createStore('Claims');
  storeId = store.id;
  const created = await app.request('/api/v1/vendor/webhooks', {
    key: store.readWrite,
    method: 'POST',
    body: { url: 'https://127.0.0.1:9/seed', events: ['webhook.ping'] },
  });
  expect(created.status).toBe(201);
});
afterAll(() => app.close());

const TOKEN_A = '00000000-0000-4000-8000-00000000000a';
const TOKEN_B = '00000000-0000-4000-8000-00000000000b';

/** A round that only looks for subscriptions to take (the first of a run). */
const take = (token: string, have: number[] = []) =>
  deliveryRound(app.em(), {
    token,
    holdMs: 60_000,
    refill: [],
    renew: [],
    release: [],
    taken: [],
    have,
    take: 200,
    perTaken: 50,
    askWaiting: false,
  });

/** The store's owner resending by hand, as the resend procedure would for their API key. */
const owner = (): PartnerContext => ({
  ...testContext(app),
  actor: {
    storeId,
    kind: 'api_key',
    scope: 'read_write',
    appScopes: new Set(),
    credentialId: 0,
    canReadCustomers: true,
    livemode: true,
  },
});

async function subscription(): Promise<number> {
  const [row] = await rows<{ id: number }>(
    app.em(),
    sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
      SELECT ${storeId}, 'https://127.0.0.1:9/x', ARRAY['webhook.ping'], secret_encrypted
      FROM webhook_subscriptions WHERE store_id = ${storeId} LIMIT 1 RETURNING id`,
  );
  return row?.id as number;
}

const insertDelivery = (subscriptionId: number, key = 'first') => sql<{ id: string }>`WITH e AS (
    INSERT INTO webhook_events (store_id, event, event_key, body)
    VALUES (${storeId}, 'webhook.ping', 'webhook.ping:' || ${subscriptionId} || ${key}, '{}') RETURNING id
  )
  INSERT INTO webhook_deliveries (subscription_id, event_id) SELECT ${subscriptionId}, id FROM e RETURNING id::text`;

/**
 * A fan-out that has inserted a delivery (its trigger holding the subscription's lock) and waits to
 * commit until `commit()`; `fanOut` settles once it has.
 */
async function uncommittedDelivery(sub: number, key?: string) {
  let commit: () => void = () => {};
  const held = new Promise<void>((r) => {
    commit = r;
  });
  let inserted: () => void = () => {};
  const written = new Promise<void>((r) => {
    inserted = r;
  });
  const fanOut = app.em().transactional(async (tx) => {
    await rows(tx, insertDelivery(sub, key));
    inserted();
    await held;
  });
  await written;
  return { commit, fanOut };
}

describe('holds and next_due_at', () => {
  it('a delivery committed while a round looks at its subscription is taken afterwards, not stranded', async () => {
    const sub = await subscription();
    // Due now with nothing pending: what a release leaves behind when work arrived meanwhile.
    await rows(
      app.em(),
      sql`UPDATE webhook_subscriptions SET next_due_at = now() - interval '1 second' WHERE id = ${sub}`,
    );
    const { commit, fanOut } = await uncommittedDelivery(sub);
    // The round cannot see the uncommitted delivery, and skips the subscription the fan-out has locked.
    const during = await take(TOKEN_A);
    expect(during.taken).not.toContain(sub);
    commit();
    await fanOut;
    const after = await take(TOKEN_A);
    expect(after.taken).toContain(sub);
    expect(after.deliveries.filter((d) => d.subscription_id === sub)).toHaveLength(1);
    await release(TOKEN_A, sub);
  });

  it('a release waits for a delivery being committed and leaves the subscription due for it', async () => {
    const sub = await subscription();
    const first = await take(TOKEN_A);
    expect(first.taken).not.toContain(sub);
    await rows(app.em(), insertDelivery(sub));
    const got = await take(TOKEN_A);
    expect(got.taken).toContain(sub);
    const [d] = got.deliveries.filter((x) => x.subscription_id === sub);
    await recordAttempts(app.em(), TEST_WEBHOOKS, [ok(d as Claimed)], TOKEN_A);
    // A second event is being fanned out as the run lets the subscription go.
    const { commit, fanOut } = await uncommittedDelivery(sub, 'second');
    const releasing = release(TOKEN_A, sub);
    await new Promise((r) => setTimeout(r, 100));
    commit();
    await fanOut;
    await releasing;
    const again = await take(TOKEN_B);
    expect(again.deliveries.filter((x) => x.subscription_id === sub)).toHaveLength(1);
    await release(TOKEN_B, sub);
  });

  it('one run holds a subscription at a time; a hold that ran out may be taken, and its old holder only logs', async () => {
    const sub = await subscription();
    const [d] = await rows(app.em(), insertDelivery(sub));
    const a = await take(TOKEN_A);
    expect(a.taken).toContain(sub);
    const claimed = a.deliveries.find((x) => x.subscription_id === sub) as Claimed;
    expect(claimed.id).toBe(d?.id);
    // Another run finds nothing to take while the hold lasts.
    expect((await take(TOKEN_B)).taken).not.toContain(sub);
    // Run A stalls past its hold (held, the subscription is due for others when the hold ends); run B
    // takes the subscription and reads the same delivery.
    await rows(
      app.em(),
      sql`UPDATE webhook_subscriptions SET held_until = now() - interval '1 second', next_due_at = now() - interval '1 second'
        WHERE id = ${sub}`,
    );
    const b = await take(TOKEN_B);
    expect(b.deliveries.filter((x) => x.subscription_id === sub).map((x) => x.id)).toEqual([d?.id]);
    // A's late write is logged but does not move the delivery: it is B's now.
    await recordAttempts(app.em(), TEST_WEBHOOKS, [ok(claimed)], TOKEN_A);
    const state = async () =>
      (
        await rows<{ status: string; attempts: number }>(
          app.em(),
          sql`SELECT status, attempts FROM webhook_deliveries WHERE id = ${d?.id}::bigint`,
        )
      )[0];
    expect(await state()).toEqual({ status: 'pending', attempts: 0 });
    // A's next round learns it lost the subscription.
    const lost = await deliveryRound(app.em(), {
      token: TOKEN_A,
      holdMs: 60_000,
      refill: [{ id: sub, n: 10 }],
      renew: [],
      release: [],
      taken: [],
      have: [sub],
      take: 0,
      perTaken: 0,
      askWaiting: false,
    });
    expect(lost.kept).toEqual([]);
    expect(lost.deliveries).toEqual([]);
    await recordAttempts(app.em(), TEST_WEBHOOKS, [ok(claimed)], TOKEN_B);
    expect(await state()).toEqual({ status: 'succeeded', attempts: 1 });
    await release(TOKEN_B, sub);
  });

  it("a resend while an attempt is out is not overwritten by that attempt's outcome", async () => {
    const sub = await subscription();
    const [d] = await rows(app.em(), insertDelivery(sub));
    const got = await take(TOKEN_A);
    const out = got.deliveries.find((x) => x.subscription_id === sub) as Claimed;
    expect(out.id).toBe(d?.id);
    // While the attempt is out: the subscription is switched off and on, and the owner resends.
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = false WHERE id = ${sub}`);
    await rows(app.em(), sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE id = ${d?.id}::bigint`);
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = true WHERE id = ${sub}`);
    await resendDelivery(owner(), { id: sub, deliveryId: Number(d?.id) });
    // The old attempt ends in a failure on its last try: logged, but the resend's round stands.
    await recordAttempts(
      app.em(),
      { ...TEST_WEBHOOKS, retrySchedule: [] },
      [{ delivery: out, outcome: 'failed', status: 500, error: null, durationMs: 1 }],
      TOKEN_A,
    );
    const [row] = await rows<{ status: string; attempts: number; round_attempts: number }>(
      app.em(),
      sql`SELECT status, attempts, round_attempts FROM webhook_deliveries WHERE id = ${d?.id}::bigint`,
    );
    expect(row).toEqual({ status: 'pending', attempts: 1, round_attempts: 0 });
    const [logged] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM webhook_attempts WHERE delivery_id = ${d?.id}::bigint`,
    );
    expect(logged?.n).toBe(1);
    await release(TOKEN_A, sub);
  });

  it('a retry is timed by the code alone: the subscription stays due at its hold’s end until its release', async () => {
    const sub = await subscription();
    await rows(app.em(), insertDelivery(sub));
    const out = (await take(TOKEN_A)).deliveries.find((x) => x.subscription_id === sub) as Claimed;
    await recordAttempts(
      app.em(),
      { ...TEST_WEBHOOKS, retrySchedule: [30_000] },
      [{ delivery: out, outcome: 'failed', status: 500, error: null, durationMs: 1 }],
      TOKEN_A,
    );
    const due = () =>
      rows<{ at_hold_end: boolean | null; at_retry: boolean }>(
        app.em(),
        sql`SELECT s.next_due_at = s.held_until AS at_hold_end, s.next_due_at = d.next_attempt_at AS at_retry
          FROM webhook_subscriptions s JOIN webhook_deliveries d ON d.subscription_id = s.id WHERE s.id = ${sub}`,
      );
    // The retry (30 s) is sooner than the hold's end (60 s): the trigger leaves it to the release.
    expect(await due()).toEqual([{ at_hold_end: true, at_retry: false }]);
    await release(TOKEN_A, sub);
    expect(await due()).toEqual([{ at_hold_end: null, at_retry: true }]);
  });

  it('a resend of a delivery whose holder died is read by the next holder', async () => {
    const sub = await subscription();
    const [d] = await rows(app.em(), insertDelivery(sub));
    expect((await take(TOKEN_A)).taken).toContain(sub);
    // The worker dies; the subscription is switched off and on; the owner resends the event.
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = false WHERE id = ${sub}`);
    await rows(app.em(), sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE id = ${d?.id}::bigint`);
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = true WHERE id = ${sub}`);
    await resendDelivery(owner(), { id: sub, deliveryId: Number(d?.id) });
    // Its hold ends (the worker is gone); then another run takes the subscription.
    await rows(
      app.em(),
      sql`UPDATE webhook_subscriptions SET held_until = now() - interval '1 second' WHERE id = ${sub}`,
    );
    const again = (await take(TOKEN_B)).deliveries.filter((c) => c.subscription_id === sub);
    expect(again.map((c) => c.id)).toEqual([d?.id]);
    await release(TOKEN_B, sub);
  });
});

const ok = (delivery: Claimed) => ({
  delivery,
  outcome: 'succeeded' as const,
  status: 200,
  error: null,
  durationMs: 1,
});

/** Lets a subscription go, as a run does once nothing of it is out or unwritten. */
function release(token: string, sub: number) {
  return deliveryRound(app.em(), {
    token,
    holdMs: 60_000,
    refill: [],
    renew: [],
    release: [{ id: sub, toBack: false }],
    taken: [],
    have: [sub],
    take: 0,
    perTaken: 0,
    askWaiting: false,
  });
}
