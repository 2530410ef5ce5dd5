import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEventsResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { EVENT_NAMES, type EventName } from '../../src/events/vocabulary/index.ts';
import { encodeCursor, LOG_START, type Position } from '../../src/events-api/cursor.ts';
import { pageQuery, readyQuery } from '../../src/events-api/queries.ts';
import { createWebhookEvents, type NewWebhookEvent } from '../../src/webhooks/fanout.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';

/**
 * `created_gte` / `created_lt` of GET /api/v1/events read a range of positions that two seeks of the
 * `in_order` events bound, plus the late events of the window (Migration20261128010000_event_log_time_bounds).
 * Whatever the log holds (events in order to within minutes, events logged days late, events stamped
 * ahead, times changed by hand, other stores and the other mode interleaved), a walk by cursor through a
 * window must return exactly what a plain scan of the table in position order does. Seeded:
 * TIME_FILTERS_RUNS walks (default 80), TIME_FILTERS_SEED to replay one.
 */

const RUNS = Number(process.env.TIME_FILTERS_RUNS ?? 80);
const SEED = Number(process.env.TIME_FILTERS_SEED ?? 20261128);
const MIN = 60_000;
const DAY = 86_400_000;
/** queries.ts's SLACK: how far outside a window the bounds are sought. */
const SLACK = 10 * MIN;
const KINDS: EventName[] = [
  'order.created',
  'order.shipped',
  'invoice.issued',
  'product.updated',
  'inventory.updated',
  'site.published',
];
const EVENTS = '/api/v1/events';

let app: TestApp;
let store: { id: number; read: string };
let start: number;
/** The store's live events: row id, position and created_at (ms). */
let mine: { id: string; xid: string; at: number }[];

/** A small seeded generator for the log's contents (fast-check draws the walks). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Until every event of the log is below every running transaction (the cluster is shared). */
async function settled(): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const [r] = await rows<{ done: boolean }>(
      app.em(),
      sql`SELECT COALESCE(bool_and(xid < pg_snapshot_xmin(pg_current_snapshot())), true) AS done FROM webhook_events`,
    );
    if (r?.done) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the log did not settle');
}

