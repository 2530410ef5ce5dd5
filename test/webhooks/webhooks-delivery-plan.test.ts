import { describe, expect, it } from 'vitest';
import type { Attempted, Outcome } from '../../src/webhooks/delivery/attempt-delivery.ts';
import { nextStep, planOutcomes } from '../../src/webhooks/delivery/backoff.ts';
import {
  hangs,
  planRound,
  readAheadDepth,
  roundDone,
  roundFailed,
  startRound,
} from '../../src/webhooks/delivery/plan-round.ts';
import {
  attemptEnded,
  closeAllIfEnding,
  flushDone,
  flushFailed,
  planSends,
  runOver,
  startFlush,
} from '../../src/webhooks/delivery/plan-slots.ts';
import type { Claimed, RoundResult } from '../../src/webhooks/delivery/round.ts';
import {
  type HeldSubscription,
  holdTimes,
  newHeld,
  newRunState,
  type RunLimits,
  type RunState,
} from '../../src/webhooks/delivery/run-state.ts';

/**
 * The delivery run's decisions, without a database or a clock: what a round asks for, what is sent,
 * when outcomes are written, when a delivery is retried, and when the run is over.
 */

const limits = (over: Partial<RunLimits> = {}): RunLimits => ({
  ...holdTimes({ timeoutMs: 10_000 }),
  token: 'token',
  concurrency: 20,
  perSubscription: 5,
  ...over,
});

let nextId = 1;
const delivery = (subscription: number, over: Partial<Claimed> = {}): Claimed => ({
  id: String(nextId++),
  subscription_id: subscription,
  store_id: 1,
  attempts: 0,
  round_attempts: 0,
  due_at: '2026-11-29 10:00:00+00',
  url: 'https://example.com/hook',
  secret_encrypted: 'x',
  event_id: '1',
  event: 'order.created',
  event_key: 'order.created:1',
  body: '{}',
  ...over,
});

const attempted = (d: Claimed, outcome: Outcome, durationMs = 50): Attempted => ({
  delivery: d,
  outcome,
  status: outcome === 'succeeded' ? 200 : null,
  error: null,
  durationMs,
});

/** A run holding these subscriptions until `until`, each with `queued` deliveries read. */
function holding(ids: number[], queued: number, until = 100_000): RunState {
  const st = newRunState();
  for (const id of ids) {
    const h = newHeld(id, until, 0);
    for (let i = 0; i < queued; i++) {
      const d = delivery(id);
      h.queue.push(d);
      h.taken.add(d.id);
    }
    st.held.set(id, h);
  }
  return st;
}

const held = (st: RunState, id: number) => st.held.get(id) as HeldSubscription;

describe('backoff: when a delivery is retried', () => {
  const schedule = [60_000, 300_000, 1_800_000];

  it('a failure waits for its round’s step of the schedule, then is dead-lettered after the last', () => {
    expect(nextStep('failed', 0, schedule)).toEqual({ round: 1, status: 'pending', waitMs: 60_000 });
    expect(nextStep('failed', 1, schedule)).toEqual({ round: 2, status: 'pending', waitMs: 300_000 });
    expect(nextStep('refused', 2, schedule)).toEqual({ round: 3, status: 'pending', waitMs: 1_800_000 });
    expect(nextStep('failed', 3, schedule)).toEqual({ round: 4, status: 'dead', waitMs: null });
  });

  it('a success ends it, a 410 discards it, whatever the round', () => {
    expect(nextStep('succeeded', 0, schedule)).toEqual({ round: 1, status: 'succeeded', waitMs: null });
    expect(nextStep('gone', 1, schedule)).toEqual({ round: 2, status: 'discarded', waitMs: null });
  });

  it('with no schedule the first failure is dead-lettered', () => {
    expect(nextStep('failed', 0, [])).toEqual({ round: 1, status: 'dead', waitMs: null });
  });

  it('a batch is planned attempt by attempt, from each delivery’s round', () => {
    const a = attempted(delivery(1, { round_attempts: 1 }), 'failed');
    const b = attempted(delivery(2), 'succeeded');
    expect(planOutcomes([a, b], schedule).map((p) => [p.a, p.status, p.waitMs])).toEqual([
      [a, 'pending', 300_000],
      [b, 'succeeded', null],
    ]);
  });
});

