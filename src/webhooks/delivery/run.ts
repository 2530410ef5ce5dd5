import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PER_SUBSCRIPTION_IN_FLIGHT, type WebhookSettings } from '../settings.ts';
import { type Attempted, attemptDelivery } from './attempt-delivery.ts';
import { recordAttempts } from './record-attempts.ts';
import { type Claimed, deliveryRound, type RoundRequest } from './round.ts';
import { secretsKey } from './signing-secrets.ts';

/** Outcomes one write takes at most; one write is in flight at a time. */
const FLUSH_MAX = 1000;
/**
 * Outcomes wait for a write until this many are in, or the oldest has waited FLUSH_AFTER_MS: a slot
 * is free as soon as its attempt ends, so only the log and the release wait, and a write of 200 costs
 * PostgreSQL far less than 25 writes of 8 (each with its locks and its commit).
 */
const FLUSH_MIN = 200;
const FLUSH_AFTER_MS = 25;
const TICK_MS = 25;
const WRITE_RETRIES = 5;
/** After a round found no new subscription, the next looks again this long after (unless woken). */
const IDLE_TAKE_MS = 100;
/** A held subscription whose last read came back short is read again no sooner than this. */
const IDLE_READ_MS = 100;
/** Subscriptions one round takes at most: a round stays one short transaction. */
const SUBSCRIPTIONS_PER_ROUND = 200;
/** Read ahead: about this much of a subscription's work at its receiver's pace, within bounds. */
const READ_AHEAD_MS = 500;
const MAX_READ_AHEAD = 250;
/** While other subscriptions wait for room, one is held this long before it goes to the back. */
const TURN_MS = 2000;
/** How often a round looks whether subscriptions wait that no worker has room for. */
const WAITING_ASK_MS = 250;
/** A subscription whose turn ended and whose last attempts are out this long is served again. */
const TURN_HANG_MS = 1000;

/**
 * A hold outlasts what an attempt can take (the address check and the request each have the
 * deadline) plus 1 s to write it, counted from the last moment an attempt may start, which is 3 s
 * after a round renewed it; rounds renew holds every second. A worker that dies frees its
 * subscriptions when their holds end: twice the deadline and 4 s.
 */
export function holdTimes(s: WebhookSettings) {
  const startBefore = 2 * s.timeoutMs + 1_000;
  return { holdMs: startBefore + 3_000, startBefore, renewBefore: startBefore + 2_000 };
}

/** One held subscription: its read-ahead, what is out, and its receiver's pace. */
interface Held {
  id: number;
  /** Read, in due order, not yet started. */
  queue: Claimed[];
  /** Read and not yet written (queued, out, or finished): never read again meanwhile. */
  taken: Set<string>;
  inFlight: number;
  /** When each attempt out started: an attempt out far longer than the pace is a hung one. */
  outSince: Map<string, number>;
  /** By this process's clock (performance.now), from the start of the round that last renewed it. */
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
interface RunState {
  held: Map<number, Held>;
  inFlight: number;
  /** Attempts finished and not yet written. */
  results: Attempted[];
  /** When the oldest of `results` finished (performance.now). */
  oldestResultAt: number;
  rounding: boolean;
  flushing: boolean;
  /** Another subscription was due that the last round had no room for. */
  waiting: boolean;
  /** When a round last looked whether others wait (performance.now). */
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
  /** Where the next pass over the held subscriptions starts, so slots go round. */
  cursor: number;
}

/**
 * One worker's delivery run. It holds subscriptions (src/webhooks/delivery-queries.ts): while it
 * holds one, no other worker sends that subscription's deliveries, so the run keeps up to the cap
 * out for each from a read-ahead queue and refills the queue before it runs dry, with no write per
 * delivery before it goes out. Outcomes are written in batches, one write at a time. The run takes
 * subscriptions while it has room for their full cap, lets one go when it is empty (or its turn is
 * over while others wait), and ends when it holds nothing and a round found nothing to take.
 */
export class DeliveryRun {
  private readonly state: RunState = {
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
    cursor: 0,
  };
  private readonly token = randomUUID();
  private readonly key: Buffer;
  private readonly times: ReturnType<typeof holdTimes>;
  private wakeUp: (() => void) | undefined;
  private poked = false;
  /** Woken from outside (new work may be due): look for subscriptions now, not after the idle pause. */
  private woken = false;

