import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { scheduleNextWake } from '../../src/webhooks/delivery/next-wake.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';

/**
 * The delivery worker's next wake-up is scheduled only for work that exists: an idle platform with no
 * subscription due must not run `deliver_webhooks` every second (it did, and filled the log).
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** The keyed wake-ups `scheduleNextWake` has queued, with when each runs. */
const wakes = () =>
  rows<{ key: string; in_seconds: number }>(
    app.em(),
    sql`SELECT key, extract(epoch FROM run_at - now())::float8 AS in_seconds
      FROM graphile_worker._private_jobs WHERE key LIKE 'deliver_webhooks:%'`,
  );

describe('scheduleNextWake', () => {
  it('queues nothing while no subscription has work due', async () => {
    await scheduleNextWake(app.em());
    expect(await wakes()).toEqual([]);
  });

  it('queues one wake-up for the soonest due subscription, and only one', async () => {
    const store = await app.createStore('Wake Store');
    const created = await send<{ webhook: { id: number } }>(app, 'POST', '/api/v1/vendor/webhooks', {
      key: store.readWrite,
      body: { url: 'https://127.0.0.1:9/hook', events: ['order.created'] },
    });
    expect(created.status).toBe(201);
    await rows(
      app.em(),
      sql`UPDATE webhook_subscriptions SET next_due_at = now() + interval '30 seconds' WHERE id = ${created.body.webhook.id}`,
    );
    await scheduleNextWake(app.em());
    await scheduleNextWake(app.em());
    const queued = await wakes();
    expect(queued).toHaveLength(1);
    expect(queued[0]?.in_seconds).toBeGreaterThan(25);
  });
});
