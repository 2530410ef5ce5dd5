import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { PER_SUBSCRIPTION_IN_FLIGHT } from '../../src/webhooks/limits.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  type Received,
  type Receiver,
  startReceiver,
  startWorkerProcess,
  type WorkerProcess,
} from '../helpers/webhooks.ts';

/**
 * Webhook delivery by subscription holds, with two worker processes on one database: every delivery is sent
 * once and never by both at once, each subscription keeps to its in-flight cap across both and gets
 * its deliveries in order within that share, and a hung receiver holds up no one else.
 */

let app: TestApp;
let receiver: Receiver;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  app = await startTestApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const w of workers) await w.stop();
  await receiver.close();
  await app.close();
});

async function subscription(storeId: number, path: string): Promise<number> {
  const [row] = await rows<{ id: number }>(
    app.em(),
    sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
      SELECT ${storeId}, ${`${receiver.url}${path}`}, ARRAY['webhook.ping'], secret_encrypted
      FROM webhook_subscriptions LIMIT 1
      RETURNING id`,
  );
  if (!row) throw new Error('no subscription to copy a secret from');
  return row.id;
}

/** `n` events queued to `subscriptionId` in one statement, numbered 1..n in their due order. */
async function queue(storeId: number, subscriptionId: number, n: number) {
  await rows(
    app.em(),
    sql`WITH e AS (
        INSERT INTO webhook_events (store_id, event, event_key, body)
        SELECT ${storeId}, 'webhook.ping', 'webhook.ping:' || ${subscriptionId} || '.' || g,
          json_build_object('event', 'webhook.ping', 'seq', g)::text
        FROM generate_series(1, ${n}) g
        RETURNING id
      )
      INSERT INTO webhook_deliveries (subscription_id, event_id, next_attempt_at)
      SELECT ${subscriptionId}, id, now() - interval '1 minute' + id * interval '1 microsecond' FROM e ORDER BY id`,
  );
}

async function wake() {
  await rows(
    app.em(),
    sql`SELECT add_keyed_job('deliver_webhooks', '{}'::json, 'deliver_webhooks', 'replace')`,
  );
}

const subOf = (r: Received) => Number(String(r.headers['x-stockless-delivery-id']).split(':')[0]);
const seqOf = (r: Received) => (JSON.parse(r.body) as { seq: number }).seq;

describe('two worker processes', () => {
  it('send every delivery once, never one twice at once, within each subscription cap and in order', async () => {
    const store = await app.createStore('Workers');
    // A real subscription first, so the copies below have a secret the workers can decrypt.
    const created = await app.request('/api/v1/vendor/webhooks', {
      key: store.readWrite,
      method: 'POST',
      body: { url: `${receiver.url}/seed`, events: ['webhook.ping'] },
    });
    expect(created.status).toBe(201);
    const subs: number[] = [];
    for (let i = 0; i < 4; i++) subs.push(await subscription(store.id, `/w${i}`));
    receiver.behave(() => ({ delay: 100 }));
    const before = receiver.received.length;
    for (const w of [0, 1])
      workers[w] = await startWorkerProcess(app.databaseUrl, receiver.caFile, {
        // Room for two subscriptions at their cap each: four need both workers.
        WEBHOOK_CONCURRENCY: '10',
        WEBHOOK_TIMEOUT: '5s',
        // One job at a time: while one worker's run goes on, the next wake-up can only start the other's.
        WORKER_CONCURRENCY: '1',
      });
    const PER = 60;
    for (const sub of subs) await queue(store.id, sub, PER);

    // Both workers hold subscriptions at the same moment at least once: the work is shared, not handed over.
    const tokensSeen = new Set<string>();
    let both = false;
    const deadline = Date.now() + 30_000;
    while (receiver.received.length - before < subs.length * PER && Date.now() < deadline) {
      await wake();
      const held = await rows<{ token: string }>(
        app.em(),
        sql`SELECT DISTINCT held_by::text AS token FROM webhook_subscriptions
          WHERE id = ANY (${subs}::integer[]) AND held_until > now()`,
      );
      for (const h of held) tokensSeen.add(h.token);
      if (held.length >= 2) both = true;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 500));
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(subs.length * PER);
    const ids = got.map((r) => String(r.headers['x-stockless-delivery-id']));
    expect(new Set(ids).size).toBe(ids.length);
    expect(both, `hold tokens seen: ${[...tokensSeen].length}`).toBe(true);

    for (const sub of subs) {
      const mine = got.filter((r) => subOf(r) === sub);
      expect(mine.map(seqOf).sort((a, b) => a - b)).toEqual(Array.from({ length: PER }, (_, i) => i + 1));
      mine.forEach((r, i) => {
        // Open at once: those that arrived less than a receiver's latency before it.
        const open = mine.filter((o) => o.at <= r.at && o.at > r.at - 90).length;
        expect(open, `subscription ${sub} at arrival ${i}`).toBeLessThanOrEqual(PER_SUBSCRIPTION_IN_FLIGHT);
        // In order within its share: the i-th to arrive is among the next `cap` in line.
        expect(seqOf(r), `subscription ${sub} arrival ${i}`).toBeLessThanOrEqual(
          i + PER_SUBSCRIPTION_IN_FLIGHT,
        );
      });
    }
    const [left] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM webhook_deliveries
        WHERE subscription_id = ANY(${subs}::integer[]) AND status <> 'succeeded'`,
    );
    expect(left?.n).toBe(0);
  }, 60_000);

  it('a hung subscription holds only its own slots: the others arrive while it hangs', async () => {
    const store = await app.createStore('Hung');
    const created = await app.request('/api/v1/vendor/webhooks', {
      key: store.readWrite,
      method: 'POST',
      body: { url: `${receiver.url}/seed-hung`, events: ['webhook.ping'] },
    });
    expect(created.status).toBe(201);
    const hung = [await subscription(store.id, '/hung0'), await subscription(store.id, '/hung1')];
    const fine = [await subscription(store.id, '/fine0'), await subscription(store.id, '/fine1')];
    receiver.behave((r) => (hung.includes(subOf(r)) ? 'hang' : { delay: 20 }));
    const before = receiver.received.length;
    // The hung ones first: their backlog is the oldest in the due order.
    for (const sub of hung) await queue(store.id, sub, 40);
    for (const sub of fine) await queue(store.id, sub, 40);
    const started = Date.now();
    await wake();
    const deadline = started + 20_000;
    const fineGot = () => receiver.received.slice(before).filter((r) => fine.includes(subOf(r)));
    while (fineGot().length < 80 && Date.now() < deadline) {
      await wake();
      await new Promise((r) => setTimeout(r, 50));
    }
    const elapsed = Date.now() - started;
    expect(fineGot()).toHaveLength(80);
    // The workers' deadline here is 5 s: all 80 arrived before a hung attempt could even time out and
    // free its slot.
    expect(elapsed).toBeLessThan(5000);
    const hungGot = receiver.received.slice(before).filter((r) => hung.includes(subOf(r)));
    expect(hungGot.length).toBeLessThanOrEqual(2 * PER_SUBSCRIPTION_IN_FLIGHT);
    for (const sub of hung)
      await rows(app.em(), sql`UPDATE webhook_subscriptions SET active = false WHERE id = ${sub}`);
  }, 60_000);

  it('a worker killed with SIGKILL mid-run loses nothing: its holds end and the other worker sends the rest', async () => {
    for (const w of workers.splice(0)) await w.stop();
    const store = await app.createStore('Killed');
    const created = await app.request('/api/v1/vendor/webhooks', {
      key: store.readWrite,
      method: 'POST',
      body: { url: `${receiver.url}/seed-killed`, events: ['webhook.ping'] },
    });
    expect(created.status).toBe(201);
    const subs = [await subscription(store.id, '/k0'), await subscription(store.id, '/k1')];
    receiver.behave(() => ({ delay: 300 }));
    // A short deadline, so the dead worker's holds (twice the deadline and 4 s) end soon.
    const env = { WEBHOOK_CONCURRENCY: '50', WEBHOOK_TIMEOUT: '1s' };
    const doomed = await startWorkerProcess(app.databaseUrl, receiver.caFile, env);
    workers.push(await startWorkerProcess(app.databaseUrl, receiver.caFile, env));
    const before = receiver.received.length;
    for (const sub of subs) await queue(store.id, sub, 30);
    await wake();
    const mineNow = () => receiver.received.slice(before).filter((r) => subs.includes(subOf(r)));
    const deadline = Date.now() + 20_000;
    while (mineNow().length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await doomed.kill();
    const allDone = async () => {
      const [row] = await rows<{ n: number }>(
        app.em(),
        sql`SELECT count(*)::integer AS n FROM webhook_deliveries
          WHERE subscription_id = ANY(${subs}::integer[]) AND status = 'succeeded'`,
      );
      return row?.n === 60;
    };
    const until = Date.now() + 40_000;
    while (!(await allDone()) && Date.now() < until) {
      await wake();
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await allDone()).toBe(true);
    // Every event arrived; only attempts the dead worker had out may have arrived twice.
    const got = mineNow();
    for (const sub of subs) {
      const seqs = new Set(got.filter((r) => subOf(r) === sub).map(seqOf));
      expect(seqs.size).toBe(30);
    }
    expect(got.length - 60).toBeLessThanOrEqual(50);
  }, 90_000);
});
