import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { queueMail } from '../mail/outbox.ts';
import { rememberUpTo } from './remember.ts';
import { decryptSecret, secretsKey } from './secrets.ts';
import { postWebhook } from './send.ts';
import { DEAD_LETTER_LIMIT, PER_SUBSCRIPTION_IN_FLIGHT, type WebhookSettings } from './settings.ts';
import { signatureHeaders } from './signing.ts';
import { resolveTarget } from './url-guard.ts';

interface Claimed {
  id: string;
  subscription_id: number;
  store_id: number;
  attempts: number;
  round_attempts: number;
  url: string;
  secret_encrypted: string;
  event_id: string;
  event: string;
  event_key: string;
  body: string;
}

type Outcome = 'succeeded' | 'failed' | 'gone' | 'refused';

interface Attempted {
  delivery: Claimed;
  outcome: Outcome;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** Claimed and not finished per subscription (queued or sending): enough to keep its slots busy. */
const HELD_PER_SUBSCRIPTION = 4 * PER_SUBSCRIPTION_IN_FLIGHT;

/** A place in the due order (`next_attempt_at`, `id`); the time as PostgreSQL printed it, to the microsecond. */
interface Position {
  at: string;
  id: string;
}

/**
 * Due deliveries in due order, after `after` when given (a keyset read of the due index: what a run
 * has already passed costs nothing to skip, however long the backlog), else from the start. Only one
 * run exists at a time (the task's advisory lock), so nothing is written to claim: a run that dies
 * leaves its deliveries pending, and the next run takes them. The subscriptions in `leftOut` are
 * left out.
 */
function claim(
  em: EntityManager,
  limit: number,
  after: Position | null,
  leftOut: number[],
): Promise<Array<Claimed & { due_at: string }>> {
  const past = after
    ? sql`AND (d.next_attempt_at, d.id) > (${after.at}::timestamptz, ${after.id}::bigint)`
    : sql``;
  return em.transactional(async (tx) => {
    // Only a walk of the due index in its order reads no more than the rows it returns. A backlog
    // that appeared faster than the table's statistics were refreshed looks tiny to the planner,
    // which would then fetch all of it and sort it; with sorts off the index walk is its only plan.
    await rows(
      tx,
      sql`SELECT set_config('enable_sort', 'off', true), set_config('enable_incremental_sort', 'off', true)`,
    );
    return rows<Claimed & { due_at: string }>(
      tx,
      sql`SELECT d.id::text, d.next_attempt_at::text AS due_at, d.subscription_id, s.store_id, d.attempts,
          d.round_attempts, s.url, s.secret_encrypted, e.id::text AS event_id, e.event, e.event_key, e.body
        FROM webhook_deliveries d
        JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.active
        JOIN webhook_events e ON e.id = d.event_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= now() ${past}
          AND d.subscription_id <> ALL (${leftOut}::integer[])
        ORDER BY d.next_attempt_at, d.id LIMIT ${limit}`,
    );
  });
}

const secrets = rememberUpTo<string>(1000);

/** Decrypted once per stored ciphertext (a rotation stores a new one). */
function secretOf(key: Buffer, encrypted: string): string {
  return secrets(encrypted, () => decryptSecret(key, encrypted));
}

/** One attempt; never throws, so one broken delivery cannot stop the others. */
async function attempt(d: Claimed, s: WebhookSettings, key: Buffer): Promise<Attempted> {
  try {
    return await send(d, s, key);
  } catch (err) {
    const error = `internal error: ${(err as Error).message ?? String(err)}`.slice(0, 300);
    return { delivery: d, outcome: 'failed', status: null, error, durationMs: 0 };
  }
}

async function send(d: Claimed, s: WebhookSettings, key: Buffer): Promise<Attempted> {
  const started = performance.now();
  // Checked again at every delivery; the connection goes to the address checked here.
  const target = await resolveTarget(d.url, s.allowPrivate, s.timeoutMs);
  if (!('address' in target)) {
    const durationMs = Math.round(performance.now() - started);
    return { delivery: d, outcome: 'refused', status: null, error: target.message, durationMs };
  }
  const number = d.attempts + 1;
  const headers = {
    'x-stockless-event': d.event,
    'x-stockless-delivery-id': `${d.subscription_id}:${d.event_key}:${number}`,
    ...signatureHeaders(secretOf(key, d.secret_encrypted), d.body, `msg_${d.event_id}`),
  };
  const r = await postWebhook(target, d.body, headers, s.timeoutMs);
  if (r.kind === 'error')
    return { delivery: d, outcome: 'failed', status: null, error: r.error, durationMs: r.durationMs };
  const outcome: Outcome =
    r.status >= 200 && r.status < 300 ? 'succeeded' : r.status === 410 ? 'gone' : 'failed';
  return { delivery: d, outcome, status: r.status, error: null, durationMs: r.durationMs };
}

/**
 * Writes a batch of attempts in one transaction: the log, each delivery's next state (done, retry at
 * the ladder's next step, or dead-lettered), and what the outcomes mean for their subscriptions
 * (410 switches one off at once; twenty dead letters in a row too; a success ends the streak).
 */
async function record(em: EntityManager, s: WebhookSettings, done: Attempted[]): Promise<void> {
  const maxAttempts = s.retrySchedule.length + 1;
  const plan = done.map((a) => {
    const round = a.delivery.round_attempts + 1;
    const retry = (a.outcome === 'failed' || a.outcome === 'refused') && round < maxAttempts;
    const status =
      a.outcome === 'succeeded'
        ? 'succeeded'
        : a.outcome === 'gone'
          ? 'discarded'
          : retry
            ? 'pending'
            : 'dead';
    return { a, round, status, waitMs: retry ? (s.retrySchedule[round - 1] ?? 0) : null };
  });
  const succeeded = [
    ...new Set(plan.filter((p) => p.status === 'succeeded').map((p) => p.a.delivery.subscription_id)),
  ];
  // One statement: the deliveries' next state, the log, and a success ending its subscription's
  // streak. It answers with the deliveries it dead-lettered.
  const statement = sql<{ id: string }>`WITH input AS (
      SELECT * FROM unnest(${plan.map((p) => p.a.delivery.id)}::bigint[], ${plan.map((p) => p.status)}::text[],
        ${plan.map((p) => p.waitMs)}::integer[], ${plan.map((p) => p.a.outcome)}::text[],
        ${plan.map((p) => p.a.status)}::integer[], ${plan.map((p) => p.a.error)}::text[],
        ${plan.map((p) => p.a.durationMs)}::integer[])
        AS i(delivery_id, status, wait_ms, outcome, response_status, error, duration_ms)
    ), updated AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1,
        round_attempts = d.round_attempts + 1, updated_at = now(),
        -- Only a pending delivery moves on: one discarded while its attempt was out (its subscription
        -- switched off) stays discarded, and the attempt is still logged.
        status = CASE WHEN d.status = 'pending' THEN i.status ELSE d.status END,
        next_attempt_at = CASE WHEN i.wait_ms IS NULL OR d.status <> 'pending' THEN d.next_attempt_at
          ELSE now() + i.wait_ms * interval '1 millisecond' END
      FROM input i WHERE d.id = i.delivery_id
      RETURNING d.id, d.subscription_id, d.attempts, d.next_attempt_at, d.status
    ), streaks AS (
      UPDATE webhook_subscriptions SET dead_letter_streak = 0
      WHERE id = ANY (${succeeded}::integer[]) AND dead_letter_streak > 0
    ), logged AS (
      INSERT INTO webhook_attempts (delivery_id, subscription_id, attempt, outcome, response_status, error, duration_ms, next_attempt_at)
      SELECT u.id, u.subscription_id, u.attempts, i.outcome, i.response_status, i.error, i.duration_ms,
        CASE WHEN u.status = 'pending' THEN u.next_attempt_at END
      FROM updated u JOIN input i ON i.delivery_id = u.id
    )
    SELECT u.id::text AS id FROM updated u WHERE u.status = 'dead'`;
  const gone = [
    ...new Set(plan.filter((p) => p.a.outcome === 'gone').map((p) => p.a.delivery.subscription_id)),
  ];
  const dead = plan.filter((x) => x.status === 'dead');
  if (gone.length === 0 && dead.length === 0) {
    await rows(em, statement);
    return;
  }
  await em.transactional(async (tx) => {
    // Only what this write dead-lettered: a delivery discarded while its attempt was out is not.
    const deadLettered = new Set((await rows(tx, statement)).map((r) => r.id));
    if (gone.length) await disable(tx, gone, 'gone');
    for (const p of dead) if (deadLettered.has(p.a.delivery.id)) await deadLetter(tx, p.a);
  });
}

/** Switches subscriptions off; their pending deliveries are dropped (a resend can bring one back). */
export async function disable(tx: EntityManager, ids: number[], reason: 'manual' | 'gone' | 'dead_letters') {
  await rows(
    tx,
    sql`WITH off AS (
        UPDATE webhook_subscriptions SET active = false, disabled_reason = ${reason}, updated_at = now()
        WHERE id = ANY (${ids}::integer[]) AND active RETURNING id
      )
      UPDATE webhook_deliveries SET status = 'discarded', updated_at = now()
      WHERE subscription_id IN (SELECT id FROM off) AND status = 'pending'`,
  );
}

async function deadLetter(tx: EntityManager, a: Attempted) {
  const d = a.delivery;
  const [sub] = await rows<{ streak: number; url: string; owner_email: string | null; store_name: string }>(
    tx,
    sql`UPDATE webhook_subscriptions w SET dead_letter_streak = dead_letter_streak + 1
      FROM stores st WHERE w.id = ${d.subscription_id} AND st.id = w.store_id
      RETURNING w.dead_letter_streak AS streak, w.url, st.owner_email, st.name AS store_name`,
  );
  if (!sub) return;
  const autoDisable = sub.streak >= DEAD_LETTER_LIMIT;
  if (autoDisable) await disable(tx, [d.subscription_id], 'dead_letters');
  if (!sub.owner_email) return;
  const last = a.status ? `HTTP ${a.status}` : (a.error ?? 'no answer');
  await queueMail(tx, {
    storeId: d.store_id,
    kind: autoDisable ? 'webhook_disabled' : 'webhook_dead_letter',
    to: sub.owner_email,
    subject: autoDisable
      ? `Webhook endpoint disabled after ${DEAD_LETTER_LIMIT} failed events: ${sub.url}`
      : `Webhook event ${d.event} could not be delivered to ${sub.url}`,
    text:
      `Hello ${sub.store_name},\n\nThe event ${d.event} (${d.event_key}) could not be delivered to ${sub.url} ` +
      `after ${d.round_attempts + 1} attempts; the last one ended with ${last}. ` +
      'You can see every attempt in the delivery log and resend the event from there.' +
      (autoDisable
        ? `\n\nThis endpoint failed ${DEAD_LETTER_LIMIT} events in a row, so it has been disabled. ` +
          'Set it to active again once it can receive events.'
        : '') +
      '\n\nStockless',
  });
}

/** When the next pending delivery falls due, so a job is waiting for it. */
async function scheduleNext(em: EntityManager): Promise<void> {
  await rows(
    em,
    // At least a second ahead: what is due now is being taken by the run that is ending or by another.
    sql`SELECT add_keyed_job('deliver_webhooks', '{}'::json, 'deliver_webhooks:' || floor(extract(epoch FROM due_at))::bigint,
        'preserve_run_at', run_at => due_at)
      FROM (SELECT GREATEST(at, now() + interval '1 second') AS due_at FROM (
        SELECT min(d.next_attempt_at) AS at
        FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.active
        WHERE d.status = 'pending'
      ) due WHERE at IS NOT NULL) next`,
  );
}

/**
 * Sends every due delivery, `concurrency` at a time. Claims are prefetched into a small queue and
 * results written in batches, both off the sending path, so the slots stay busy; a receiver that
 * hangs holds only its own slots (at most a few per subscription). Returns the attempts made.
 */
export async function deliverDue(em: EntityManager, s: WebhookSettings): Promise<number> {
  const key = secretsKey(s.secretKey);
  const half = Math.ceil(s.concurrency / 2);
  const queue: Claimed[] = [];
  let inFlight = 0;
  // The loop sleeps until something it waits for happens: an attempt ends, a claim or a write
  // returns, or the 100 ms tick (for the time-based flush and the pause after an empty claim).
  let wake: (() => void) | undefined;
  // Something happened while the loop was busy looking: it looks again instead of sleeping.
  let poked = false;
  const poke = () => {
    const w = wake;
    wake = undefined;
    if (w) w();
    else poked = true;
  };
  // Claimed and not yet finished, per subscription.
  const outstanding = new Map<number, number>();
  // Claimed and not yet recorded, by delivery id.
  const held = new Set<string>();
  // In flight per subscription: a receiver that hangs holds at most PER_SUBSCRIPTION_IN_FLIGHT slots.
  const sending = new Map<number, number>();
  let results: Attempted[] = [];
  let flushing: Promise<void> | undefined;
  let refilling: Promise<void> | undefined;
  let exhausted = false;
  // A claim or a write that failed: the run ends with it (the job is retried), after what is in flight.
  let failure: unknown;
  let lastFlush = Date.now();
  let lastEmptyClaim = 0;
  let total = 0;

  const startFlush = () => {
    if (flushing || results.length === 0) return;
    const batch = results;
    results = [];
    lastFlush = Date.now();
    flushing = record(em.fork(), s, batch)
      .then(() => {
        // Recorded: no longer pending, so no claim can return them again.
        for (const a of batch) held.delete(a.delivery.id);
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => {
        flushing = undefined;
        poke();
      });
  };
  // Where the last claim stopped; null: the next claim reads from the start of the due order.
  let cursor: Position | null = null;
  // Subscriptions that may have due rows behind the cursor: left out when a read passed them over
  // (they held all they may) or ran while they were left out. Reads after the cursor leave them out
  // too, so none of their newer rows overtakes an older one, and a read from the start is made as
  // soon as one of them has room again.
  let behind = new Set<number>();
  const startRefill = () => {
    // After a read from the start found nothing new, the next read waits a little.
    if (refilling || Date.now() - lastEmptyClaim < 100) return;
    // Keep a few rounds of sendable work claimed ahead, so a claim's round trip never leaves slots
    // idle; what waits for a busy subscription's slot does not count.
    const ready = queue.filter(
      (d) => (sending.get(d.subscription_id) ?? 0) < PER_SUBSCRIPTION_IN_FLIGHT,
    ).length;
    if (ready > s.concurrency) return;
    const want = 8 * s.concurrency - ready;
    if (want < half) return;
    const roomFor = (sub: number) => (outstanding.get(sub) ?? 0) < HELD_PER_SUBSCRIPTION;
    if ([...behind].some(roomFor)) cursor = null;
    const rescan = cursor === null;
    const saturated = [...outstanding.keys()].filter((sub) => !roomFor(sub));
    const leftOut = rescan ? saturated : [...new Set([...saturated, ...behind])];
    // A write that commits while this read runs can still show its rows as pending to the read (its
    // snapshot came first) after they left `held`: what was held when the read began is skipped too.
    const heldAtStart = new Set(held);
    // From the start, what this run holds is read again and skipped; ask for that much more.
    const limit = rescan ? want + held.size : want;
    refilling = claim(em.fork(), limit, cursor, leftOut)
      .then((claimed) => {
        let fresh = 0;
        const passed = new Set<number>();
        for (const d of claimed) {
          if (heldAtStart.has(d.id) || held.has(d.id)) continue;
          const n = outstanding.get(d.subscription_id) ?? 0;
          if (n >= HELD_PER_SUBSCRIPTION) {
            passed.add(d.subscription_id);
            continue;
          }
          held.add(d.id);
          outstanding.set(d.subscription_id, n + 1);
          queue.push(d);
          fresh++;
        }
        const last = claimed.at(-1);
        if (last) cursor = { at: last.due_at, id: last.id };
        if (rescan) behind = new Set([...saturated, ...passed]);
        else for (const sub of [...passed, ...(last ? saturated : [])]) behind.add(sub);
        // The end of the due order. Rows that became due behind the cursor (a transaction that
        // committed late, a resend) are found by reading from the start, so the next read does that;
        // and only a read from the start that left nothing out and found nothing new ends the run.
        exhausted = false;
        if (claimed.length < limit) {
          if (rescan && fresh === 0) {
            lastEmptyClaim = Date.now();
            exhausted = behind.size === 0;
          }
          if (!rescan) cursor = null;
        }
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => {
        refilling = undefined;
        poke();
      });
  };
  const pump = () => {
    for (let i = 0; i < queue.length && inFlight < s.concurrency; ) {
      const d = queue[i] as Claimed;
      const sub = d.subscription_id;
      if ((sending.get(sub) ?? 0) >= PER_SUBSCRIPTION_IN_FLIGHT) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      total++;
      sending.set(sub, (sending.get(sub) ?? 0) + 1);
      inFlight++;
      // attempt() never rejects.
      void attempt(d, s, key).then((r) => {
        results.push(r);
        inFlight--;
        sending.set(sub, (sending.get(sub) ?? 1) - 1);
        outstanding.set(sub, (outstanding.get(sub) ?? 1) - 1);
        poke();
      });
    }
  };

  /** One pass over the run's state: `done`, or `wait` for the next event. */
  const step = async (): Promise<'wait' | 'done'> => {
    pump();
    startRefill();
    if (results.length >= 200 || (results.length > 0 && Date.now() - lastFlush >= 100)) startFlush();
    if (inFlight > 0 || queue.length > 0 || refilling) return 'wait';
    if (flushing) {
      await flushing;
      return 'wait';
    }
    if (results.length > 0) {
      // Written results are no longer held: look again, from the start, before stopping.
      startFlush();
      await flushing;
      exhausted = false;
      cursor = null;
      lastEmptyClaim = 0;
      poked = true;
      return 'wait';
    }
    return exhausted ? 'done' : 'wait';
  };

  const loop = async () => {
    for (;;) {
      poked = false;
      if (failure) {
        // Nothing new is started; the run ends once what is in flight has ended, so the lock is
        // never released while this run still sends.
        if (inFlight === 0) throw failure;
      } else if ((await step()) === 'done') return;
      if (poked) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };

  const ticker = setInterval(poke, 100);
  try {
    await loop();
  } finally {
    clearInterval(ticker);
  }
  await scheduleNext(em.fork());
  return total;
}
