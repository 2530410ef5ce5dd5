import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { FUNCTIONS_DIR } from '../src/db/function-files.ts';
import { readDefinitions, type StoredFunction } from './db-functions-read.ts';

/**
 * `npm run db:functions [DATABASE_URL]`: writes src/db/functions/<name>.sql from a migrated database,
 * for every function of ours in it, keeping each file's header comment (and `-- requires:` lines).
 * For a function a migration created before it had a file, and to put a hand-edited file into the
 * form the database prints it in (what test/runtime/db-functions.test.ts compares). The files are the source
 * of truth: migrate the database before writing from it, or an edit not yet run is lost.
 */
async function main(): Promise<void> {
  const url = process.argv[2] ?? process.env.DATABASE_URL;
  if (!url) {
    console.error('usage: npm run db:functions -- postgres://… (or DATABASE_URL): a migrated database');
    process.exit(2);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const [name, definition] of await readDefinitions(client)) {
      const path = join(FUNCTIONS_DIR, `${name}.sql`);
      const header = existsSync(path) ? headerOf(readFileSync(path, 'utf8')) : '';
      if (!header) console.error(`${name}.sql: write a header comment saying what it does and why`);
      writeFileSync(path, render(header, definition));
    }
  } finally {
    await client.end();
  }
}

function render(header: string, definition: StoredFunction): string {
  return `${header}${[...definition.functions, ...definition.triggers].map((s) => `${s.trimEnd()};\n`).join('\n')}`;
}

/** The comment lines a file starts with, and the blank line after them. */
function headerOf(sql: string): string {
  const lines = sql.split('\n');
  const end = lines.findIndex((l) => !l.startsWith('--'));
  return end > 0 ? `${lines.slice(0, end).join('\n')}\n\n` : '';
}

await main();
