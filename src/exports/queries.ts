import { type Owner, ownedBy } from '../db/owned-by.ts';
import { isoTime, type RawBuilder, sql } from '../db/sql.ts';
import type { ExportStatus, ExportType } from './schemas.ts';

/** An export row as the answers read it: ids and counts as text (int8), times as ISO text. */
export interface ExportRow {
  id: string;
  store_id: number;
  livemode: boolean;
  type: ExportType;
  status: ExportStatus;
  filters: Record<string, unknown>;
  can_read_customers: boolean;
  rows_written: string;
  row_count: string | null;
  bytes: string | null;
  file_key: string | null;
  continuation: Continuation | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
}

/** Positions in the feeds at the export's snapshot (cursors are sealed when answered). */
export interface Continuation {
  events: { xid: string; id: string };
  inventory: { xid: string; seq: string } | null;
}

export const EXPORT_COLUMNS = sql`e.id::text AS id, e.store_id, e.livemode, e.type, e.status, e.filters,
  e.can_read_customers, e.rows_written::text AS rows_written, e.row_count::text AS row_count,
  e.bytes::text AS bytes, e.file_key, e.continuation, e.error_code, e.error_message,
  ${isoTime(sql`e.created_at`)} AS created_at, ${isoTime(sql`e.started_at`)} AS started_at,
  ${isoTime(sql`e.completed_at`)} AS completed_at, ${isoTime(sql`e.expires_at`)} AS expires_at`;

/** One export of the owner by its row id. */
export function exportQuery(owner: Owner, rowId: string): RawBuilder<ExportRow> {
  return sql`SELECT ${EXPORT_COLUMNS} FROM exports e WHERE e.id = ${rowId}::bigint AND ${ownedBy(owner, 'exports as e')}`;
}

/** The owner's exports of these types, newest first, below `before` (a row id). */
export function pageQuery(
  owner: Owner,
  o: { types: readonly ExportType[]; before: string | null; limit: number },
): RawBuilder<ExportRow> {
  const before = o.before ? sql`AND e.id < ${o.before}::bigint` : sql``;
  return sql`SELECT ${EXPORT_COLUMNS} FROM exports e
    WHERE ${ownedBy(owner, 'exports as e')} AND e.type = ANY (${[...o.types]}::text[]) ${before}
    ORDER BY e.id DESC LIMIT ${o.limit}`;
}

/**
 * Inserts a queued export unless the owner already has one queued or running (the partial unique
 * index `exports_one_running_idx`): no row back means the other one won.
 */
export function insertQuery(
  owner: Owner,
  o: { type: ExportType; filters: unknown; canReadCustomers: boolean },
): RawBuilder<{ id: string }> {
  return sql`INSERT INTO exports (store_id, livemode, type, filters, can_read_customers)
    VALUES (${owner.storeId}, ${owner.livemode}, ${o.type}, ${JSON.stringify(o.filters)}::jsonb, ${o.canReadCustomers})
    ON CONFLICT (store_id, livemode) WHERE status IN ('queued', 'running') DO NOTHING
    RETURNING id::text AS id`;
}

/** The owner's export that is queued or running, if any. */
export function runningQuery(owner: Owner): RawBuilder<{ id: string }> {
  return sql`SELECT e.id::text AS id FROM exports e
    WHERE ${ownedBy(owner, 'exports as e')} AND e.status IN ('queued', 'running')`;
}

/** How many exports the owner created since `since`, and the oldest of them (when the next slot frees). */
export function createdSinceQuery(
  owner: Owner,
  interval: string,
): RawBuilder<{ n: number; oldest: string | null }> {
  return sql`SELECT count(*)::integer AS n, ${isoTime(sql`min(e.created_at)`)} AS oldest FROM exports e
    WHERE ${ownedBy(owner, 'exports as e')} AND e.created_at > now() - ${interval}::interval`;
}
