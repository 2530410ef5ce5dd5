import type pg from 'pg';
import { applyOrder, type FunctionFile, readFunctionFiles } from '../src/db/function-files.ts';

/**
 * Runs each function file that is new or changed since it last ran (its sha256 against
 * `schema_functions`), each in its own transaction, in `applyOrder`; forgets the files that are gone.
 * Called by `migrate()` after every versioned migration, under its advisory lock: two processes
 * starting at once never run a file twice or side by side. Returns the names of the files it ran.
 */
export async function applyFunctionFiles(
  client: pg.ClientBase,
  files = readFunctionFiles(),
): Promise<string[]> {
  const { rows } = await client.query<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM schema_functions',
  );
  const applied = new Map(rows.map((r) => [r.name, r.checksum]));
  const ran: string[] = [];
  for (const file of applyOrder(files)) {
    if (applied.get(file.name) === file.checksum) continue;
    await runFile(client, file);
    ran.push(file.name);
  }
  // Dropping a function is a versioned migration's work; its row goes with its file, so the file
  // written again one day runs again.
  await client.query('DELETE FROM schema_functions WHERE NOT (name = ANY($1))', [files.map((f) => f.name)]);
  return ran;
}

async function runFile(client: pg.ClientBase, file: FunctionFile): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(file.sql);
    await client.query(
      `INSERT INTO schema_functions (name, checksum) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
      [file.name, file.checksum],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw new Error(`src/db/functions/${file.name}.sql: ${(err as Error).message}`, { cause: err });
  }
}
