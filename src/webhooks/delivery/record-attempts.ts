import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../../db/sql.ts';
import type { WebhookSettings } from '../../settings.ts';
import type { Attempted } from './attempt-delivery.ts';
import { type Planned, planOutcomes } from './backoff.ts';
import { deadLetter } from './dead-letter.ts';
import { countAttempts } from './delivery-metrics.ts';
import { disable } from './disable-subscriptions.ts';

/** The batch as rows, joined straight from its arrays. */
const batchRows = (items: Planned[]) => sql`unnest(${items.map((p) => p.a.delivery.id)}::bigint[],
    ${items.map((p) => p.status)}::text[], ${items.map((p) => p.waitMs)}::integer[],
    ${items.map((p) => p.a.outcome)}::text[], ${items.map((p) => p.a.status)}::integer[],
    ${items.map((p) => p.a.error)}::text[], ${items.map((p) => p.a.durationMs)}::integer[],
    ${items.map((p) => p.a.delivery.due_at)}::timestamptz[])
    AS i(delivery_id, status, wait_ms, outcome, response_status, error, duration_ms, due_at)`;

/**
 * One statement: the deliveries' next state, the log, and a success ending its subscription's
 * streak. It answers with the deliveries it dead-lettered. The batch is joined straight from its
 * arrays, never through a CTE: the planner cannot count a CTE's rows, and matched a batch of
 * 1,000 row by row (half a million comparisons).
 */
function writeOutcomes(tx: EntityManager, mine: Planned[], others: Planned[], succeeded: number[]) {
  return rows<{ id: string }>(
    tx,
    sql`WITH updated AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = now(),
        -- Only a pending delivery as it was read moves on: one discarded while its attempt was out
        -- (its subscription switched off) stays discarded, and one re-sent meanwhile (a new round,
        -- due anew) keeps its new round; the attempt is logged either way.
        round_attempts = CASE WHEN d.next_attempt_at = i.due_at THEN d.round_attempts + 1 ELSE d.round_attempts END,
        status = CASE WHEN d.status = 'pending' AND d.next_attempt_at = i.due_at THEN i.status ELSE d.status END,
        next_attempt_at = CASE WHEN i.wait_ms IS NULL OR d.status <> 'pending' OR d.next_attempt_at <> i.due_at
          THEN d.next_attempt_at ELSE now() + i.wait_ms * interval '1 millisecond' END
      FROM ${batchRows(mine)}
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
      FROM ${batchRows(others)} JOIN webhook_deliveries d ON d.id = i.delivery_id
    )
    SELECT u.id::text AS id FROM updated u WHERE u.status = 'dead'`,
  );
}

/** Subscriptions first, in id order: the order of every writer (claims, the fan-out's trigger, disable). */
async function lockHolders(tx: EntityManager, ids: number[], token: string): Promise<Set<number>> {
  const locked = await rows<{ id: number; mine: boolean }>(
    tx,
    sql`SELECT id, held_by IS NOT DISTINCT FROM ${token}::uuid AS mine FROM webhook_subscriptions
      WHERE id = ANY (${ids.sort((a, b) => a - b)}::integer[])
      ORDER BY id FOR NO KEY UPDATE`,
  );
  return new Set(locked.filter((s) => s.mine).map((s) => s.id));
}

const subscriptionsOf = (items: Planned[]) => [...new Set(items.map((p) => p.a.delivery.subscription_id))];

/**
 * Writes a batch of attempts in one transaction: the log, each delivery's next state (done, retry at
 * the schedule's next step, or dead-lettered: backoff.ts decides), and what the outcomes mean for
 * their subscriptions (410 switches one off at once; twenty dead letters in a row too; a success ends
 * the streak). Only deliveries of subscriptions this run still holds (its token) move on; an attempt
 * whose subscription another worker took over after the hold ran out is logged, and its delivery left
 * to that worker. A retry does not move its subscription: the hold's release does.
 */
export async function recordAttempts(
  em: EntityManager,
  s: WebhookSettings,
  done: Attempted[],
  token: string,
): Promise<void> {
  const plan = planOutcomes(done, s.retrySchedule);
  const succeeded = subscriptionsOf(plan.filter((p) => p.status === 'succeeded'));
  const gone = subscriptionsOf(plan.filter((p) => p.a.outcome === 'gone'));
  const dead = plan.filter((x) => x.status === 'dead');
  const deadLettered = new Set<string>();
  await em.transactional(async (tx) => {
    // Then their deliveries, so none of the writers waits on another in a cycle.
    const mine = await lockHolders(tx, subscriptionsOf(plan), token);
    const held = (p: Planned) => mine.has(p.a.delivery.subscription_id);
    const written = await writeOutcomes(
      tx,
      plan.filter(held),
      plan.filter((p) => !held(p)),
      succeeded,
    );
    // Only what this write dead-lettered: a delivery discarded while its attempt was out is not.
    for (const r of written) deadLettered.add(r.id);
    if (gone.length) await disable(tx, gone, 'gone');
    for (const p of dead) if (deadLettered.has(p.a.delivery.id)) await deadLetter(tx, p.a);
  });
  countAttempts(plan, deadLettered);
}
