import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import type { ExportFileStore } from './file-store.ts';

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
