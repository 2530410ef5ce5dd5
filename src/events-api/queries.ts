import type { Selectable } from 'kysely';
import type { DB } from '../db/kysely.ts';
import { type Owner, ownedBy } from '../db/owned-by.ts';
import { type RawBuilder, sql } from '../db/sql.ts';
import type { EventName } from '../events/vocabulary/index.ts';
import type { Position } from './cursor.ts';

type LogRow = Selectable<DB['webhook_events']>;

/** A row of a page: its position (text: xid8 and int8 have no JavaScript number) and its envelope. */
export type PageRow = { xid: string; id: LogRow['id'] } & Pick<LogRow, 'event' | 'body'>;

export interface PageQuery {
  storeId: number;
  /** The credential's mode: a test key reads test events, everything else live ones. */
  livemode: boolean;
  /** The kinds of event to read (never empty): each is one seek of the log's index. */
  types: readonly EventName[];
  /** Positions after it (`asc`) or before it (`desc`); null: from the start (`asc`) or the head (`desc`). */
  from: Position | null;
  order: 'asc' | 'desc';
  limit: number;
  /** Only events created at or after / before these times (ISO 8601): a range of positions, see `boundsSql`. */
  createdGte?: string;
  createdLt?: string;
}

/** Only transactions older than every one still running: a late commit never lands behind a reader. */
const VISIBLE = sql`(SELECT pg_snapshot_xmin(pg_current_snapshot()))`;

/**
 * How far the log's order and `created_at` may disagree among `in_order` events: the trigger
 * `webhook_events_in_order` and `webhook_events_reclassify()` keep it within six minutes
 * (Migration20261128010000_event_log_time_bounds); the rest is margin for a clock that is adjusted.
 */
const SLACK = sql`interval '10 minutes'`;

/** A position as SQL: the log's `(xid, id)`, from parameters or columns. */
interface PositionSql {
  xid: RawBuilder<unknown>;
  id: RawBuilder<unknown>;
}

/** What bounds a read of one store's log, as SQL: parameters for a page, columns for the long polls. */
interface Reading {
  /** Whose events, said of the table under this alias. */
  owns: (alias: 's' | 'e') => RawBuilder<unknown>;
  /** Positions after it (`asc`) or before it (`desc`). */
  from: PositionSql | null;
  order: 'asc' | 'desc';
  /** The time window; null: that side is open (for the long polls, SQL that may be NULL). */
  gte: RawBuilder<unknown> | null;
  lt: RawBuilder<unknown> | null;
}

const param = (p: Position): PositionSql => ({ xid: sql`${p.xid}::xid8`, id: sql`${p.id}::bigint` });

/**
 * The positions a read covers, as one row `(lo_xid, lo_id, hi_xid, hi_id)`: after the greatest lower
 * bound, before the least upper bound. The horizon (`pg_snapshot_xmin`) and the cursor are bounds, and
 * so is a time window: the `in_order` event created last before `created_gte - SLACK` lies in the log
 * before every `in_order` event of the window, and the one created first at `created_lt + SLACK` or later
 * after every one (two seeks of `webhook_events_order_time_idx`). Each side is one row comparison, so
 * the index scan starts at the right end: a cursor deep in a `desc` walk no longer walks down from the
 * head (the horizon and the cursor were two upper bounds, and the scan started at the horizon).
 */
function boundsSql(r: Reading): RawBuilder<unknown> {
  const lows: RawBuilder<unknown>[] = [sql`SELECT '0'::xid8 AS xid, 0::bigint AS id`];
  const highs: RawBuilder<unknown>[] = [sql`SELECT ${VISIBLE} AS xid, 0::bigint AS id`];
  if (r.from) (r.order === 'asc' ? lows : highs).push(sql`SELECT ${r.from.xid}, ${r.from.id}`);
  const seek = (time: RawBuilder<unknown>, dir: 'ASC' | 'DESC') =>
    sql`(SELECT s.xid, s.id FROM webhook_events s
      WHERE ${r.owns('s')} AND s.in_order AND ${time}
      ORDER BY s.created_at ${sql.raw(dir)} LIMIT 1)`;
  if (r.gte) lows.push(seek(sql`s.created_at < ${r.gte} - ${SLACK}`, 'DESC'));
  if (r.lt) highs.push(seek(sql`s.created_at >= ${r.lt} + ${SLACK}`, 'ASC'));
  return sql`SELECT lo.xid AS lo_xid, lo.id AS lo_id, hi.xid AS hi_xid, hi.id AS hi_id
    FROM (SELECT b.xid, b.id FROM (${sql.join(lows, sql` UNION ALL `)}) b ORDER BY b.xid DESC, b.id DESC LIMIT 1) lo,
      (SELECT b.xid, b.id FROM (${sql.join(highs, sql` UNION ALL `)}) b ORDER BY b.xid, b.id LIMIT 1) hi`;
}

