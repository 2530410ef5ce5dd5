import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../src/db/sql.ts';
import { claimDue } from '../src/webhooks/delivery-queries.ts';
import { recordAttempts } from '../src/webhooks/record-attempts.ts';
import { resendDelivery } from '../src/webhooks/service.ts';
import { startTestApp, TEST_WEBHOOKS, type TestApp } from './helpers/app.ts';

/**
 * The claim's bookkeeping (`next_due_at`) under the races a review found: a delivery committed while
 * a claim runs is never stranded, and a resend after a lost lease is claimable again.
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

const limits = (token: string) => ({
  deliveries: 50,
  subscriptions: 200,
  perSubscription: 5,
  leaseMs: 60_000,
  token,
});
const TOKEN_A = '00000000-0000-4000-8000-00000000000a';

async function subscription(): Promise<number> {
  const [row] = await rows<{ id: number }>(
    app.em(),
    sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
      SELECT ${storeId}, 'https://127.0.0.1:9/x', ARRAY['webhook.ping'], secret_encrypted
      FROM webhook_subscriptions WHERE store_id = ${storeId} LIMIT 1 RETURNING id`,
  );
  return row?.id as number;
}

const insertDelivery = (subscriptionId: number) => sql<{ id: string }>`WITH e AS (
    INSERT INTO webhook_events (store_id, event, event_key, body)
    VALUES (${storeId}, 'webhook.ping', 'webhook.ping:' || ${subscriptionId}, '{}') RETURNING id
  )
  INSERT INTO webhook_deliveries (subscription_id, event_id) SELECT ${subscriptionId}, id FROM e RETURNING id::text`;

describe('claims and next_due_at', () => {
  it('a delivery committed while a claim visits its subscription is claimed afterwards, not stranded', async () => {
    const sub = await subscription();
    // Due now with nothing pending: what a write of attempts leaves behind.
    await rows(
      app.em(),
      sql`UPDATE webhook_subscriptions SET next_due_at = now() - interval '1 second' WHERE id = ${sub}`,
    );
    let commit: () => void = () => {};
    const held = new Promise<void>((r) => {
      commit = r;
    });
    let inserted: () => void = () => {};
    const written = new Promise<void>((r) => {
      inserted = r;
    });
    const fanOut = app.em().transactional(async (tx) => {
      await rows(tx, insertDelivery(sub));
      inserted();
      await held;
    });
    await written;
    // The claim cannot see the uncommitted delivery; it must not put the subscription to sleep.
    const during = await claimDue(app.em(), limits(TOKEN_A));
    expect(during.filter((d) => d.subscription_id === sub)).toEqual([]);
    commit();
    await fanOut;
    const after = await claimDue(app.em(), limits(TOKEN_A));
    expect(after.filter((d) => d.subscription_id === sub)).toHaveLength(1);
  });

  it('a resend of a delivery whose lease was lost is claimable again', async () => {
    const sub = await subscription();
    const [d] = await rows(app.em(), insertDelivery(sub));
    const [claimed] = (await claimDue(app.em(), limits(TOKEN_A))).filter((c) => c.subscription_id === sub);
    expect(claimed?.id).toBe(d?.id);
    // The worker dies; the subscription is switched off and on; the owner resends the event.
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = false WHERE id = ${sub}`);
    await rows(app.em(), sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE id = ${d?.id}::bigint`);
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = true WHERE id = ${sub}`);
    await resendDelivery(app.em(), storeId, sub, Number(d?.id));
    const again = (await claimDue(app.em(), limits(TOKEN_A))).filter((c) => c.subscription_id === sub);
    expect(again.map((c) => c.id)).toEqual([d?.id]);
    // The old attempt's token no longer moves it: written by another holder, it is only logged.
    await recordAttempts(
      app.em(),
      TEST_WEBHOOKS,
      [
        {
          delivery: again[0] as (typeof again)[number],
          outcome: 'succeeded',
          status: 200,
          error: null,
          durationMs: 1,
        },
      ],
      '00000000-0000-4000-8000-00000000000b',
    );
    const [state] = await rows<{ status: string }>(
      app.em(),
      sql`SELECT status FROM webhook_deliveries WHERE id = ${d?.id}::bigint`,
    );
    expect(state?.status).toBe('pending');
  });
});
