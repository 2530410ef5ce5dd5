import type { Attempted, Outcome } from './attempt-delivery.ts';

/**
 * When a delivery is tried again: the one place that decides it. An attempt that failed (or whose
 * address was refused) is retried after the schedule's step for its round (`WEBHOOK_RETRY_SCHEDULE`,
 * milliseconds), and dead-lettered after the last; a success ends it, a 410 discards it. The
 * subscription follows from its deliveries: its hold's release makes it due again at its oldest
 * pending one (round.ts), and the deliveries' trigger only brings it forward for new work
 * (docs/decisions.md, "Webhook retry timing, one place").
 */

export type DeliveryStatus = 'succeeded' | 'discarded' | 'pending' | 'dead';

export interface NextStep {
  /** Attempts of this round, this one included. */
  round: number;
  status: DeliveryStatus;
  /** How long until the retry, or null when there is none. */
  waitMs: number | null;
}

/** The next step of a delivery whose attempt (its round's `roundAttempts + 1`th) ended in `outcome`. */
export function nextStep(outcome: Outcome, roundAttempts: number, schedule: readonly number[]): NextStep {
  const round = roundAttempts + 1;
  const retry = (outcome === 'failed' || outcome === 'refused') && round < schedule.length + 1;
  const status: DeliveryStatus =
    outcome === 'succeeded' ? 'succeeded' : outcome === 'gone' ? 'discarded' : retry ? 'pending' : 'dead';
  return { round, status, waitMs: retry ? (schedule[round - 1] ?? 0) : null };
}

export interface Planned extends NextStep {
  a: Attempted;
}

/** Each attempt of a batch with its delivery's next step. */
export function planOutcomes(done: Attempted[], schedule: readonly number[]): Planned[] {
  return done.map((a) => ({ a, ...nextStep(a.outcome, a.delivery.round_attempts, schedule) }));
}
