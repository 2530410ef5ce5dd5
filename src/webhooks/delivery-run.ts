import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Attempted, attempt } from './attempt.ts';
import { type Claimed, claimDue, scheduleNextWake } from './delivery-queries.ts';
import { recordAttempts } from './record-attempts.ts';
import { secretsKey } from './secrets.ts';
import { PER_SUBSCRIPTION_IN_FLIGHT, type WebhookSettings } from './settings.ts';

/**
 * A finished attempt holds its subscription's slot until it is written (the cap counts leases, across
 * workers), so outcomes are written as soon as the previous write is done: one write in flight at a
 * time, each taking whatever finished meanwhile (at most FLUSH_MAX).
 */
const FLUSH_MAX = 500;
const TICK_MS = 50;
const WRITE_RETRIES = 5;
/** After a claim found nothing, the next waits this long (unless an attempt or a flush frees work). */
const IDLE_CLAIM_MS = 100;
/** Subscriptions one claim visits at most: a claim stays one short transaction. */
const SUBSCRIPTIONS_PER_CLAIM = 200;

/**
 * A lease outlasts everything an attempt can take (the address check and the request each have the
 * deadline) plus the time to record it, so no other worker attempts a delivery while its attempt may
 * still be out. A worker that dies frees its deliveries when their leases end.
 */
export function leaseMs(s: WebhookSettings): number {
  return 2 * s.timeoutMs + 5_000;
}

/** Everything a run changes as it goes, in one place. */
interface RunState {
  inFlight: number;
  /** Attempts finished and not yet written. */
  results: Attempted[];
  claiming: boolean;
  flushing: boolean;
  /** Completed flushes; a claim that found nothing counts only if it began after the last one. */
  flushes: number;
  /** The flush count when the last empty claim began, or -1 once a claim found work. */
  emptyAfterFlush: number;
  lastEmptyClaimAt: number;
  attempts: number;
  /**
   * A claim or a write that failed for good: nothing new is claimed, what is out finishes, and
   * outcomes are still written (after a failed claim); the run then ends with it.
   */
  failure: unknown;
  /** The last write failed for good: outcomes can no longer be written (their leases will end). */
  writeFailed: boolean;
  /** Writes retried after a deadlock or serialization failure, in a row. */
  writeRetries: number;
  /** The worker is shutting down: no new claims; what is out finishes and is written. */
  stopping: boolean;
}

/**
 * One worker's delivery run: claims due deliveries into its free slots (row claims with leases, so
 * any number of workers share the work), sends them, and writes the outcomes in batches, until a
 * claim made after the last write finds nothing and nothing is out. The per-subscription cap and
 * the order within a subscription are the claim's (src/webhooks/delivery-queries.ts); this object
 * only keeps its slots full.
 */
export class DeliveryRun {
  private readonly state: RunState = {
    inFlight: 0,
    results: [],
    claiming: false,
    flushing: false,
    flushes: 0,
    emptyAfterFlush: -1,
    lastEmptyClaimAt: 0,
    attempts: 0,
    failure: undefined,
    writeFailed: false,
    writeRetries: 0,
    stopping: false,
  };
  private readonly token = randomUUID();
  private readonly key: Buffer;
  private wakeUp: (() => void) | undefined;
  private poked = false;

  private readonly em: EntityManager;
  private readonly settings: WebhookSettings;

  constructor(em: EntityManager, settings: WebhookSettings) {
    this.em = em;
    this.settings = settings;
    this.key = secretsKey(settings.secretKey);
  }

  /** Something changed (work may be due): look again now instead of after the idle pause. */
  poke = (): void => {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    if (wake) wake();
    else this.poked = true;
  };

  /** Ends the run soon: what is out finishes (within the deadline) and is written; nothing new is claimed. */
  stop = (): void => {
    this.state.stopping = true;
    this.poke();
  };

  /** Runs until drained; returns the attempts made. Throws a claim's or a write's failure. */
  async run(): Promise<number> {
    const ticker = setInterval(this.poke, TICK_MS);
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
    if (!st.writeFailed) this.maybeFlush();
    if (st.failure) {
      const settled = st.inFlight === 0 && !st.claiming && !st.flushing;
      return settled && (st.writeFailed || st.results.length === 0) ? 'done' : 'wait';
    }
    if (!st.stopping) this.maybeClaim();
    const idle = st.inFlight === 0 && !st.claiming && !st.flushing && st.results.length === 0;
    return idle && (st.stopping || st.emptyAfterFlush === st.flushes) ? 'done' : 'wait';
  }

  private maybeClaim(): void {
    const st = this.state;
    const free = this.settings.concurrency - st.inFlight;
    if (st.claiming || free <= 0) return;
    // Claim in batches while busy: one round trip fills many slots.
    if (st.inFlight > 0 && free < Math.max(1, Math.floor(this.settings.concurrency / 8))) return;
    if (Date.now() - st.lastEmptyClaimAt < IDLE_CLAIM_MS && st.emptyAfterFlush === st.flushes) return;
    st.claiming = true;
    const flushesAtStart = st.flushes;
    claimDue(this.em.fork(), {
      deliveries: free,
      subscriptions: SUBSCRIPTIONS_PER_CLAIM,
      perSubscription: PER_SUBSCRIPTION_IN_FLIGHT,
      leaseMs: leaseMs(this.settings),
      token: this.token,
    })
      .then((claimed) => {
        if (claimed.length === 0) {
          st.lastEmptyClaimAt = Date.now();
          st.emptyAfterFlush = flushesAtStart;
        } else {
          st.emptyAfterFlush = -1;
          for (const d of claimed) this.send(d);
        }
      })
      .catch((err: unknown) => {
        st.failure ??= err;
      })
      .finally(() => {
        st.claiming = false;
        this.poke();
      });
  }

  private send(d: Claimed): void {
    const st = this.state;
    st.inFlight++;
    st.attempts++;
    // attempt() never rejects.
    void attempt(d, this.settings, this.key).then((result) => {
      st.inFlight--;
      st.results.push(result);
      this.poke();
    });
  }

  private maybeFlush(): void {
    const st = this.state;
    if (st.flushing || st.results.length === 0) return;
    const batch = st.results.splice(0, FLUSH_MAX);
    st.flushing = true;
    recordAttempts(this.em.fork(), this.settings, batch, this.token)
      .then(() => {
        st.flushes++;
        st.writeRetries = 0;
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
        this.poke();
      });
  }
}

/**
 * One drain of the due deliveries, then a wake-up for when the next work falls due (a retry, a
 * lease that may end unwritten). The caller of a long-lived run schedules it once the run is no
 * longer reachable, so a wake-up that arrives as the run ends is not lost.
 */
export async function deliverDue(em: EntityManager, s: WebhookSettings): Promise<number> {
  const n = await new DeliveryRun(em, s).run();
  await scheduleNextWake(em.fork());
  return n;
}
