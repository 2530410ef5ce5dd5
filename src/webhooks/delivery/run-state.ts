import type { WebhookSettings } from '../../settings.ts';
import type { Attempted } from './attempt-delivery.ts';
import type { Claimed } from './round.ts';

/**
 * What a delivery run knows, as plain values: the plan functions (plan-round.ts, plan-slots.ts) read
 * and change it, the run (run.ts) applies what they decide. Times are a monotonic clock in
 * milliseconds (performance.now in a run; tests bring their own), never read here.
 */

/** Outcomes one write takes at most; one write is in flight at a time. */
export const FLUSH_MAX = 1000;
/**
 * Outcomes wait for a write until this many are in, or the oldest has waited FLUSH_AFTER_MS: a slot
 * is free as soon as its attempt ends, so only the log and the release wait, and a write of 200 costs
 * PostgreSQL far less than 25 writes of 8 (each with its locks and its commit).
 */
export const FLUSH_MIN = 200;
export const FLUSH_AFTER_MS = 25;
/** A round or a write that met a deadlock or a snapshot conflict is tried again this many times in a row. */
export const WRITE_RETRIES = 5;
/** After a round found no new subscription, the next looks again this long after (unless woken). */
export const IDLE_TAKE_MS = 100;
/** A held subscription whose last read came back short is read again no sooner than this. */
export const IDLE_READ_MS = 100;
/** Subscriptions one round takes at most: a round stays one short transaction. */
export const SUBSCRIPTIONS_PER_ROUND = 200;
/** Read ahead: about this much of a subscription's work at its receiver's pace, within bounds. */
export const READ_AHEAD_MS = 500;
export const MAX_READ_AHEAD = 250;
/** While other subscriptions wait for room, one is held this long before it goes to the back. */
export const TURN_MS = 2000;
/** How often a round looks whether subscriptions wait that no worker has room for. */
export const WAITING_ASK_MS = 250;
/** A subscription whose turn ended and whose last attempts are out this long is served again. */
export const TURN_HANG_MS = 1000;
/** A new subscription's receiver is assumed this fast until its attempts say otherwise. */
export const FIRST_LATENCY_MS = 50;

/**
 * A hold outlasts what an attempt can take (the address check and the request each have the
 * deadline) plus 1 s to write it, counted from the last moment an attempt may start, which is 3 s
 * after a round renewed it; rounds renew holds every second. A worker that dies frees its
 * subscriptions when their holds end: twice the deadline and 4 s.
 */
export function holdTimes(s: Pick<WebhookSettings, 'timeoutMs'>) {
  const startBefore = 2 * s.timeoutMs + 1_000;
  return { holdMs: startBefore + 3_000, startBefore, renewBefore: startBefore + 2_000 };
}

/** What a run is given and never changes: its hold token, its slots, its hold times. */
export interface RunLimits extends ReturnType<typeof holdTimes> {
  /** This run's hold token (a UUID). */
  token: string;
  /** Attempts out at once for the whole run. */
  concurrency: number;
  /** Attempts out at once towards one subscription. */
  perSubscription: number;
}

/** One held subscription: its read-ahead, what is out, and its receiver's pace. */
export interface HeldSubscription {
  id: number;
  /** Read, in due order, not yet started. */
  queue: Claimed[];
  /** Read and not yet written (queued, out, or finished): never read again meanwhile. */
  taken: Set<string>;
  inFlight: number;
  /** When each attempt out started: an attempt out far longer than the pace is a hung one. */
  outSince: Map<string, number>;
  /** From the start of the round that last renewed it. */
  heldUntil: number;
  since: number;
  /** When a read last came back short (its backlog is drained for now), else null. */
  drainedAt: number | null;
  /** Read no more: its turn is over, it was switched off, or the run stops. Released once empty. */
  closing: boolean;
  /** When its turn ended (it was closed only for others' sake), else null. */
  turnEndedAt: number | null;
  /** Another worker holds it now: nothing more is sent; outcomes are only logged. */
  lost: boolean;
  /** Moving average of its attempts' durations, sizing the read-ahead. */
  latencyMs: number;
}

/** Everything a run changes as it goes, in one place. */
export interface RunState {
  held: Map<number, HeldSubscription>;
  inFlight: number;
  /** Attempts finished and not yet written. */
  results: Attempted[];
  /** When the oldest of `results` finished. */
  oldestResultAt: number;
  rounding: boolean;
  flushing: boolean;
  /** Another subscription was due that the last round had no room for. */
  waiting: boolean;
  /** When a round last looked whether others wait. */
  waitingAskedAt: number;
  /** When the last round that looked for new subscriptions found fewer than it could take. */
  lastShortTakeAt: number;
  /** Nothing held, and the last round looked for new subscriptions and found none. */
  drained: boolean;
  attempts: number;
  /** A round or a write that failed for good: nothing new starts, what is out finishes; the run then ends with it. */
  failure: unknown;
  /** The last write failed for good: outcomes can no longer be written (their holds will end). */
  writeFailed: boolean;
  writeRetries: number;
  /** Rounds retried after a deadlock or serialization failure, in a row. */
  roundRetries: number;
  /** The worker is shutting down: nothing new starts; what is out finishes, is written and let go. */
  stopping: boolean;
  /** Woken from outside (new work may be due): look for subscriptions now, not after the idle pause. */
  woken: boolean;
  /** Where the next pass over the held subscriptions starts, so slots go round. */
  cursor: number;
}

export function newRunState(): RunState {
  return {
    held: new Map(),
    inFlight: 0,
    results: [],
    oldestResultAt: 0,
    rounding: false,
    flushing: false,
    waiting: false,
    waitingAskedAt: Number.NEGATIVE_INFINITY,
    lastShortTakeAt: 0,
    drained: false,
    attempts: 0,
    failure: undefined,
    writeFailed: false,
    writeRetries: 0,
    roundRetries: 0,
    stopping: false,
    woken: false,
    cursor: 0,
  };
}

export function newHeld(id: number, heldUntil: number, since: number): HeldSubscription {
  return {
    id,
    queue: [],
    taken: new Set(),
    inFlight: 0,
    outSince: new Map(),
    heldUntil,
    since,
    drainedAt: null,
    closing: false,
    turnEndedAt: null,
    lost: false,
    latencyMs: FIRST_LATENCY_MS,
  };
}

/** Stops reading for a subscription; `dropQueue` also gives back what it read and has not started. */
export function closeHeld(h: HeldSubscription, dropQueue: boolean): void {
  h.closing = true;
  if (!dropQueue) return;
  // Closed for good (stop, switched off, lost), not for a turn: never opened again.
  h.turnEndedAt = null;
  for (const d of h.queue) h.taken.delete(d.id);
  h.queue = [];
}

/** Nothing of it is queued, out, or waiting for its write. */
export function isEmpty(h: HeldSubscription): boolean {
  return h.queue.length === 0 && h.inFlight === 0 && h.taken.size === 0;
}

/** A deadlock or a snapshot conflict: the transaction did nothing and may run again. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '40P01' || code === '40001';
}
