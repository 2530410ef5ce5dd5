import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListOrdersResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { ORDER_STATUSES } from '../../src/order-status.ts';
import { ORDER_CHANNELS } from '../../src/orders/schemas.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The order list's total under status, channel and attention filters comes from kept counts and
 * their pending deltas (Migration20261128090000_order_counts). Random batches of inserts, status,
 * channel and attention changes, mode-crossing stores and deletes, each in one statement as a bulk
 * change would be: after each, every filter combination of both modes totals what a count of the
 * orders says, before the deltas are folded and after.
 */
const CHANNELS = ORDER_CHANNELS;
const RUNS = Number(process.env.ORDER_COUNT_RUNS ?? 20);

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
const keys = { live: '', test: '' };
let made = 0;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Counted Store');
  other = await app.createStore('Other Counted Store');
  keys.live = store.read;
  keys.test = (await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read', mode: 'test' })).key;
});
afterAll(() => app?.close());

type Step =
  | { kind: 'insert'; n: number; live: boolean; status: number; channel: number; attention: boolean }
  | { kind: 'status'; every: number; status: number }
  | { kind: 'channel'; every: number; channel: number }
  | { kind: 'attention'; every: number }
  | { kind: 'move'; every: number }
  | { kind: 'delete'; every: number }
  | { kind: 'touch'; every: number };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      n: fc.integer({ min: 1, max: 300 }),
      live: fc.boolean(),
      status: fc.nat(5),
      channel: fc.nat(6),
      attention: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('status' as const),
      every: fc.integer({ min: 1, max: 5 }),
      status: fc.nat(5),
    }),
    fc.record({
      kind: fc.constant('channel' as const),
      every: fc.integer({ min: 1, max: 5 }),
      channel: fc.nat(6),
    }),
    fc.record({ kind: fc.constant('attention' as const), every: fc.integer({ min: 1, max: 5 }) }),
    fc.record({ kind: fc.constant('move' as const), every: fc.integer({ min: 3, max: 9 }) }),
    fc.record({ kind: fc.constant('delete' as const), every: fc.integer({ min: 3, max: 9 }) }),
    fc.record({ kind: fc.constant('touch' as const), every: fc.integer({ min: 1, max: 3 }) }),
  ),
  { minLength: 1, maxLength: 6 },
);

/** One statement per step, over the counted store's orders (and the other store's, for `move`). */
async function apply(step: Step) {
  const em = app.em();
  const mine = sql`store_id = ${store.id}`;
  switch (step.kind) {
    case 'insert': {
      const prefix = step.live ? 'SL-CNT-' : 'TEST-CNT-';
      const first = made;
      made += step.n;
      await rows(
        em,
        sql`INSERT INTO orders (store_id, order_number, status, order_type, channel, customer_name,
            customer_email, ship_address, ship_city, ship_state, ship_zip, ship_country, subtotal_cents,
            total_cents, tracking_number, needs_attention, livemode)
          SELECT ${store.id}, ${prefix} || g, ${ORDER_STATUSES[step.status]}, 'storefront', ${CHANNELS[step.channel]},
            'Buyer', 'b@example.com', '1 St', 'Sydney', 'NSW', '2000', 'AU', 1000, 1000, 'TRK' || g,
            ${step.attention}, ${step.live}
          FROM generate_series(${first}::integer, ${made - 1}::integer) g`,
      );
      return;
    }
    case 'status':
      await rows(
        em,
        sql`UPDATE orders SET status = ${ORDER_STATUSES[step.status]}, tracking_number = coalesce(tracking_number, 'TRK')
          WHERE ${mine} AND id % ${step.every} = 0`,
      );
      return;
    case 'channel':
      await rows(
        em,
        sql`UPDATE orders SET channel = ${CHANNELS[step.channel]} WHERE ${mine} AND id % ${step.every} = 0`,
      );
      return;
    case 'attention':
      await rows(
        em,
        sql`UPDATE orders SET needs_attention = NOT needs_attention WHERE ${mine} AND id % ${step.every} = 1`,
      );
      return;
    case 'move':
      // Orders leaving and entering the store, in one statement.
      await rows(
        em,
        sql`UPDATE orders SET store_id = CASE WHEN store_id = ${store.id} THEN ${other.id}::integer ELSE ${store.id}::integer END
          WHERE store_id IN (${store.id}, ${other.id}) AND id % ${step.every} = 2`,
      );
      return;
    case 'delete':
      await rows(em, sql`DELETE FROM orders WHERE ${mine} AND id % ${step.every} = 1`);
      return;
    case 'touch':
      // Changes nothing counted: writes no delta.
      await rows(em, sql`UPDATE orders SET updated_at = now() WHERE ${mine} AND id % ${step.every} = 0`);
      return;
  }
}

/** Every filter combination of both modes: the API's total against a count of the orders. */
async function totalsMatch(label: string) {
  for (const [mode, key] of Object.entries(keys)) {
    const [counted] = await rows<{ all: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS all FROM orders WHERE store_id = ${store.id} AND livemode = ${mode === 'live'}`,
    );
    const combos: string[] = [''];
    for (const s of ORDER_STATUSES) combos.push(`status=${s}`);
    for (const c of CHANNELS) combos.push(`channel=${c}`, `channel=${c}&attention=1`);
    combos.push('attention=1', `status=pending&channel=google&attention=1`);
    for (const q of combos) {
      const params = new URLSearchParams(q);
      const where = [sql`store_id = ${store.id}`, sql`livemode = ${mode === 'live'}`];
      if (params.get('status')) where.push(sql`status = ${params.get('status')}`);
      if (params.get('channel')) where.push(sql`channel = ${params.get('channel')}`);
      if (params.get('attention')) where.push(sql`needs_attention`);
      const [expected] = await rows<{ n: number }>(
        app.em(),
        sql`SELECT count(*)::integer AS n FROM orders WHERE ${sql.join(where, sql` AND `)}`,
      );
      const res = await app.get<ListOrdersResponse>(`/api/v1/orders?limit=1&${q}`, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.pagination.total_count, `${label} ${mode} ?${q}`).toBe(expected?.n);
    }
    expect(counted?.all).toBeGreaterThanOrEqual(0);
  }
}

describe('the order list total under status, channel and attention', () => {
  it('equals a count of the orders through random changes, before and after the deltas fold', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (batch) => {
        for (const step of batch) await apply(step);
        await totalsMatch('pending deltas');
        await rows(app.em(), sql`SELECT order_counts_fold()`);
        const [left] = await rows<{ n: number }>(
          app.em(),
          sql`SELECT count(*)::integer AS n FROM order_count_deltas`,
        );
        expect(left?.n).toBe(0);
        await totalsMatch('folded');
      }),
      { numRuns: RUNS, seed: 27_0901 },
    );
  });

  it('under a date range or a search, still counts the matching orders', async () => {
    await apply({ kind: 'insert', n: 3, live: true, status: 0, channel: 1, attention: false });
    const res = await app.get<ListOrdersResponse>(
      `/api/v1/orders?limit=1&status=pending&start_date=2000-01-01&search=SL-CNT`,
      keys.live,
    );
    const [expected] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM orders WHERE store_id = ${store.id} AND livemode
        AND status = 'pending' AND order_number ILIKE '%SL-CNT%'`,
    );
    expect(res.status).toBe(200);
    expect(res.body.pagination.total_count).toBe(expected?.n);
    expect(expected?.n).toBeGreaterThan(0);
  });
});
