import type { Attempted } from './attempt-delivery.ts';
import type { Claimed } from './round.ts';
import {
  closeHeld,
  FLUSH_AFTER_MS,
  FLUSH_MAX,
  FLUSH_MIN,
  type HeldSubscription,
  isEmpty,
  isRetryable,
  type RunLimits,
  type RunState,
  WRITE_RETRIES,
} from './run-state.ts';

/**
 * The plan of a run's slots and writes: which attempts start, what an ended attempt changes, when
 * outcomes are written and what their write changes, and when the run is over. No IO and no
 * clock: `now` is given; run.ts sends and writes what these decide.
 */

export interface Send {
  held: HeldSubscription;
  delivery: Claimed;
}

/**
 * Attempts to start now, marked out: each subscription up to its cap, taking turns from where the
 * last pass stopped so that when slots run short no subscription always comes first.
 */
export function planSends(st: RunState, limits: RunLimits, now: number): Send[] {
  const sends: Send[] = [];
  if (st.held.size === 0 || st.inFlight >= limits.concurrency) return sends;
  const held = [...st.held.values()];
  const start = st.cursor % held.length;
  for (let i = 0; i < held.length && st.inFlight < limits.concurrency; i++) {
    const h = held[(start + i) % held.length] as HeldSubscription;
    // Too little of the hold left for an attempt and its write: wait for the next renewal.
    if (h.lost || h.queue.length === 0 || h.heldUntil - now < limits.startBefore) continue;
    while (h.inFlight < limits.perSubscription && h.queue.length > 0 && st.inFlight < limits.concurrency) {
      const delivery = h.queue.shift() as Claimed;
      st.inFlight++;
      h.inFlight++;
      h.outSince.set(delivery.id, now);
      st.attempts++;
      sends.push({ held: h, delivery });
    }
    st.cursor = (start + i + 1) % held.length;
  }
  return sends;
}

/** An attempt ended: its slot is free, its outcome waits for a write. */
export function attemptEnded(st: RunState, h: HeldSubscription, result: Attempted, now: number): void {
  st.inFlight--;
  h.inFlight--;
  h.outSince.delete(result.delivery.id);
  // A 410: its write switches the subscription off, so what it read is not sent meanwhile.
  if (result.outcome === 'gone') closeHeld(h, true);
  h.latencyMs = 0.8 * h.latencyMs + 0.2 * result.durationMs;
  if (st.results.length === 0) st.oldestResultAt = now;
  st.results.push(result);
}

/** The outcomes to write now (marked as being written), or null: one write at a time, in batches. */
export function startFlush(st: RunState, now: number): Attempted[] | null {
  if (st.writeFailed || st.flushing || st.results.length === 0) return null;
  const due =
    st.results.length >= FLUSH_MIN ||
    now - st.oldestResultAt >= FLUSH_AFTER_MS ||
    st.stopping ||
    st.failure !== undefined ||
    st.inFlight === 0;
  if (!due) return null;
  const batch = st.results.splice(0, FLUSH_MAX);
  st.oldestResultAt = now;
  st.flushing = true;
  return batch;
}

/** The batch is written: its deliveries may be read again, and a lost subscription let go once empty. */
export function flushDone(st: RunState, batch: Attempted[]): void {
  st.flushing = false;
  st.writeRetries = 0;
  for (const a of batch) st.held.get(a.delivery.subscription_id)?.taken.delete(a.delivery.id);
  for (const h of [...st.held.values()]) if (h.lost && isEmpty(h)) st.held.delete(h.id);
}

/** Two writers met in a cycle or a snapshot conflict: the batch goes back and is written again. */
export function flushFailed(st: RunState, batch: Attempted[], err: unknown): void {
  st.flushing = false;
  if (isRetryable(err) && st.writeRetries < WRITE_RETRIES) {
    st.writeRetries++;
    st.results.unshift(...batch);
    return;
  }
  st.writeFailed = true;
  st.failure ??= err;
}

/** Stopping or failed: nothing more is read or started; what is out finishes. */
export function closeAllIfEnding(st: RunState): void {
  if (st.stopping || st.failure) for (const h of st.held.values()) closeHeld(h, true);
}

/** Whether the run is over: nothing out, nothing being read or written, nothing held or left to write. */
export function runOver(st: RunState): boolean {
  const settled = st.inFlight === 0 && !st.rounding && !st.flushing;
  if (st.failure) return settled && (st.writeFailed || st.results.length === 0);
  return settled && st.results.length === 0 && st.held.size === 0 && (st.drained || st.stopping);
}
