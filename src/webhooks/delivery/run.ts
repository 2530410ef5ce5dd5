import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookSettings } from '../../settings.ts';
import { PER_SUBSCRIPTION_IN_FLIGHT } from '../limits.ts';
import { type Attempted, attemptDelivery } from './attempt-delivery.ts';
import { roundDone, roundFailed, startRound } from './plan-round.ts';
import {
  attemptEnded,
  closeAllIfEnding,
  flushDone,
  flushFailed,
  planSends,
  runOver,
  type Send,
  startFlush,
} from './plan-slots.ts';
import { recordAttempts } from './record-attempts.ts';
import { deliveryRound } from './round.ts';
import { holdTimes, newRunState, type RunLimits } from './run-state.ts';
import { secretsKey } from './signing-secrets.ts';

/** How often a run looks again when nothing woke it: flush timers and hold renewals need it. */
const TICK_MS = 25;

/**
 * One worker's delivery run. It holds subscriptions (round.ts): while it holds one, no other worker
 * sends that subscription's deliveries, so the run keeps up to the cap out for each from a
 * read-ahead queue and refills the queue before it runs dry, with no write per delivery before it
 * goes out. Outcomes are written in batches, one write at a time. The run takes subscriptions while
 * it has room for their full cap, lets one go when it is empty (or its turn is over while others
 * wait), and ends when it holds nothing and a round found nothing to take.
 *
 * What to take, send, release and write is decided by the plan (plan-round.ts, plan-slots.ts) over
 * one state value (run-state.ts); this class only applies it: it sends, runs rounds and writes, and
 * feeds their answers back.
 */
export class DeliveryRun {
  private readonly state = newRunState();
  private readonly limits: RunLimits;
  private readonly key: Buffer;
  private wakeUp: (() => void) | undefined;
  private poked = false;

  private readonly em: EntityManager;
  private readonly settings: WebhookSettings;

  constructor(em: EntityManager, settings: WebhookSettings) {
    this.em = em;
    this.settings = settings;
    this.key = secretsKey(settings.secretKey);
    this.limits = {
      ...holdTimes(settings),
      token: randomUUID(),
      concurrency: settings.concurrency,
      perSubscription: PER_SUBSCRIPTION_IN_FLIGHT,
    };
  }

  /** Something changed (work may be due): look again now instead of after the idle pause. */
  poke = (): void => {
    this.state.woken = true;
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
        if (this.step()) break;
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

  /** One pass: write, send, read, in that order; answers whether the run is over. */
  private step(): boolean {
    const st = this.state;
    closeAllIfEnding(st);
    const batch = startFlush(st, performance.now());
    if (batch) this.write(batch);
    if (!st.failure) for (const s of planSends(st, this.limits, performance.now())) this.send(s);
    if (!st.failure) {
      const startedAt = performance.now();
      const r = startRound(st, this.limits, startedAt);
      if (r) {
        deliveryRound(this.em.fork(), r)
          .then((res) => roundDone(st, this.limits, r, res, startedAt))
          .catch((err: unknown) => roundFailed(st, err))
          .finally(this.nudge);
      }
    }
    return runOver(st);
  }

  private send({ held, delivery }: Send): void {
    // attemptDelivery() never rejects.
    void attemptDelivery(delivery, this.settings, this.key).then((result) => {
      attemptEnded(this.state, held, result, performance.now());
      this.nudge();
    });
  }

  private write(batch: Attempted[]): void {
    recordAttempts(this.em.fork(), this.settings, batch, this.limits.token)
      .then(() => flushDone(this.state, batch))
      .catch((err: unknown) => flushFailed(this.state, batch, err))
      .finally(this.nudge);
  }
}
