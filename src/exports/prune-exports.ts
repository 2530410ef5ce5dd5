import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { type ExportFileStore, fileKeyOf } from './file-store.ts';
import { failExport } from './run-export.ts';

/** Exports expired per transaction. */
export const PRUNE_BATCH = 500;

/**
 * The retention job: completed exports past `expires_at` lose their file and become `expired` (a
 * failed one has no file and stays `failed`), a batch per transaction. Rows are taken with SKIP
 * LOCKED, so two workers never expire the same ones; a file is deleted before its row commits, and a
 * deletion that finds no file (a retry) is fine.
 */
export async function pruneExports(
  newEm: () => EntityManager,
  files: ExportFileStore,
  batch = PRUNE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await newEm().transactional(async (tx) => {
      const due = await rows<{ id: string; file_key: string | null }>(
        tx,
        sql`SELECT id::text AS id, file_key FROM exports
          WHERE status = 'completed' AND expires_at <= now()
          ORDER BY expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
      );
      for (const d of due) if (d.file_key) await files.remove(d.file_key);
      if (due.length > 0) {
        await rows(
          tx,
          sql`UPDATE exports SET status = 'expired', file_key = NULL
            WHERE id = ANY (${due.map((d) => d.id)}::bigint[])`,
        );
      }
      return due.length;
    });
    total += n;
    if (n < batch) return total;
  }
}

/**
 * How long an export may stay queued or running before the retention job takes it for dead. A whole
 * 2M catalogue takes about a minute; a job whose worker died on its last attempt is never retried by
 * Graphile (and one that died earlier waits out Graphile's 4-hour lock), and until then the store
 * could start no export at all (one at a time).
 */
export const STALLED_AFTER_MINUTES = 120;

/**
 * Exports queued or running for longer than `STALLED_AFTER_MINUTES` are failed (`EXPORT_FAILED`, one
 * `export.failed`, as the job's last failing attempt would) and their unfinished file removed. A job
 * that wakes later finds the export failed and writes nothing (it claims only queued or running ones).
 */
export async function failStalledExports(
  newEm: () => EntityManager,
  files: ExportFileStore,
  stalledAfterMinutes = STALLED_AFTER_MINUTES,
): Promise<number> {
  const stalled = await rows<{ id: string }>(
    newEm(),
    sql`SELECT id::text AS id FROM exports
      WHERE status IN ('queued', 'running')
        AND coalesce(started_at, created_at) < now() - make_interval(mins => ${stalledAfterMinutes})
      ORDER BY id LIMIT ${PRUNE_BATCH}`,
  );
  let failed = 0;
  for (const { id } of stalled) {
    if (await failExport({ em: newEm }, id)) failed++;
    await files.remove(fileKeyOf(id));
  }
  return failed;
}
