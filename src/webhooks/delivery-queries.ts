import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/** A delivery a worker holds a lease on, with what an attempt needs. */
export interface Claimed {
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

export interface ClaimLimits {
  /** Deliveries to take at most (the worker's free slots). */
  deliveries: number;
  /** Subscriptions to visit at most. */
  subscriptions: number;
  /** In flight at once per subscription, across every worker. */
  perSubscription: number;
  /** How long the claim holds: longer than an attempt's deadline. */
  leaseMs: number;
  /** This worker's claim token (a UUID): only its holder records the attempt. */
  token: string;
}

/**
 * One claim, one short transaction: the subscriptions whose work is due, soonest first, locked with
 * SKIP LOCKED (another worker visits others meanwhile); from each, its oldest claimable deliveries up
 * to its free slots (cap less what is out on a lease anywhere), leased to this worker; then each
 * visited subscription's `next_due_at` is what it holds next: the end of its earliest lease when it is
 * full, else its oldest claimable delivery. A full or hung subscription thus drops out of the order
 * until a slot can free, and never crowds out the others.
 */
export function claimDue(em: EntityManager, l: ClaimLimits): Promise<Claimed[]> {
  return em.transactional(async (tx) => {
    // Locked first, read after, in two statements: the second's snapshot starts once the locks are
    // held, so it sees every write of attempts that committed before them, and a write that commits
    // after must wait for the lock and then moves `next_due_at` on top of what this claim sets. In
    // one statement, a write committed while the claim waited would be invisible to its counts, and
    // the claim would put a subscription with a free slot to sleep until a lease ended.
    const locked = await rows<{ id: number }>(
      tx,
      sql`SELECT id FROM webhook_subscriptions
        WHERE active AND next_due_at <= now()
        ORDER BY next_due_at, id
        LIMIT ${l.subscriptions}
        FOR NO KEY UPDATE SKIP LOCKED`,
    );
    if (locked.length === 0) return [];
    return rows<Claimed>(
      tx,
      sql`WITH subs AS (
          SELECT s.id, (SELECT count(*) FROM webhook_deliveries x
              WHERE x.subscription_id = s.id AND x.status = 'pending' AND x.claimed_until > now())::integer AS busy
          FROM unnest(${locked.map((s) => s.id)}::integer[]) AS s(id)
        ), ranked AS (
          SELECT d.id, d.subscription_id, subs.busy,
            row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS overall
          FROM subs CROSS JOIN LATERAL (
            SELECT d.id, d.subscription_id, d.next_attempt_at FROM webhook_deliveries d
            WHERE d.subscription_id = subs.id AND d.status = 'pending' AND d.next_attempt_at <= now()
              AND (d.claimed_until IS NULL OR d.claimed_until <= now())
            ORDER BY d.next_attempt_at, d.id
            LIMIT GREATEST(0, ${l.perSubscription} - subs.busy)
            FOR UPDATE OF d SKIP LOCKED
          ) d
        ), picked AS (
          SELECT id, subscription_id FROM ranked WHERE overall <= ${l.deliveries}
        ), claimed AS (
          UPDATE webhook_deliveries d SET claimed_until = now() + ${l.leaseMs} * interval '1 millisecond',
            claim_token = ${l.token}::uuid
          FROM picked WHERE d.id = picked.id
          RETURNING d.id, d.subscription_id, d.attempts, d.round_attempts, d.event_id, d.next_attempt_at
        ), counted AS (
          SELECT subs.id, subs.busy, count(picked.id)::integer AS taken
          FROM subs LEFT JOIN picked ON picked.subscription_id = subs.id
          GROUP BY subs.id, subs.busy
        ), visited AS (
          UPDATE webhook_subscriptions s SET last_claimed_at = now(), next_due_at = LEAST(
              -- The end of the earliest lease out (the worker holding it may have died).
              (SELECT min(x.claimed_until) FROM webhook_deliveries x
                WHERE x.subscription_id = s.id AND x.status = 'pending' AND x.claimed_until > now()),
              CASE WHEN c.taken > 0 THEN now() + ${l.leaseMs} * interval '1 millisecond' END,
              -- With a free slot, its oldest claimable delivery (a walk of its due index).
              CASE WHEN c.busy + c.taken < ${l.perSubscription} THEN (
                SELECT x.next_attempt_at FROM webhook_deliveries x
                WHERE x.subscription_id = s.id AND x.status = 'pending'
                  AND (x.claimed_until IS NULL OR x.claimed_until <= now())
                  AND x.id NOT IN (SELECT id FROM picked)
                ORDER BY x.next_attempt_at, x.id LIMIT 1) END)
          FROM counted c WHERE s.id = c.id
        )
        SELECT c.id::text, c.subscription_id, s.store_id, c.attempts, c.round_attempts, s.url, s.secret_encrypted,
          e.id::text AS event_id, e.event, e.event_key, e.body
        FROM claimed c
        JOIN webhook_subscriptions s ON s.id = c.subscription_id
        JOIN webhook_events e ON e.id = c.event_id
        ORDER BY c.next_attempt_at, c.id`,
    );
  });
}

/**
 * A wake-up for when the next subscription's work falls due (a retry, a lease that may end
 * unrecorded), at least a second ahead: what is due now is taken by the runs already going.
 */
export async function scheduleNextWake(em: EntityManager): Promise<void> {
  await rows(
    em,
    sql`SELECT add_keyed_job('deliver_webhooks', '{}'::json, 'deliver_webhooks:' || floor(extract(epoch FROM due_at))::bigint,
        'preserve_run_at', run_at => due_at)
      FROM (SELECT GREATEST(min(next_due_at), now() + interval '1 second') AS due_at
            FROM webhook_subscriptions WHERE active AND next_due_at IS NOT NULL) next
      WHERE due_at IS NOT NULL`,
  );
}
