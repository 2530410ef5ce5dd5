import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../../db/sql.ts';
import type { EventName } from '../../events/vocabulary/index.ts';

/** A delivery read by the worker that holds its subscription, with what an attempt needs. */
export interface Claimed {
  id: string;
  subscription_id: number;
  store_id: number;
  attempts: number;
  round_attempts: number;
  /**
   * `next_attempt_at` as read (text, to the microsecond): a write moves the delivery only if it is
   * unchanged, so a resend while this attempt was out is not overwritten by its outcome.
   */
  due_at: string;
  url: string;
  secret_encrypted: string;
  event_id: string;
  event: EventName;
  event_key: string;
  body: string;
  /** The trace the attempt continues (the event's dispatch), when the event was traced. */
  traceparent?: string | null;
}

export interface RoundRequest {
  /** This run's hold token (a UUID): only its holder sends a subscription's deliveries. */
  token: string;
  /** How long a hold lasts from this round: longer than an attempt's deadline plus its write. */
  holdMs: number;
  /** Held subscriptions to read more of (their hold renewed): id and how many at most. */
  refill: { id: number; n: number }[];
  /** Held subscriptions whose hold is only renewed. */
  renew: number[];
  /**
   * Held subscriptions to let go, with nothing of theirs left out or unwritten. `toBack`: its
   * turn is over (others are waiting), so it is due no sooner than now, behind those due before it.
   */
  release: { id: number; toBack: boolean }[];
  /** Deliveries of the held subscriptions already read (queued, out, or not yet written). */
  taken: string[];
  /** Every subscription the run has, whatever its hold's state: never taken afresh. */
  have: number[];
  /** Subscriptions not held by anyone to take at most, and how many deliveries each to read. */
  take: number;
  perTaken: number;
  /** The take was cut short by room: say whether others are still due (a look that locks nothing). */
  askWaiting: boolean;
}

export interface RoundResult {
  /** Of the refilled and renewed subscriptions: those still held by this run, and whether active. */
  kept: { id: number; active: boolean }[];
  /** Subscriptions newly held by this run. */
  taken: number[];
  /** Subscriptions were due that this round had no room to take. */
  waiting: boolean;
  /** What was read, per subscription in due order. */
  deliveries: Claimed[];
}

/** Locks the subscriptions the run has (in id order, the order of every writer): whether it still holds each. */
function lockHeld(tx: EntityManager, token: string, ids: number[]) {
  return rows<{ id: number; active: boolean; held: boolean }>(
    tx,
    sql`SELECT id, active, held_by IS NOT DISTINCT FROM ${token}::uuid AS held
      FROM webhook_subscriptions WHERE id = ANY (${ids.sort((a, b) => a - b)}::integer[])
      ORDER BY id FOR NO KEY UPDATE`,
  );
}

/**
 * Lets subscriptions go: each is due again at its oldest pending delivery (its retries included),
 * no sooner than now when it goes to the back. The one place a subscription's due time is derived
 * from all its pending work (docs/decisions.md, "Webhook retry timing, one place").
 */
async function releaseHolds(tx: EntityManager, release: RoundRequest['release']): Promise<void> {
  // A statement of its own, after the locks: it sees every delivery committed before them.
  await rows(
    tx,
    sql`UPDATE webhook_subscriptions s SET held_by = NULL, held_until = NULL, next_due_at = (
        -- GREATEST would turn "nothing pending" (NULL) into now.
        SELECT CASE WHEN x.to_back AND min(d.next_attempt_at) IS NOT NULL THEN GREATEST(min(d.next_attempt_at), now())
          ELSE min(d.next_attempt_at) END
        FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending')
      FROM unnest(${release.map((x) => x.id)}::integer[], ${release.map((x) => x.toBack)}::boolean[]) AS x(id, to_back)
      WHERE s.id = x.id`,
  );
}

/** Subscriptions nobody holds whose work is due, soonest first; another worker takes others meanwhile. */
function takeDue(tx: EntityManager, take: number, have: number[]) {
  return rows<{ id: number }>(
    tx,
    sql`SELECT id FROM webhook_subscriptions
      WHERE active AND next_due_at <= now() AND (held_until IS NULL OR held_until <= now())
        AND id <> ALL (${have}::integer[])
      ORDER BY next_due_at, id
      LIMIT ${take}
      FOR NO KEY UPDATE SKIP LOCKED`,
  );
}