/** The time window as conditions on `e.created_at` (none for an open side). */
function windowSql(r: Reading): RawBuilder<unknown> {
  const gte = r.gte ? sql`AND e.created_at >= ${r.gte}` : sql``;
  const lt = r.lt ? sql`AND e.created_at < ${r.lt}` : sql``;
  return sql`${gte} ${lt}`;
}

/**
 * The late events of a time window (those not `in_order`, which may lie anywhere in the log) as
 * `(event, xid, id)`: a range of `webhook_events_late_time_idx`. Fenced (`OFFSET 0`), so the kinds, the
 * cursor and the horizon filter what it read and are never the reason to walk `webhook_events_log_idx`
 * over the whole log instead (which the planner chose for them when they were its conditions).
 */
function lateSql(r: Reading, window: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT e.event, e.xid, e.id FROM webhook_events e
    WHERE ${r.owns('e')} AND NOT e.in_order ${window} OFFSET 0)`;
}

/**
 * One page of the store's log, in position order. Raw SQL: per kind of event, an index-only seek of
 * `webhook_events_log_idx` (store, mode, event, xid, id, with created_at) inside the positions
 * `boundsSql` gives reads at most `limit` positions; the smallest (or largest) `limit` of them are the
 * page, and only those rows' envelopes are read. So a page costs the same whatever else the store's log
 * holds: an app that reads orders never walks past stock changes, and a time window never walks the
 * log outside it (only the few events within minutes of its ends). The events that are not `in_order`
 * (logged late) may lie anywhere in the log: a window reads those of its time from their own small
 * index (`webhook_events_late_time_idx`), and the page is the first `limit` of both.
 */
export function pageQuery(q: PageQuery): RawBuilder<PageRow> {
  const dir = q.order === 'asc' ? sql.raw('ASC') : sql.raw('DESC');
  const cmp = q.order === 'asc' ? sql.raw('>') : sql.raw('<');
  const reading: Reading = {
    owns: (alias) => ownedBy(q, `webhook_events as ${alias}`),
    from: q.from ? param(q.from) : null,
    order: q.order,
    gte: q.createdGte ? sql`${q.createdGte}::timestamptz` : null,
    lt: q.createdLt ? sql`${q.createdLt}::timestamptz` : null,
  };
  const window = windowSql(reading);
  const late =
    reading.gte || reading.lt
      ? sql`UNION
        (SELECT l.xid, l.id FROM ${lateSql(reading, window)} l
        WHERE l.event = ANY (${[...q.types]}::text[]) AND l.xid < ${VISIBLE}
          ${q.from ? sql`AND (l.xid, l.id) ${cmp} (${q.from.xid}::xid8, ${q.from.id}::bigint)` : sql``}
        ORDER BY l.xid ${dir}, l.id ${dir}
        LIMIT ${q.limit})`
      : sql``;
  return sql<PageRow>`WITH bounds AS MATERIALIZED (${boundsSql(reading)}),
    page AS (
      SELECT u.xid, u.id FROM (
        SELECT p.xid, p.id FROM bounds CROSS JOIN unnest(${[...q.types]}::text[]) AS t(event)
        CROSS JOIN LATERAL (
          SELECT e.xid, e.id FROM webhook_events e
          WHERE ${reading.owns('e')} AND e.event = t.event
            AND (e.xid, e.id) > (bounds.lo_xid, bounds.lo_id) AND (e.xid, e.id) < (bounds.hi_xid, bounds.hi_id)
            ${window}
          ORDER BY e.xid ${dir}, e.id ${dir}
          LIMIT ${q.limit}
        ) p
        ${late}
      ) u
      ORDER BY u.xid ${dir}, u.id ${dir}
      LIMIT ${q.limit}
    )
    SELECT page.xid::text AS xid, page.id::text AS id, e.event, e.body
    FROM page JOIN webhook_events e ON e.id = page.id
    ORDER BY page.xid ${dir}, page.id ${dir}`;
}

/** One event of the store, of this mode, by its row id. */
export function eventQuery(owner: Owner, rowId: string): RawBuilder<Pick<LogRow, 'event' | 'body'>> {
  return sql`SELECT event, body FROM webhook_events
    WHERE id = ${rowId}::bigint AND ${ownedBy(owner, 'webhook_events')}`;
}

/** What a long poll waits for: any event of these kinds after its position, in its time range. */
export interface Waiting {
  storeId: number;
  livemode: boolean;
  types: readonly EventName[];
  from: Position;
  createdGte?: string;
  createdLt?: string;
}

/**
 * Of many waiting lists (every long poll of this process), the indexes (1-based) of those that now
 * have an event to read: one statement for all of them, a seek per (list, kind of event) inside the
 * positions its cursor and time window bound (as a page reads them), and for a time window one look at
 * the late events of that time.
 */
export function readyQuery(waiting: readonly Waiting[]): RawBuilder<{ i: string }> {
  const reading: Reading = {
    // Each waiting list's own store and mode, a row of the unnest below: not one owner's parameters.
    owns: (alias) => sql`${sql.raw(alias)}.store_id = w.store_id AND ${sql.raw(alias)}.livemode = w.livemode`,
    from: { xid: sql`w.xid`, id: sql`w.id` },
    order: 'asc',
    gte: sql`w.gte`,
    lt: sql`w.lt`,
  };
  const window = sql`AND e.created_at >= COALESCE(w.gte, '-infinity') AND e.created_at < COALESCE(w.lt, 'infinity')`;
  return sql<{ i: string }>`SELECT w.i::text AS i
    FROM unnest(${waiting.map((w) => w.storeId)}::integer[], ${waiting.map((w) => w.livemode)}::boolean[],
      ${waiting.map((w) => w.types.join(','))}::text[],
      ${waiting.map((w) => w.from.xid)}::xid8[], ${waiting.map((w) => w.from.id)}::bigint[],
      ${waiting.map((w) => w.createdGte ?? null)}::timestamptz[], ${waiting.map((w) => w.createdLt ?? null)}::timestamptz[])
      WITH ORDINALITY AS w(store_id, livemode, types, xid, id, gte, lt, i)
    CROSS JOIN LATERAL (${boundsSql(reading)}) bounds
    WHERE EXISTS (
      SELECT 1 FROM unnest(string_to_array(w.types, ',')) AS t(event)
      CROSS JOIN LATERAL (
        SELECT 1 FROM webhook_events e
        WHERE ${reading.owns('e')} AND e.event = t.event
          AND (e.xid, e.id) > (bounds.lo_xid, bounds.lo_id) AND (e.xid, e.id) < (bounds.hi_xid, bounds.hi_id)
          ${window}
        ORDER BY e.xid, e.id
        LIMIT 1
      ) x
    ) OR ((w.gte IS NOT NULL OR w.lt IS NOT NULL) AND EXISTS (
      SELECT 1 FROM ${lateSql(reading, window)} l
      WHERE l.event = ANY (string_to_array(w.types, ',')) AND l.xid < ${VISIBLE} AND (l.xid, l.id) > (w.xid, w.id)
    ))`;
}

/** Rows deleted per statement by the retention job. */
export const PRUNE_BATCH = 5000;

/** The floors, read once a run from the pending deliveries' index: per store, the smallest event id they name. */
export function floorsQuery(): RawBuilder<{ store_id: number; floor: string }> {
  return sql`SELECT s.store_id, min(d.event_id)::text AS floor
    FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'pending' GROUP BY s.store_id`;
}

/** The tables the retention job prunes: each one's ids follow its rows' creation. */
export type PrunedTable = 'webhook_events' | 'webhook_deliveries' | 'webhook_attempts';

/**
 * The first id of `table` created at or after `before` among the rows `keep` lets go, or past the last
 * row: every batch reads ids below it only. Ids follow creation (an event's `created_at` may precede
 * its insertion by the dispatcher's lag), so the rows below are the old ones, and a scan from the
 * oldest row stops at the first young one. A row out of that order is still judged by its own time.
 */
export function pruneBoundQuery(
  table: PrunedTable,
  before: string,
  keep: RawBuilder<unknown>,
): RawBuilder<{ id: string }> {
  const t = sql.table(table);
  return sql`SELECT COALESCE(
      (SELECT id FROM ${t} WHERE created_at >= ${before}::timestamptz ${keep} ORDER BY id LIMIT 1),
      (SELECT max(id) + 1 FROM ${t}), 0)::text AS id`;
}

/**
 * One batch: up to `batch` rows of `table` after id `after` and below `bound`, created before `before`,
 * that `keep` lets go, oldest first. Answers how many went and the last id, where the next batch starts
 * (so no batch walks again over what the ones before it deleted).
 */
export function pruneBatchQuery(
  table: PrunedTable,
  o: { after: string; bound: string; before: string; batch: number; keep: RawBuilder<unknown> },
): RawBuilder<{ n: number; last: string | null }> {
  const t = sql.table(table);
  // `= ANY (ARRAY(…))`: the batch's ids looked up in the primary key (`IN (…)` was planned as a hash
  // join over the whole table).
  return sql`WITH gone AS (
      DELETE FROM ${t} WHERE id = ANY (ARRAY(
        SELECT id FROM ${t}
        WHERE id > ${o.after}::bigint AND id < ${o.bound}::bigint AND created_at < ${o.before}::timestamptz ${o.keep}
        ORDER BY id LIMIT ${o.batch}))
      RETURNING id)
    SELECT count(*)::integer AS n, max(id)::text AS last FROM gone`;
}

/**
 * What an event of the log needs to go: none of its store's pending deliveries may need it. A store
 * with pending deliveries keeps its events from the smallest one's on (`floors`: store id → event id,
 * looked up in a jsonb object, a binary search a row, whatever the number of stores).
 */
export function eventsKeep(floors: Record<string, string>): RawBuilder<unknown> {
  return sql`AND id < COALESCE((${JSON.stringify(floors)}::jsonb ->> store_id::text)::bigint, 9223372036854775807)`;
}

/** What a delivery needs to go: it has ended (a pending one may be a resend of an old event). */
export const DELIVERIES_KEEP = sql`AND status <> 'pending'`;