describe('holds and read-ahead', () => {
  it('a hold outlasts two deadlines and 4 s; attempts start only with a deadline and a write left', () => {
    expect(holdTimes({ timeoutMs: 10_000 })).toEqual({
      holdMs: 24_000,
      startBefore: 21_000,
      renewBefore: 23_000,
    });
  });

  it('reads about half a second of a receiver’s work, at least the cap and at most 250', () => {
    const h = newHeld(1, 0, 0);
    expect(readAheadDepth(h, 5)).toBe(50);
    h.latencyMs = 1000;
    expect(readAheadDepth(h, 5)).toBe(5);
    h.latencyMs = 1;
    expect(readAheadDepth(h, 5)).toBe(250);
  });

  it('an attempt out longer than 1 s and three times its receiver’s pace hangs', () => {
    const h = newHeld(1, 0, 0);
    h.outSince.set('9', 1_000);
    expect(hangs(h, 1_900)).toBe(false);
    expect(hangs(h, 2_001)).toBe(true);
    h.latencyMs = 600;
    expect(hangs(h, 2_700)).toBe(false);
    expect(hangs(h, 2_801)).toBe(true);
  });
});

describe('sends: concurrency bounds', () => {
  it('each subscription up to its cap, the run up to its slots', () => {
    const st = holding([1, 2, 3], 10);
    const sends = planSends(st, limits({ concurrency: 12 }), 0);
    expect(sends.map((s) => s.held.id)).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3]);
    expect(st.inFlight).toBe(12);
    expect(st.attempts).toBe(12);
    expect([1, 2, 3].map((id) => held(st, id).inFlight)).toEqual([5, 5, 2]);
    expect(held(st, 3).queue).toHaveLength(8);
    expect(planSends(st, limits({ concurrency: 12 }), 0)).toEqual([]);
  });

  it('slots go round: the next pass starts after the last subscription served', () => {
    const st = holding([1, 2, 3], 10);
    planSends(st, limits({ concurrency: 5 }), 0);
    expect(st.cursor).toBe(1);
    for (const s of planSends(st, limits({ concurrency: 10 }), 0)) expect(s.held.id).toBe(2);
  });

  it('nothing starts on a hold too close to its end, nor on a lost one', () => {
    const l = limits();
    const st = holding([1, 2], 3, 1_000 + l.startBefore - 1);
    held(st, 2).heldUntil = 1_000 + l.startBefore;
    held(st, 2).lost = true;
    expect(planSends(st, l, 1_000)).toEqual([]);
    held(st, 1).heldUntil = 1_000 + l.startBefore;
    expect(planSends(st, l, 1_000).map((s) => s.held.id)).toEqual([1, 1, 1]);
  });

  it('an ended attempt frees its slot and waits for a write; a 410 gives back what was read', () => {
    const st = holding([1], 10);
    const [first, second] = planSends(st, limits(), 0);
    if (!first || !second) throw new Error('two sends');
    attemptEnded(st, first.held, attempted(first.delivery, 'failed', 250), 40);
    expect(st.inFlight).toBe(4);
    expect(st.oldestResultAt).toBe(40);
    expect(held(st, 1).latencyMs).toBe(90);
    expect(held(st, 1).queue).toHaveLength(5);
    attemptEnded(st, second.held, attempted(second.delivery, 'gone'), 50);
    expect(st.oldestResultAt).toBe(40);
    expect(held(st, 1).closing).toBe(true);
    expect(held(st, 1).queue).toHaveLength(0);
    // The three still out and the two finished stay taken until written.
    expect(held(st, 1).taken.size).toBe(5);
  });
});

