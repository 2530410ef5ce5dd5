import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { ExportFileStore } from './file-store.ts';
import { checkSignature } from './signed-url.ts';

const gone = () =>
  new AppError(
    'not_found',
    'EXPORT_FILE_GONE',
    'The export has no file to download (not completed, failed, or expired)',
  );

/**
 * The file behind a signed download url: the signature is the credential (like an S3 presigned url,
 * no API key), so the export is looked up by the id it signs, after the signature holds. 403 for an
 * edited or expired url, 404 when the export has no file (any more).
 */
export async function openExportFile(
  em: EntityManager,
  files: ExportFileStore,
  o: { id: string; expires: string | null; signature: string | null },
) {
  const m = /^exp_([1-9]\d{0,17})$/.exec(o.id);
  if (!m) throw gone();
  const rowId = m[1] as string;
  await checkSignature(em, rowId, o);
  // By id alone: the signature proved which export, there is no actor (the url works without a key).
  const [row] = await rows<{ status: string; file_key: string | null }>(
    em,
    sql`SELECT x.status, x.file_key FROM exports x WHERE x.id = ${rowId}::bigint`,
  );
  if (row?.status !== 'completed' || !row.file_key) throw gone();
  const file = await files.open(row.file_key);
  if (!file) throw gone();
  return { ...file, filename: row.file_key };
}
