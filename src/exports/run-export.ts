import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { recordEvents } from '../events/outbox.ts';
import { EVENT, type ExportEvent } from '../events/vocabulary/index.ts';
import type { ExportSettings } from '../settings.ts';
import { type ExportFileStore, fileKeyOf } from './file-store.ts';
import { type LineSource, lineSource } from './line-sources.ts';
import type { Continuation, ExportRow } from './queries.ts';

export interface RunExportDeps {
  /** A new EntityManager of the worker's pool (each call a fresh one). */
  em(): EntityManager;
  settings: ExportSettings;
  files: ExportFileStore;
  /** Told each batch's progress once recorded (the tests commit writes between batches with it). */
  onProgress?: (rowsWritten: number) => Promise<void>;
}

/** What a finished read wrote: rows, bytes and where the feeds go on from its snapshot. */
interface Written {
  rows: number;
  bytes: number;
  continuation: Continuation;
}

/** Takes the export for this run: a queued one, or a running one a crashed run left. Nothing for an ended one. */
async function claim(em: EntityManager, rowId: string): Promise<ExportRow | undefined> {
  const [row] = await rows<ExportRow>(
    em,
    sql`UPDATE exports e SET status = 'running', started_at = COALESCE(e.started_at, now()), rows_written = 0
      WHERE e.id = ${rowId}::bigint AND e.status IN ('queued', 'running')
      RETURNING e.id::text AS id, e.store_id, e.livemode, e.type, e.status, e.filters, e.can_read_customers`,
  );
  return row;
}

/**
 * The feeds' positions at the snapshot: everything the snapshot does not see was written by a
 * transaction whose xid is at least its xmin (every xid below it had ended when it was taken), and
 * what that change puts in a feed (its own row, or an event the dispatcher writes later) has an xid at
 * least as high. So reading the feeds from (xmin, 0) misses nothing the file lacks (docs/decisions.md,
 * "Bulk export: continuation").
 */
async function positions(tx: EntityManager, type: ExportRow['type']): Promise<Continuation> {
  const [s] = await rows<{ xmin: string }>(
    tx,
    sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
  );
  const xmin = s?.xmin ?? '0';
  return { events: { xid: xmin, id: '0' }, inventory: type === 'listings' ? { xid: xmin, seq: '0' } : null };
}

/** The lines, a keyset batch at a time: never more than one batch in memory. */
async function* lines(
  tx: EntityManager,
  source: LineSource,
  batch: number,
  progress: (n: number) => Promise<void>,
): AsyncGenerator<string> {
  let after = 0;
  let written = 0;
  for (;;) {
    const found = await source(tx, after, batch);
    if (!found) return;
    yield `${found.items.map((item) => JSON.stringify(item)).join('\n')}\n`;
    written += found.items.length;
    after = found.last;
    await progress(written);
  }
}

/** Reads the whole match in one REPEATABLE READ READ ONLY transaction and streams it, gzip, to the file. */
async function write(deps: RunExportDeps, row: ExportRow, key: string): Promise<Written> {
  const file = await deps.files.create(key);
  let count = 0;
  const progress = async (n: number) => {
    count = n;
    // Its own short statement on another connection: the snapshot stays read-only.
    await rows(
      deps.em(),
      sql`UPDATE exports SET rows_written = ${n} WHERE id = ${row.id}::bigint AND status = 'running'`,
    );
    await deps.onProgress?.(n);
  };
  try {
    const continuation = await deps.em().transactional(
      async (tx) => {
        const at = await positions(tx, row.type);
        const source = await lineSource(tx, {
          storeId: row.store_id,
          livemode: row.livemode,
          canReadCustomers: row.can_read_customers,
          type: row.type,
          filters: row.filters,
        });
        // One batch buffered ahead at most: object-mode streams count chunks, and the default (16)
        // would hold sixteen batches.
        const read = Readable.from(lines(tx, source, deps.settings.batch, progress), { highWaterMark: 1 });
        await pipeline(read, createGzip(), file.stream);
        return at;
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
    await file.commit();
    return { rows: count, bytes: (await deps.files.size(key)) ?? 0, continuation };
  } catch (err) {
    await file.abort();
    throw err;
  }
}

/** The event an export ends with, in the transaction that ends it. */
function endEvent(row: ExportRow, event: ExportEvent, w: Written | null, error: ExportRow['error_code']) {
  return {
    storeId: row.store_id,
    livemode: row.livemode,
    event,
    entityId: Number(row.id),
    data: {
      export: {
        id: `exp_${row.id}`,
        object: 'export' as const,
        type: row.type,
        status: event === EVENT.export.completed ? ('completed' as const) : ('failed' as const),
        row_count: w?.rows ?? null,
        bytes: w?.bytes ?? null,
        error: error ? { code: error, message: FAILED_MESSAGE } : null,
      },
    },
  };
}

const FAILED_MESSAGE =
  'The export could not be written. Create a new export; if it fails again, contact support.';

/** Marks it completed and records export.completed together; a second run finds it ended and does neither. */
async function complete(deps: RunExportDeps, row: ExportRow, key: string, w: Written): Promise<boolean> {
  return deps.em().transactional(async (tx) => {
    const [done] = await rows(
      tx,
      sql`UPDATE exports SET status = 'completed', rows_written = ${w.rows}, row_count = ${w.rows},
          bytes = ${w.bytes}, file_key = ${key}, continuation = ${JSON.stringify(w.continuation)}::jsonb,
          completed_at = now(), expires_at = now() + ${deps.settings.retentionMs} * interval '1 millisecond'
        WHERE id = ${row.id}::bigint AND status = 'running' RETURNING id`,
    );
    if (done) await recordEvents(tx, [endEvent(row, EVENT.export.completed, w, null)]);
    return done !== undefined;
  });
}

/** Marks it failed and records export.failed together, once. */
export async function failExport(deps: Pick<RunExportDeps, 'em'>, rowId: string): Promise<boolean> {
  return deps.em().transactional(async (tx) => {
    const [row] = await rows<ExportRow>(
      tx,
      sql`UPDATE exports e SET status = 'failed', error_code = 'EXPORT_FAILED', error_message = ${FAILED_MESSAGE},
          completed_at = now()
        WHERE e.id = ${rowId}::bigint AND e.status IN ('queued', 'running')
        RETURNING e.id::text AS id, e.store_id, e.livemode, e.type`,
    );
    if (row) await recordEvents(tx, [endEvent(row, EVENT.export.failed, null, 'EXPORT_FAILED')]);
    return row !== undefined;
  });
}

/**
 * The job `export_run`: claims the export, writes its file from one snapshot and completes it. The
 * file's key is the export's, written whole or not at all, so a retry after a crash overwrites the
 * same key: never two files, and the completion (with its one event) is conditional on `running`.
 */
export async function runExport(deps: RunExportDeps, rowId: string): Promise<'completed' | 'skipped'> {
  const row = await claim(deps.em(), rowId);
  if (!row) return 'skipped';
  const key = fileKeyOf(row.id);
  const written = await write(deps, row, key);
  return (await complete(deps, row, key, written)) ? 'completed' : 'skipped';
}