  private readonly em: EntityManager;
  private readonly settings: WebhookSettings;

  constructor(em: EntityManager, settings: WebhookSettings) {
    this.em = em;
    this.settings = settings;
    this.key = secretsKey(settings.secretKey);
    this.times = holdTimes(settings);
  }

  /** Something changed (work may be due): look again now instead of after the idle pause. */
  poke = (): void => {
    this.woken = true;
    this.nudge();
  };

  /** Ends the run soon: what is out finishes (within the deadline), is written, and its subscriptions let go. */
  stop = (): void => {
    this.state.stopping = true;
    this.nudge();
  };

  private nudge = (): void => {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    if (wake) wake();
    else this.poked = true;
  };

  /** Runs until drained; returns the attempts made. Throws a round's or a write's failure. */
  async run(): Promise<number> {
    const ticker = setInterval(this.nudge, TICK_MS);
    try {
      for (;;) {
        this.poked = false;
        if (this.step() === 'done') break;
        if (this.poked) continue;
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
        });
      }
    } finally {
      clearInterval(ticker);
    }
    if (this.state.failure) throw this.state.failure;
    return this.state.attempts;
  }

  private step(): 'wait' | 'done' {
    const st = this.state;
    if (st.stopping || st.failure) for (const h of st.held.values()) this.close(h, true);
    if (!st.writeFailed) this.maybeFlush();
    if (!st.failure) this.pump();
    if (!st.failure) this.maybeRound();
    const settled = st.inFlight === 0 && !st.rounding && !st.flushing;
    if (st.failure) return settled && (st.writeFailed || st.results.length === 0) ? 'done' : 'wait';
    return settled && st.results.length === 0 && st.held.size === 0 && (st.drained || st.stopping)
      ? 'done'
      : 'wait';
  }

  /** Stops reading for a subscription; `dropQueue` also gives back what it read and has not started. */
  private close(h: Held, dropQueue: boolean): void {
    h.closing = true;
    if (!dropQueue) return;
    // Closed for good (stop, switched off, lost), not for a turn: never opened again.
    h.turnEndedAt = null;
    for (const d of h.queue) h.taken.delete(d.id);
    h.queue = [];
  }

  /**
   * Starts attempts into free slots: each subscription up to its cap, taking turns from where the
   * last pass stopped so that when slots run short no subscription always comes first.
   */
  private pump(): void {
    const st = this.state;
    const concurrency = this.settings.concurrency;
    if (st.held.size === 0 || st.inFlight >= concurrency) return;
    const held = [...st.held.values()];
    const now = performance.now();
    const start = st.cursor % held.length;
    for (let i = 0; i < held.length && st.inFlight < concurrency; i++) {
      const h = held[(start + i) % held.length] as Held;
      // Too little of the hold left for an attempt and its write: wait for the next renewal.
      if (h.lost || h.queue.length === 0 || h.heldUntil - now < this.times.startBefore) continue;
      while (h.inFlight < PER_SUBSCRIPTION_IN_FLIGHT && h.queue.length > 0 && st.inFlight < concurrency) {
        this.send(h, h.queue.shift() as Claimed);
      }
      st.cursor = (start + i + 1) % held.length;
    }
  }

  private send(h: Held, d: Claimed): void {
    const st = this.state;
    st.inFlight++;
    h.inFlight++;
    h.outSince.set(d.id, performance.now());
    st.attempts++;
    // attemptDelivery() never rejects.
    void attemptDelivery(d, this.settings, this.key).then((result) => {
      st.inFlight--;
      h.inFlight--;
      h.outSince.delete(d.id);
      // A 410: its write switches the subscription off, so what it read is not sent meanwhile.
      if (result.outcome === 'gone') this.close(h, true);
      h.latencyMs = 0.8 * h.latencyMs + 0.2 * result.durationMs;
      if (st.results.length === 0) st.oldestResultAt = performance.now();
      st.results.push(result);
      this.nudge();
    });
  }

  /** How many deliveries of a subscription to hold read: about READ_AHEAD_MS of its work. */
  private depth(h: Held): number {
    const cap = PER_SUBSCRIPTION_IN_FLIGHT;
    return Math.min(
      MAX_READ_AHEAD,
      Math.max(cap, Math.round((cap * READ_AHEAD_MS) / Math.max(1, h.latencyMs))),
    );
  }

  /** Its oldest attempt out has been out far longer than its receiver takes. */
  private hangs(h: Held, now: number): boolean {
    let oldest = now;
    for (const since of h.outSince.values()) oldest = Math.min(oldest, since);
    return now - oldest > Math.max(TURN_HANG_MS, 3 * h.latencyMs);
  }

  private empty(h: Held): boolean {
    return h.queue.length === 0 && h.inFlight === 0 && h.taken.size === 0;
  }

  /** What the next round should do, or null when there is nothing to do. */
  private plan(now: number): RoundRequest | null {
    const st = this.state;
    const cap = PER_SUBSCRIPTION_IN_FLIGHT;
    const r: RoundRequest = {
      token: this.token,
      holdMs: this.times.holdMs,
      refill: [],
      renew: [],
      release: [],
      taken: [],
      have: [...st.held.keys()],
      take: 0,
      perTaken: 0,
      askWaiting: false,
    };
    let room = this.settings.concurrency;
    for (const h of st.held.values()) {
      if (h.lost) {
        room -= h.inFlight;
        continue;
      }
      if (!h.closing && st.waiting && now - h.since > TURN_MS) {
        // Its turn is over: what it read and has not started goes back; it is let go once what is
        // out has ended and is written.
        this.close(h, true);
        h.turnEndedAt = now;
      }
      // Its turn ended but an attempt out hangs (far past its receiver's pace): the subscription keeps
      // that slot either way until the deadline, so its other slots serve it again meanwhile, for a
      // new turn. A slow but answering receiver is not reopened: it is let go when its attempts end.
      if (h.turnEndedAt !== null && h.inFlight > 0 && this.hangs(h, now)) {
        h.closing = false;
        h.turnEndedAt = null;
        h.since = now;
      }
      const drained = h.drainedAt !== null && now - h.drainedAt < IDLE_READ_MS;
      if (this.empty(h) && (h.closing || h.drainedAt !== null)) {
        r.release.push({ id: h.id, toBack: h.closing && !st.stopping && !st.failure });
        continue;
      }
      const depth = this.depth(h);
      if (!h.closing && !drained && h.queue.length <= depth / 2) {
        r.refill.push({ id: h.id, n: depth - h.queue.length });
      } else if (h.heldUntil - now < this.times.renewBefore) {
        r.renew.push(h.id);
      }
      room -= h.closing || h.drainedAt !== null ? Math.min(cap, h.inFlight + h.queue.length) : cap;
    }
    const lookForNew = this.woken || now - st.lastShortTakeAt >= IDLE_TAKE_MS;
    if (!st.stopping && lookForNew) {
      r.take = Math.min(SUBSCRIPTIONS_PER_ROUND, Math.floor(Math.max(0, room) / cap));
      // A worker with fewer slots than the cap still takes one subscription when it holds none.
      if (r.take === 0 && st.held.size === 0 && this.settings.concurrency > 0) r.take = 1;
      r.perTaken = Math.min(MAX_READ_AHEAD, Math.max(cap, Math.round(READ_AHEAD_MS / 50) * cap));
      // Whether others wait decides only when turns end (seconds): looked up a few times a second.
      r.askWaiting = r.take < SUBSCRIPTIONS_PER_ROUND && now - st.waitingAskedAt >= WAITING_ASK_MS;
      if (r.askWaiting) st.waitingAskedAt = now;
    }
    if (r.refill.length) {
      for (const x of r.refill) for (const id of st.held.get(x.id)?.taken ?? []) r.taken.push(id);
    }
    const idleTake = r.take === 0 && (st.stopping || !lookForNew || st.held.size > 0);
    if (r.refill.length === 0 && r.renew.length === 0 && r.release.length === 0 && idleTake) return null;
    return r;
  }

  private maybeRound(): void {
    const st = this.state;
    if (st.rounding) return;
    const startedAt = performance.now();
    const r = this.plan(startedAt);
    if (!r) return;
    st.rounding = true;
    this.woken = false;
    deliveryRound(this.em.fork(), r)
      .then((res) => {
        st.roundRetries = 0;
        this.apply(r, res, startedAt);
      })
      .catch((err: unknown) => {
        // A round is one transaction: after a deadlock or a snapshot conflict nothing of it happened,
        // and the next step plans it again.
        const code = (err as { code?: string }).code;
        if ((code === '40P01' || code === '40001') && st.roundRetries < WRITE_RETRIES) {
          st.roundRetries++;
          return;
        }
        st.failure ??= err;
      })
      .finally(() => {
        st.rounding = false;
        this.nudge();
      });
  }

  /** Takes in what a round did: holds kept, lost, let go and taken, and what was read. */
  private apply(r: RoundRequest, res: Awaited<ReturnType<typeof deliveryRound>>, startedAt: number): void {
    const st = this.state;
    const heldUntil = startedAt + this.times.holdMs;
    const kept = new Map(res.kept.map((k) => [k.id, k.active]));
    for (const x of r.release) st.held.delete(x.id);
    for (const id of [...r.refill.map((x) => x.id), ...r.renew]) {
      const h = st.held.get(id);
      if (!h) continue;
      const active = kept.get(id);
      if (active === undefined) {
        // Taken over after the hold ran out: give back what it read, finish what is out.
        h.lost = true;
        this.close(h, true);
        if (this.empty(h)) st.held.delete(id);
        continue;
      }
      h.heldUntil = heldUntil;
      if (!active) this.close(h, true);
    }
    for (const id of res.taken) {
      st.held.set(id, {
        id,
        queue: [],
        taken: new Set(),
        inFlight: 0,
        outSince: new Map(),
        heldUntil,
        since: startedAt,
        drainedAt: null,
        closing: false,
        turnEndedAt: null,
        lost: false,
        latencyMs: 50,
      });
    }
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
    if (r.askWaiting) st.waiting = res.waiting;
    if (r.take > 0 && res.taken.length < r.take) st.lastShortTakeAt = startedAt;
    // A release may have let go of a subscription that has work again: only a later round, which can
    // take it, may find the run drained.
    st.drained = st.held.size === 0 && r.take > 0 && res.taken.length === 0 && r.release.length === 0;
  }

  private maybeFlush(): void {
    const st = this.state;
    if (st.flushing || st.results.length === 0) return;
    const due =
      st.results.length >= FLUSH_MIN ||
      performance.now() - st.oldestResultAt >= FLUSH_AFTER_MS ||
      st.stopping ||
      st.failure !== undefined ||
      st.inFlight === 0;
    if (!due) return;
    const batch = st.results.splice(0, FLUSH_MAX);
    st.oldestResultAt = performance.now();
    st.flushing = true;
    recordAttempts(this.em.fork(), this.settings, batch, this.token)
      .then(() => {
        st.writeRetries = 0;
        for (const a of batch) st.held.get(a.delivery.subscription_id)?.taken.delete(a.delivery.id);
        for (const h of [...st.held.values()]) if (h.lost && this.empty(h)) st.held.delete(h.id);
      })
      .catch((err: unknown) => {
        // Two writers met in a cycle or a snapshot conflict: the batch goes back and is written again.
        const code = (err as { code?: string }).code;
        if ((code === '40P01' || code === '40001') && st.writeRetries < WRITE_RETRIES) {
          st.writeRetries++;
          st.results.unshift(...batch);
          return;
        }
        st.writeFailed = true;
        st.failure ??= err;
      })
      .finally(() => {
        st.flushing = false;
        this.nudge();
      });
  }
}
