import type { Selectable } from 'kysely';
import type { DB } from '../db/kysely.ts';
import { type RawBuilder, sql } from '../db/sql.ts';
import type { WebhookEvent } from '../webhooks/events.ts';
import type { Position } from './cursor.ts';

type LogRow = Selectable<DB['webhook_events']>;

/** A row of a page: its position (text: xid8 and int8 have no JavaScript number) and its envelope. */
export type PageRow = { xid: string; id: LogRow['id'] } & Pick<LogRow, 'event' | 'body'>;

export interface PageQuery {
  storeId: number;
  /** The credential's mode: a test key reads test events, everything else live ones. */
  livemode: boolean;
  /** The kinds of event to read (never empty): each is one seek of the log's index. */
  types: readonly WebhookEvent[];
  /** Positions after it (`asc`) or before it (`desc`); null: from the start (`asc`) or the head (`desc`). */
  from: Position | null;
  order: 'asc' | 'desc';
  limit: number;
  createdGte?: string;
  createdLt?: string;
}

/** Only transactions older than every one still running: a late commit never lands behind a reader. */
const VISIBLE = sql`(SELECT pg_snapshot_xmin(pg_current_snapshot()))`;

/**
 * One page of the store's log, in position order. Raw SQL: per kind of event, an index-only seek of
 * `webhook_events_log_idx` (store, mode, event, xid, id, with created_at) bounded by `pg_snapshot_xmin`
 * reads at most `limit` positions; the smallest (or largest) `limit` of them are the page, and only
 * those rows' envelopes are read. So a page costs the same whatever else the store's log holds: an
 * app that reads orders never walks past stock changes.
 */
export function pageQuery(q: PageQuery): RawBuilder<PageRow> {
  const dir = q.order === 'asc' ? sql.raw('ASC') : sql.raw('DESC');
  const cmp = q.order === 'asc' ? sql.raw('>') : sql.raw('<');
  const after = q.from ? sql`AND (e.xid, e.id) ${cmp} (${q.from.xid}::xid8, ${q.from.id}::bigint)` : sql``;
  const gte = q.createdGte ? sql`AND e.created_at >= ${q.createdGte}::timestamptz` : sql``;
  const lt = q.createdLt ? sql`AND e.created_at < ${q.createdLt}::timestamptz` : sql``;
  return sql<PageRow>`WITH page AS (
      SELECT p.xid, p.id FROM unnest(${[...q.types]}::text[]) AS t(event)
      CROSS JOIN LATERAL (
        SELECT e.xid, e.id FROM webhook_events e
        WHERE e.store_id = ${q.storeId} AND e.livemode = ${q.livemode} AND e.event = t.event
          AND e.xid < ${VISIBLE} ${after} ${gte} ${lt}
        ORDER BY e.xid ${dir}, e.id ${dir}
        LIMIT ${q.limit}
      ) p
      ORDER BY p.xid ${dir}, p.id ${dir}
      LIMIT ${q.limit}
    )
    SELECT page.xid::text AS xid, page.id::text AS id, e.event, e.body
    FROM page JOIN webhook_events e ON e.id = page.id
    ORDER BY page.xid ${dir}, page.id ${dir}`;
}

/** One event of the store, of this mode, by its row id. */
export function eventQuery(
  storeId: number,
  livemode: boolean,
  rowId: string,
): RawBuilder<Pick<LogRow, 'event' | 'body'>> {
  return sql`SELECT event, body FROM webhook_events
    WHERE id = ${rowId}::bigint AND store_id = ${storeId} AND livemode = ${livemode}`;
}

/** What a long poll waits for: any event of these kinds after its position, in its time range. */
export interface Waiting {
  storeId: number;
  livemode: boolean;
  types: readonly WebhookEvent[];
  from: Position;
  createdGte?: string;
  createdLt?: string;
}

/**
 * Of many waiting lists (every long poll of this process), the indexes (1-based) of those that now
 * have an event to read: one statement for all of them, a seek per (list, kind of event).
 */
export function readyQuery(waiting: readonly Waiting[]): RawBuilder<{ i: string }> {
  return sql<{ i: string }>`SELECT w.i::text AS i
    FROM unnest(${waiting.map((w) => w.storeId)}::integer[], ${waiting.map((w) => w.livemode)}::boolean[],
      ${waiting.map((w) => w.types.join(','))}::text[],
      ${waiting.map((w) => w.from.xid)}::xid8[], ${waiting.map((w) => w.from.id)}::bigint[],
      ${waiting.map((w) => w.createdGte ?? null)}::timestamptz[], ${waiting.map((w) => w.createdLt ?? null)}::timestamptz[])
      WITH ORDINALITY AS w(store_id, livemode, types, xid, id, gte, lt, i)
    WHERE EXISTS (
      SELECT 1 FROM unnest(string_to_array(w.types, ',')) AS t(event)
      CROSS JOIN LATERAL (
        SELECT 1 FROM webhook_events e
        WHERE e.store_id = w.store_id AND e.livemode = w.livemode AND e.event = t.event AND e.xid < ${VISIBLE}
          AND (e.xid, e.id) > (w.xid, w.id)
          AND (w.gte IS NULL OR e.created_at >= w.gte) AND (w.lt IS NULL OR e.created_at < w.lt)
        ORDER BY e.xid, e.id
        LIMIT 1
      ) x
    )`;
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