describe('writes', () => {
  it('outcomes wait for 200 of them or 25 ms, unless nothing else is out', () => {
    const st = holding([1], 10);
    const sends = planSends(st, limits(), 0);
    for (const s of sends.slice(0, 2)) attemptEnded(st, s.held, attempted(s.delivery, 'succeeded'), 100);
    expect(startFlush(st, 124)).toBeNull();
    const batch = startFlush(st, 125);
    expect(batch).toHaveLength(2);
    expect(st.flushing).toBe(true);
    expect(startFlush(st, 500)).toBeNull();
    flushDone(st, batch ?? []);
    expect(held(st, 1).taken.size).toBe(8);
    expect(st.flushing).toBe(false);
  });

  it('a deadlock puts the batch back, five times in a row at most; anything else fails the write for good', () => {
    const st = holding([1], 1);
    const [s] = planSends(st, limits(), 0);
    if (!s) throw new Error('one send');
    attemptEnded(st, s.held, attempted(s.delivery, 'failed'), 0);
    for (let i = 0; i < 5; i++) {
      const batch = startFlush(st, 0) ?? [];
      expect(batch).toHaveLength(1);
      flushFailed(st, batch, { code: '40P01' });
    }
    expect(st.writeRetries).toBe(5);
    const last = startFlush(st, 0) ?? [];
    const err = { code: '40001' };
    flushFailed(st, last, err);
    expect(st.writeFailed).toBe(true);
    expect(st.failure).toBe(err);
    expect(startFlush(st, 0)).toBeNull();
  });
});

describe('rounds: what to take, read, renew and release', () => {
  it('a fresh run takes as many subscriptions as it has room for at the cap, reading 50 of each', () => {
    const st = newRunState();
    const r = startRound(st, limits({ concurrency: 23 }), 1_000);
    expect(r).toMatchObject({ take: 4, perTaken: 50, askWaiting: true, refill: [], release: [], have: [] });
    expect(st.rounding).toBe(true);
    expect(startRound(st, limits(), 1_000)).toBeNull();
  });

  it('a run with fewer slots than the cap still takes one subscription', () => {
    expect(planRound(newRunState(), limits({ concurrency: 2 }), 1_000)?.take).toBe(1);
  });

  it('refills a queue run down to half its depth, skipping what it has; renews a full one near its end', () => {
    const l = limits();
    const st = holding([1, 2], 26, 1_000 + l.renewBefore - 1);
    held(st, 2).queue.splice(0, 1);
    const r = planRound(st, l, 1_000);
    expect(r?.refill).toEqual([{ id: 2, n: 25 }]);
    expect(r?.renew).toEqual([1]);
    expect(r?.taken).toEqual([...held(st, 2).taken]);
    // Both keep their full cap of room: 20 - 2 x 5 leaves two more to take.
    expect(r?.take).toBe(2);
  });

  it('an empty subscription whose read came back short is let go, due again where it was', () => {
    const st = holding([1], 0);
    held(st, 1).drainedAt = 900;
    expect(planRound(st, limits(), 1_000)?.release).toEqual([{ id: 1, toBack: false }]);
  });

  it('while others wait, a turn ends after 2 s: what was read goes back, and it goes to the back once empty', () => {
    const st = holding([1], 10);
    st.waiting = true;
    const sends = planSends(st, limits(), 1_500);
    const r = planRound(st, limits(), 2_001);
    expect(held(st, 1)).toMatchObject({ closing: true, turnEndedAt: 2_001, queue: [] });
    expect(r?.release).toEqual([]);
    for (const x of sends) attemptEnded(st, x.held, attempted(x.delivery, 'failed'), 2_010);
    expect(planSends(st, limits(), 2_010)).toEqual([]);
    flushDone(st, startFlush(st, 2_010) ?? []);
    expect(planRound(st, limits(), 2_020)?.release).toEqual([{ id: 1, toBack: true }]);
  });

  it('with nobody waiting, a subscription keeps its turn past 2 s', () => {
    const st = holding([1], 10);
    planRound(st, limits(), 60_000);
    expect(held(st, 1)).toMatchObject({ closing: false, turnEndedAt: null });
    expect(held(st, 1).queue).toHaveLength(10);
  });

  it('a turn that ended over an attempt that hangs is served again', () => {
    const st = holding([1], 10);
    st.waiting = true;
    planSends(st, limits(), 1_500);
    planRound(st, limits(), 2_001);
    planRound(st, limits(), 2_500);
    expect(held(st, 1)).toMatchObject({ closing: true, turnEndedAt: 2_001 });
    planRound(st, limits(), 2_501);
    expect(held(st, 1)).toMatchObject({ closing: false, turnEndedAt: null, since: 2_501 });
  });

  it('stopping: nothing more is taken, everything held closes, and the run ends once all is written', () => {
    const st = holding([1], 3);
    st.stopping = true;
    closeAllIfEnding(st);
    expect(held(st, 1).taken.size).toBe(0);
    const r = planRound(st, limits(), 1_000);
    expect(r).toMatchObject({ take: 0, release: [{ id: 1, toBack: false }] });
    expect(runOver(st)).toBe(false);
    st.held.clear();
    expect(runOver(st)).toBe(true);
  });

  it('an idle run looks for new work every 100 ms, or at once when woken', () => {
    const st = newRunState();
    st.lastShortTakeAt = 1_000;
    expect(planRound(st, limits(), 1_050)).toBeNull();
    st.woken = true;
    expect(planRound(st, limits(), 1_050)?.take).toBe(4);
    st.woken = false;
    expect(planRound(st, limits(), 1_100)?.take).toBe(4);
  });
});

