import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../../db/sql.ts';
import { queueMail } from '../../mail/outbox.ts';
import { DEAD_LETTER_LIMIT, type WebhookSettings } from '../settings.ts';
import type { Attempted } from './attempt-delivery.ts';

/**
 * Writes a batch of attempts in one transaction: the log, each delivery's next state (done, retry at
 * the ladder's next step, or dead-lettered), and what the outcomes mean for their subscriptions
 * (410 switches one off at once; twenty dead letters in a row too; a success ends the streak).
 * Only deliveries of subscriptions this run still holds (its token) move on; an attempt whose
 * subscription another worker took over after the hold ran out is logged, and its delivery left to
 * that worker. A retry moves its subscription's `next_due_at` by the deliveries' trigger.
 */
export async function recordAttempts(
  em: EntityManager,
  s: WebhookSettings,
  done: Attempted[],
  token: string,
): Promise<void> {
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
  const visited = [...new Set(done.map((a) => a.delivery.subscription_id))];
  type Planned = (typeof plan)[number];
  const input = (items: Planned[]) => sql`unnest(${items.map((p) => p.a.delivery.id)}::bigint[],
    ${items.map((p) => p.status)}::text[], ${items.map((p) => p.waitMs)}::integer[],
    ${items.map((p) => p.a.outcome)}::text[], ${items.map((p) => p.a.status)}::integer[],
    ${items.map((p) => p.a.error)}::text[], ${items.map((p) => p.a.durationMs)}::integer[],
    ${items.map((p) => p.a.delivery.due_at)}::timestamptz[])
    AS i(delivery_id, status, wait_ms, outcome, response_status, error, duration_ms, due_at)`;
  // One statement: the deliveries' next state, the log, and a success ending its subscription's
  // streak. It answers with the deliveries it dead-lettered. The batch is joined straight from its
  // arrays, never through a CTE: the planner cannot count a CTE's rows, and matched a batch of
  // 1,000 row by row (half a million comparisons).
  const statement = (mine: Planned[], others: Planned[]) => sql<{ id: string }>`WITH updated AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = now(),
        -- Only a pending delivery as it was read moves on: one discarded while its attempt was out
        -- (its subscription switched off) stays discarded, and one re-sent meanwhile (a new round,
        -- due anew) keeps its new round; the attempt is logged either way.
        round_attempts = CASE WHEN d.next_attempt_at = i.due_at THEN d.round_attempts + 1 ELSE d.round_attempts END,
        status = CASE WHEN d.status = 'pending' AND d.next_attempt_at = i.due_at THEN i.status ELSE d.status END,
        next_attempt_at = CASE WHEN i.wait_ms IS NULL OR d.status <> 'pending' OR d.next_attempt_at <> i.due_at
          THEN d.next_attempt_at ELSE now() + i.wait_ms * interval '1 millisecond' END
      FROM ${input(mine)}
      WHERE d.id = i.delivery_id
      RETURNING d.id, d.subscription_id, d.attempts, d.next_attempt_at, d.status, i.outcome, i.response_status,
        i.error, i.duration_ms
    ), streaks AS (
      UPDATE webhook_subscriptions SET dead_letter_streak = 0
      WHERE id = ANY (${succeeded}::integer[]) AND dead_letter_streak <> 0
    ), logged AS (
      INSERT INTO webhook_attempts (delivery_id, subscription_id, attempt, outcome, response_status, error, duration_ms, next_attempt_at)
      SELECT u.id, u.subscription_id, u.attempts, u.outcome, u.response_status, u.error, u.duration_ms,
        CASE WHEN u.status = 'pending' THEN u.next_attempt_at END
      FROM updated u
      UNION ALL
      -- Held by another worker now: logged, not moved. A delivery deleted with its subscription while
      -- the attempt was out has no log to keep.
      SELECT i.delivery_id, d.subscription_id, d.attempts + 1, i.outcome, i.response_status, i.error,
        i.duration_ms, NULL
      FROM ${input(others)} JOIN webhook_deliveries d ON d.id = i.delivery_id
    )
    SELECT u.id::text AS id FROM updated u WHERE u.status = 'dead'`;
  const gone = [
    ...new Set(plan.filter((p) => p.a.outcome === 'gone').map((p) => p.a.delivery.subscription_id)),
  ];
  const dead = plan.filter((x) => x.status === 'dead');
  await em.transactional(async (tx) => {
    // Subscriptions first, in id order, then their deliveries: the order of every writer (claims, the
    // fan-out's trigger, disable), so none of them waits on another in a cycle.
    const locked = await rows<{ id: number; mine: boolean }>(
      tx,
      sql`SELECT id, held_by IS NOT DISTINCT FROM ${token}::uuid AS mine FROM webhook_subscriptions
        WHERE id = ANY (${visited.sort((a, b) => a - b)}::integer[])
        ORDER BY id FOR NO KEY UPDATE`,
    );
    const mine = new Set(locked.filter((s) => s.mine).map((s) => s.id));
    const held = (p: Planned) => mine.has(p.a.delivery.subscription_id);
    // Only what this write dead-lettered: a delivery discarded while its attempt was out is not.
    const deadLettered = new Set(
      (
        await rows(
          tx,
          statement(
            plan.filter(held),
            plan.filter((p) => !held(p)),
          ),
        )
      ).map((r) => r.id),
    );
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
        WHERE id IN (SELECT id FROM webhook_subscriptions WHERE id = ANY (${ids}::integer[]) AND active
          ORDER BY id FOR NO KEY UPDATE)
        RETURNING id
      )
      -- An attempt still out keeps its claim: its write counts it, and the delivery stays discarded.
      UPDATE webhook_deliveries SET status = 'discarded', updated_at = now()
      WHERE subscription_id IN (SELECT id FROM off) AND status = 'pending'`,
  );
}

async function deadLetter(tx: EntityManager, a: Attempted) {
  const d = a.delivery;
  const [sub] = await rows<{
    streak: number;
    url: string;
    owner_email: string | null;
    store_name: string;
    livemode: boolean;
  }>(
    tx,
    sql`UPDATE webhook_subscriptions w SET dead_letter_streak = dead_letter_streak + 1
      FROM stores st WHERE w.id = ${d.subscription_id} AND st.id = w.store_id
      RETURNING w.dead_letter_streak AS streak, w.url, st.owner_email, st.name AS store_name, w.livemode`,
  );
  if (!sub) return;
  const autoDisable = sub.streak >= DEAD_LETTER_LIMIT;
  if (autoDisable) await disable(tx, [d.subscription_id], 'dead_letters');
  // Test mode mails nobody: a test endpoint's failures are in its delivery log.
  if (!sub.owner_email || !sub.livemode) return;
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
