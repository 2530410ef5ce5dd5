import type { RoundRequest, RoundResult } from './round.ts';
import {
  closeHeld,
  type HeldSubscription,
  IDLE_READ_MS,
  IDLE_TAKE_MS,
  isEmpty,
  isRetryable,
  MAX_READ_AHEAD,
  newHeld,
  READ_AHEAD_MS,
  type RunLimits,
  type RunState,
  SUBSCRIPTIONS_PER_ROUND,
  TURN_HANG_MS,
  TURN_MS,
  WAITING_ASK_MS,
  WRITE_RETRIES,
} from './run-state.ts';

/**
 * The plan of a round (round.ts applies it in one transaction): which held subscriptions to read
 * more of, renew or let go, and how many new ones to take; then what its answer changes. No IO and
 * no clock: `now` is given.
 */

/** How many deliveries of a subscription to hold read: about READ_AHEAD_MS of its work. */
export function readAheadDepth(h: HeldSubscription, cap: number): number {
  return Math.min(
    MAX_READ_AHEAD,
    Math.max(cap, Math.round((cap * READ_AHEAD_MS) / Math.max(1, h.latencyMs))),
  );
}

/** Its oldest attempt out has been out far longer than its receiver takes. */
export function hangs(h: HeldSubscription, now: number): boolean {
  let oldest = now;
  for (const since of h.outSince.values()) oldest = Math.min(oldest, since);
  return now - oldest > Math.max(TURN_HANG_MS, 3 * h.latencyMs);
}

/**
 * Ends a turn while others wait, or reopens one whose attempt out hangs (it keeps that slot until
 * the deadline either way, so its other slots serve it again meanwhile, for a new turn; a slow but
 * answering receiver is not reopened: it is let go when its attempts end).
 */
function takeTurns(st: RunState, h: HeldSubscription, now: number): void {
  if (!h.closing && st.waiting && now - h.since > TURN_MS) {
    // What it read and has not started goes back; it is let go once what is out is written.
    closeHeld(h, true);
    h.turnEndedAt = now;
  }
  if (h.turnEndedAt !== null && h.inFlight > 0 && hangs(h, now)) {
    h.closing = false;
    h.turnEndedAt = null;
    h.since = now;
  }
}

/** Adds one held subscription's part to the round; answers the slots it keeps. */
function planHeld(
  st: RunState,
  h: HeldSubscription,
  limits: RunLimits,
  now: number,
  r: RoundRequest,
): number {
  const cap = limits.perSubscription;
  if (h.lost) return h.inFlight;
  takeTurns(st, h, now);
  if (isEmpty(h) && (h.closing || h.drainedAt !== null)) {
    r.release.push({ id: h.id, toBack: h.closing && !st.stopping && !st.failure });
    return 0;
  }
  const drained = h.drainedAt !== null && now - h.drainedAt < IDLE_READ_MS;
  const depth = readAheadDepth(h, cap);
  if (!h.closing && !drained && h.queue.length <= depth / 2) {
    r.refill.push({ id: h.id, n: depth - h.queue.length });
  } else if (h.heldUntil - now < limits.renewBefore) {
    r.renew.push(h.id);
  }
  return h.closing || h.drainedAt !== null ? Math.min(cap, h.inFlight + h.queue.length) : cap;
}

/** How many new subscriptions the round takes, with the room left: each needs its full cap. */
function planTake(st: RunState, limits: RunLimits, now: number, room: number, r: RoundRequest): boolean {
  const cap = limits.perSubscription;
  const lookForNew = st.woken || now - st.lastShortTakeAt >= IDLE_TAKE_MS;
  if (st.stopping || !lookForNew) return lookForNew;
  r.take = Math.min(SUBSCRIPTIONS_PER_ROUND, Math.floor(Math.max(0, room) / cap));
  // A worker with fewer slots than the cap still takes one subscription when it holds none.
  if (r.take === 0 && st.held.size === 0 && limits.concurrency > 0) r.take = 1;
  r.perTaken = Math.min(MAX_READ_AHEAD, Math.max(cap, Math.round(READ_AHEAD_MS / 50) * cap));
  // Whether others wait decides only when turns end (seconds): looked up a few times a second.
  r.askWaiting = r.take < SUBSCRIPTIONS_PER_ROUND && now - st.waitingAskedAt >= WAITING_ASK_MS;
  if (r.askWaiting) st.waitingAskedAt = now;
  return lookForNew;
}