async function write(events: NewWebhookEvent[]): Promise<void> {
  await app.em().transactional((tx) => createWebhookEvents(tx, events));
}

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Time filters');
  const other = await app.createStore('Another store');
  const rand = generator(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const now = Date.now();
  start = now - 30 * DAY;

  // A log written before the column existed, judged as the migration judges it: mostly in order to
  // within ±3 minutes (bursts seconds apart, gaps of up to an hour), some logged up to a day late, some
  // stamped up to six hours ahead; the store's test events and another store's in between.
  const history: NewWebhookEvent[] = [];
  let t = start;
  for (let j = 0; j < 1200; j++) {
    t += rand() < 0.25 ? rand() * 20_000 : rand() * 70 * MIN;
    let at = t + (rand() - 0.5) * 6 * MIN;
    const odd = rand();
    if (odd < 0.04) at -= (0.2 + rand() * 24) * 60 * MIN;
    else if (odd < 0.06) at += (0.2 + rand() * 6) * 60 * MIN;
    const who = rand();
    const event = pick(KINDS);
    history.push({
      storeId: who < 0.88 ? store.id : other.id,
      event,
      eventKey: `${event}:${j}`,
      createdAt: new Date(at).toISOString(),
      data: { j },
      livemode: who < 0.8 || who >= 0.88,
    });
  }
  for (let i = 0; i < history.length; i += 50) await write(history.slice(i, i + 50));
  await settled();
  await rows(app.em(), sql`SELECT webhook_events_reclassify()`);

  // Then as the dispatcher logs: now (stamped in order by the trigger), and after a backlog (late).
  for (let i = 0; i < 6; i++) {
    await write(
      Array.from({ length: 5 }, (_, k) => {
        const event = pick(KINDS);
        const late = rand() < 0.2;
        return {
          storeId: store.id,
          event,
          eventKey: `${event}:live.${i}.${k}`,
          createdAt: new Date(Date.now() - (late ? 2 * 60 * MIN : 0)).toISOString(),
          data: { i, k },
        };
      }),
    );
  }
  // And times changed by hand after the fact.
  await rows(
    app.em(),
    sql`UPDATE webhook_events SET created_at = created_at - interval '9 days'
      WHERE id IN (SELECT id FROM webhook_events WHERE store_id = ${store.id} ORDER BY id DESC LIMIT 3)`,
  );
  await rows(
    app.em(),
    sql`UPDATE webhook_events SET created_at = created_at + interval '4 days'
      WHERE id IN (SELECT id FROM webhook_events WHERE store_id = ${store.id} ORDER BY id LIMIT 100 OFFSET 500)
        AND id % 7 = 0`,
  );
  await settled();

  mine = (
    await rows<{ id: string; xid: string; at: string }>(
      app.em(),
      sql`SELECT id::text, xid::text, (extract(epoch FROM created_at) * 1000)::bigint::text AS at
        FROM webhook_events WHERE store_id = ${store.id} AND livemode ORDER BY xid, id`,
    )
  ).map((r) => ({ id: r.id, xid: r.xid, at: Number(r.at) }));
  const kinds = await rows<{ in_order: boolean; n: number }>(
    app.em(),
    sql`SELECT in_order, count(*)::integer AS n FROM webhook_events WHERE store_id = ${store.id} GROUP BY 1`,
  );
  // Both kinds of row are there to be read: most in order, some dozens not.
  expect(kinds.find((k) => k.in_order)?.n).toBeGreaterThan(600);
  expect(kinds.find((k) => !k.in_order)?.n).toBeGreaterThan(30);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

interface Walk {
  gte?: number;
  lt?: number;
  types?: EventName[];
  order: 'asc' | 'desc';
  limit: number;
  /** Start after (asc) or before (desc) this event of the store (index into `mine`). */
  from?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The window's events as a plain scan of the table finds them, in the walk's order. */
async function scan(w: Walk, from: Position | null): Promise<string[]> {
  const dir = sql.raw(w.order === 'asc' ? 'ASC' : 'DESC');
  const cmp = sql.raw(w.order === 'asc' ? '>' : '<');
  const found = await rows<{ evt: string }>(
    app.em(),
    sql`SELECT 'evt_' || id AS evt FROM webhook_events
      WHERE store_id = ${store.id} AND livemode AND event = ANY (${w.types ?? [...EVENT_NAMES]}::text[])
        ${w.gte === undefined ? sql`` : sql`AND created_at >= ${iso(w.gte)}::timestamptz`}
        ${w.lt === undefined ? sql`` : sql`AND created_at < ${iso(w.lt)}::timestamptz`}
        ${from ? sql`AND (xid, id) ${cmp} (${from.xid}::xid8, ${from.id}::bigint)` : sql``}
      ORDER BY xid ${dir}, id ${dir}`,
  );
  return found.map((r) => r.evt);
}

/** Every page of the walk, following `next_cursor` until `has_more` is false. */
async function walk(w: Walk, cursor: string | undefined, limit: number): Promise<string[]> {
  const params = new URLSearchParams({ order: w.order, limit: String(limit) });
  if (w.gte !== undefined) params.set('created_gte', iso(w.gte));
  if (w.lt !== undefined) params.set('created_lt', iso(w.lt));
  if (w.types) params.set('type', w.types.join(','));
  const got: string[] = [];
  for (let page = 0; page < 200; page++) {
    if (cursor) params.set('cursor', cursor);
    const res = await send<ListEventsResponse>(app, 'GET', `${EVENTS}?${params}`, { key: store.read });
    expect(res.status, res.text).toBe(200);
    expect(res.body.events.length).toBeLessThanOrEqual(limit);
    got.push(...res.body.events.map((e) => e.id));
    if (!res.body.has_more) return got;
    expect(res.body.events).toHaveLength(limit);
    cursor = res.body.next_cursor;
  }
  throw new Error('the walk did not end');
}

describe('time filters', () => {
  it('a walk by cursor through any window, of any kinds, either order, returns what a scan of the table does', async () => {
    const near = fc
      .tuple(fc.integer({ min: 0, max: mine.length - 1 }), fc.integer({ min: -15 * MIN, max: 15 * MIN }))
      .map(([i, d]) => (mine[i]?.at ?? start) + d);
    const instant = fc.oneof(fc.integer({ min: start - DAY, max: Date.now() + DAY }), near);
    const walks = fc
      .record({
        a: fc.option(instant, { nil: undefined }),
        b: fc.option(instant, { nil: undefined }),
        types: fc.option(fc.subarray(KINDS, { minLength: 1 }), { nil: undefined }),
        order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        limit: fc.constantFrom(1, 3, 7, 20, 100),
        from: fc.option(fc.integer({ min: 0, max: mine.length - 1 }), { nil: undefined, freq: 3 }),
      })
      .filter((r) => r.a !== undefined || r.b !== undefined)
      .map(({ a, b, ...rest }): Walk => {
        if (a === undefined || b === undefined) return { ...rest, gte: a, lt: b };
        // Two instants: a window (`created_lt` must be after `created_gte`); one of them: an open side.
        if (a === b) return { ...rest, gte: a };
        return { ...rest, gte: Math.min(a, b), lt: Math.max(a, b) };
      });
    const seen = { lowerBound: 0, upperBound: 0, late: 0, events: 0 };
    await fc.assert(
      fc.asyncProperty(walks, async (w) => {
        const at = w.from === undefined ? undefined : mine[w.from];
        const from = at ? { xid: at.xid, id: at.id } : null;
        const expected = await scan(w, from);
        // Enough per page that a walk is at most ~40 requests.
        const limit = Math.max(w.limit, Math.min(100, Math.ceil(expected.length / 40)));
        const cursor = from ? await encodeCursor(app.em(), store.id, from) : undefined;
        expect(await walk(w, cursor, limit)).toEqual(expected);

        // The long polls' check agrees: an asc walk from there has something to read.
        if (w.order === 'asc') {
          const ready = await rows(
            app.em(),
            readyQuery([
              {
                storeId: store.id,
                livemode: true,
                types: w.types ?? [...EVENT_NAMES],
                from: from ?? LOG_START,
                createdGte: w.gte === undefined ? undefined : iso(w.gte),
                createdLt: w.lt === undefined ? undefined : iso(w.lt),
              },
            ]),
          );
          expect(ready.length > 0).toBe(expected.length > 0);
        }

        // What the walks covered: windows whose ends were found by the seeks, late events read.
        const [c] = await rows<{ lower: boolean; upper: boolean; late: number }>(
          app.em(),
          sql`SELECT
              EXISTS (SELECT 1 FROM webhook_events WHERE store_id = ${store.id} AND livemode AND in_order
                AND created_at < ${w.gte === undefined ? null : iso(w.gte - SLACK)}::timestamptz) AS lower,
              EXISTS (SELECT 1 FROM webhook_events WHERE store_id = ${store.id} AND livemode AND in_order
                AND created_at >= ${w.lt === undefined ? null : iso(w.lt + SLACK)}::timestamptz) AS upper,
              (SELECT count(*)::integer FROM webhook_events WHERE NOT in_order
                AND 'evt_' || id = ANY (${expected}::text[])) AS late`,
        );
        if (c?.lower) seen.lowerBound++;
        if (c?.upper) seen.upperBound++;
        seen.late += c?.late ?? 0;
        seen.events += expected.length;
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The walks did read windows bounded inside the log on each side, and late events.
    expect(seen.lowerBound).toBeGreaterThan(RUNS / 5);
    expect(seen.upperBound).toBeGreaterThan(RUNS / 5);
    expect(seen.late).toBeGreaterThan(0);
    expect(seen.events).toBeGreaterThan(RUNS * 10);
  }, 300_000);

  it('a window in the middle of the log reads its neighbourhood, not the log before or after it', async () => {
    const middle = mine[Math.floor(mine.length / 2)]?.at ?? start;
    const client = new pg.Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      for (const q of [
        { order: 'asc' as const, createdGte: iso(middle) },
        { order: 'desc' as const, createdLt: iso(middle) },
        { order: 'asc' as const, createdGte: iso(middle - DAY), createdLt: iso(middle) },
        { order: 'desc' as const, createdGte: iso(middle - DAY), createdLt: iso(middle) },
      ]) {
        const statement = pageQuery({
          storeId: store.id,
          livemode: true,
          types: [...EVENT_NAMES],
          from: null,
          limit: 21,
          ...q,
        }).compile(app.em().getKysely());
        const { rows: plan } = await client.query(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`,
          statement.parameters as unknown[],
        );
        // Entries of the log's index read and thrown away by the window's filter, over every kind.
        let removed = 0;
        let logScans = 0;
        const visit = (node: Record<string, unknown>) => {
          if (node['Index Name'] === 'webhook_events_log_idx') {
            logScans++;
            removed += Number(node['Rows Removed by Filter'] ?? 0) * Number(node['Actual Loops'] ?? 1);
          }
          for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
        };
        visit((plan[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {});
        expect(logScans, JSON.stringify(q)).toBeGreaterThan(0);
        // Half the store's ~1,000 events lie on the other side of `middle`; the page reads a few dozen.
        expect(removed, JSON.stringify(q)).toBeLessThan(60);
      }
    } finally {
      await client.end();
    }
  });
});