/** Whether other subscriptions are due. Locks nothing: a row locked here would be skipped by another worker's take that has room. */
async function othersDue(tx: EntityManager, except: number[]): Promise<boolean> {
  const [waiting] = await rows<{ any: boolean }>(
    tx,
    sql`SELECT EXISTS (SELECT 1 FROM webhook_subscriptions
        WHERE active AND next_due_at <= now() AND (held_until IS NULL OR held_until <= now())
          AND id <> ALL (${except}::integer[])) AS any`,
  );
  return waiting?.any ?? false;
}

/** Renews the holds and reads ahead from each subscription, in due order, skipping what the run already has. */
function readAhead(tx: EntityManager, r: RoundRequest, reads: { id: number; n: number }[]) {
  return rows<Claimed>(
    tx,
    sql`WITH want AS (
        SELECT * FROM unnest(${reads.map((x) => x.id)}::integer[], ${reads.map((x) => x.n)}::integer[]) AS w(id, n)
      ), held AS (
        -- While held, a subscription is due for others only when its hold ends (its worker may
        -- be gone); new work moves it earlier by the trigger, and a release sets it anew.
        UPDATE webhook_subscriptions s SET held_by = ${r.token}::uuid,
          held_until = now() + ${r.holdMs} * interval '1 millisecond', last_claimed_at = now(),
          next_due_at = now() + ${r.holdMs} * interval '1 millisecond'
        FROM want WHERE s.id = want.id
        RETURNING s.id, s.store_id, s.url, s.secret_encrypted, s.active, want.n
      )
      SELECT d.id::text, held.id AS subscription_id, held.store_id, d.attempts, d.round_attempts,
        d.next_attempt_at::text AS due_at, held.url,
        held.secret_encrypted, e.id::text AS event_id, e.event, e.event_key, e.body, e.traceparent
      FROM held CROSS JOIN LATERAL (
        SELECT d.id, d.attempts, d.round_attempts, d.event_id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.subscription_id = held.id AND d.status = 'pending' AND d.next_attempt_at <= now()
          AND d.id NOT IN (SELECT unnest(${r.taken}::bigint[]))
        ORDER BY d.next_attempt_at, d.id
        LIMIT CASE WHEN held.active THEN held.n ELSE 0 END
      ) d
      JOIN webhook_events e ON e.id = d.event_id
      ORDER BY held.id, d.next_attempt_at, d.id`,
  );
}

/**
 * One round of a worker's delivery run, one short transaction:
 * 1. locks the subscriptions it holds (in id order, the order of every writer) and keeps those it
 *    still holds: a hold that ran out may have been taken by another worker;
 * 2. releases those it is done with: each is due again at its oldest pending delivery;
 * 3. takes subscriptions nobody holds whose work is due, soonest first, with SKIP LOCKED (another
 *    worker takes others meanwhile); a hold that ran out counts as nobody's;
 * 4. renews its holds and reads ahead from each, in due order, skipping what it already has.
 * While a worker holds a subscription no other sends its deliveries, so the per-subscription cap and
 * the order within it are the holder's to keep, and never two attempts of one delivery are out.
 * What to ask is the plan's (plan-round.ts); this only applies it.
 */
export function deliveryRound(em: EntityManager, r: RoundRequest): Promise<RoundResult> {
  return em.transactional(async (tx) => {
    const mine = [...new Set([...r.refill.map((x) => x.id), ...r.renew, ...r.release.map((x) => x.id)])];
    const locked = mine.length ? await lockHeld(tx, r.token, mine) : [];
    const still = new Map(locked.filter((s) => s.held).map((s) => [s.id, s.active]));
    const release = r.release.filter((x) => still.has(x.id));
    if (release.length) await releaseHolds(tx, release);
    const fresh = r.take > 0 ? await takeDue(tx, r.take, r.have) : [];
    const waiting = r.askWaiting ? await othersDue(tx, [...r.have, ...fresh.map((f) => f.id)]) : false;
    const released = new Set(release.map((x) => x.id));
    const reads = [
      ...r.refill.filter((x) => still.get(x.id) === true && !released.has(x.id)),
      ...r.renew.filter((id) => still.get(id) !== undefined && !released.has(id)).map((id) => ({ id, n: 0 })),
      ...fresh.map((s) => ({ id: s.id, n: r.perTaken })),
    ];
    const deliveries = reads.length ? await readAhead(tx, r, reads) : [];
    return {
      kept: [...still].filter(([id]) => !released.has(id)).map(([id, active]) => ({ id, active })),
      taken: fresh.map((s) => s.id),
      waiting,
      deliveries,
    };
  });
}