/** What the next round should do, or null when there is nothing to do. */
export function planRound(st: RunState, limits: RunLimits, now: number): RoundRequest | null {
  const r: RoundRequest = {
    token: limits.token,
    holdMs: limits.holdMs,
    refill: [],
    renew: [],
    release: [],
    taken: [],
    have: [...st.held.keys()],
    take: 0,
    perTaken: 0,
    askWaiting: false,
  };
  let room = limits.concurrency;
  for (const h of st.held.values()) room -= planHeld(st, h, limits, now, r);
  const lookForNew = planTake(st, limits, now, room, r);
  for (const x of r.refill) for (const id of st.held.get(x.id)?.taken ?? []) r.taken.push(id);
  const idleTake = r.take === 0 && (st.stopping || !lookForNew || st.held.size > 0);
  if (r.refill.length === 0 && r.renew.length === 0 && r.release.length === 0 && idleTake) return null;
  return r;
}

/** A round starts when none is running and there is something to do; answers its plan. */
export function startRound(st: RunState, limits: RunLimits, now: number): RoundRequest | null {
  if (st.rounding) return null;
  const r = planRound(st, limits, now);
  if (!r) return null;
  st.rounding = true;
  st.woken = false;
  return r;
}

/** Holds kept, lost and let go by a round started at `startedAt`. */
function keepHolds(st: RunState, r: RoundRequest, res: RoundResult, heldUntil: number): void {
  const kept = new Map(res.kept.map((k) => [k.id, k.active]));
  for (const x of r.release) st.held.delete(x.id);
  for (const id of [...r.refill.map((x) => x.id), ...r.renew]) {
    const h = st.held.get(id);
    if (!h) continue;
    const active = kept.get(id);
    if (active === undefined) {
      // Taken over after the hold ran out: give back what it read, finish what is out.
      h.lost = true;
      closeHeld(h, true);
      if (isEmpty(h)) st.held.delete(id);
      continue;
    }
    h.heldUntil = heldUntil;
    if (!active) closeHeld(h, true);
  }
}

/** Queues what the round read; a subscription whose read came back short is drained for now. */
function queueRead(st: RunState, r: RoundRequest, res: RoundResult, startedAt: number): void {
  const read = new Map<number, number>();
  for (const d of res.deliveries) {
    const h = st.held.get(d.subscription_id);
    if (!h || h.closing) continue;
    h.queue.push(d);
    h.taken.add(d.id);
    read.set(h.id, (read.get(h.id) ?? 0) + 1);
  }
  const asked = new Map<number, number>([
    ...r.refill.map((x) => [x.id, x.n] as [number, number]),
    ...res.taken.map((id) => [id, r.perTaken] as [number, number]),
  ]);
  for (const [id, n] of asked) {
    const h = st.held.get(id);
    if (h) h.drainedAt = (read.get(id) ?? 0) < n ? startedAt : null;
  }
}

/** Takes in what a round did: holds kept, lost, let go and taken, and what was read. */
export function roundDone(
  st: RunState,
  limits: RunLimits,
  r: RoundRequest,
  res: RoundResult,
  startedAt: number,
): void {
  st.rounding = false;
  st.roundRetries = 0;
  const heldUntil = startedAt + limits.holdMs;
  keepHolds(st, r, res, heldUntil);
  for (const id of res.taken) st.held.set(id, newHeld(id, heldUntil, startedAt));
  queueRead(st, r, res, startedAt);
  if (r.askWaiting) st.waiting = res.waiting;
  if (r.take > 0 && res.taken.length < r.take) st.lastShortTakeAt = startedAt;
  // A release may have let go of a subscription that has work again: only a later round, which can
  // take it, may find the run drained.
  st.drained = st.held.size === 0 && r.take > 0 && res.taken.length === 0 && r.release.length === 0;
}

/**
 * A round is one transaction: after a deadlock or a snapshot conflict nothing of it happened, and
 * the next step plans it again; any other failure ends the run.
 */
export function roundFailed(st: RunState, err: unknown): void {
  st.rounding = false;
  if (isRetryable(err) && st.roundRetries < WRITE_RETRIES) {
    st.roundRetries++;
    return;
  }
  st.failure ??= err;
}