describe('a round’s answer', () => {
  const answer = (over: Partial<RoundResult>): RoundResult => ({
    kept: [],
    taken: [],
    waiting: false,
    deliveries: [],
    ...over,
  });

  it('holds what it took, queues what it read, and marks a short read drained', () => {
    const st = newRunState();
    const l = limits();
    const r = startRound(st, l, 1_000);
    if (!r) throw new Error('a round');
    const read = [delivery(7), delivery(7), delivery(8)];
    roundDone(st, l, r, answer({ taken: [7, 8], deliveries: read, waiting: true }), 1_000);
    expect(st.rounding).toBe(false);
    expect(held(st, 7)).toMatchObject({ heldUntil: 1_000 + l.holdMs, since: 1_000, drainedAt: 1_000 });
    expect(held(st, 7).queue).toEqual(read.slice(0, 2));
    expect(st.waiting).toBe(true);
    expect(st.lastShortTakeAt).toBe(1_000);
    expect(st.drained).toBe(false);
  });

  it('a hold taken over is lost: what it read goes back, and it is dropped once empty', () => {
    const l = limits();
    const st = holding([1, 2], 1, 1_000 + l.renewBefore - 1);
    const [s] = planSends(st, l, 0);
    if (!s) throw new Error('a send');
    const r = planRound(st, l, 1_000);
    expect(r?.refill.map((x) => x.id)).toEqual([1, 2]);
    roundDone(st, l, r ?? (null as never), answer({ kept: [{ id: 2, active: false }] }), 1_000);
    expect(held(st, 1)).toMatchObject({ lost: true, closing: true });
    expect(held(st, 2)).toMatchObject({ closing: true, heldUntil: 1_000 + l.holdMs });
    expect(held(st, 2).queue).toEqual([]);
    attemptEnded(st, s.held, attempted(s.delivery, 'succeeded'), 1_010);
    expect(startFlush(st, 1_034)).toBeNull();
    flushDone(st, startFlush(st, 1_035) ?? []);
    expect(st.held.has(1)).toBe(false);
    expect(st.held.has(2)).toBe(true);
  });

  it('a run that took nothing and holds nothing is drained', () => {
    const st = newRunState();
    const r = startRound(st, limits(), 1_000);
    roundDone(st, limits(), r ?? (null as never), answer({}), 1_000);
    expect(st.drained).toBe(true);
    expect(runOver(st)).toBe(true);
  });

  it('a round that deadlocked is planned again; one that failed otherwise ends the run', () => {
    const st = newRunState();
    expect(startRound(st, limits(), 1_000)).not.toBeNull();
    roundFailed(st, { code: '40P01' });
    expect(st).toMatchObject({ rounding: false, roundRetries: 1, failure: undefined });
    const err = new Error('gone');
    roundFailed(st, err);
    expect(st.failure).toBe(err);
    expect(runOver(st)).toBe(true);
  });
});
