import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { ensureDatabase } from '../../server/database.ts';
import { readDefinitions } from '../../server/db-functions-read.ts';
import type { FunctionFile } from '../../src/db/function-files.ts';
import { withDatabase } from './global-setup.ts';

/** A connected client on a fresh clone of the migrated template. */
export async function cloneDatabase(): Promise<{ url: string; client: pg.Client }> {
  const admin = inject('pgAdminUrl');
  const name = `fn_${randomUUID().replaceAll('-', '')}`;
  await ensureDatabase(admin, name, inject('templateDb'));
  const url = withDatabase(admin, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { url, client };
}

/**
 * Where the database and the function files disagree, one line each: a function with no file, a file
 * with no function, a file holding anything but its function and triggers, and a definition or a
 * trigger of the database that is not the file's (compared as PostgreSQL prints them, whitespace
 * aside). Empty when they agree.
 */
export async function functionDrift(client: pg.ClientBase, files: FunctionFile[]): Promise<string[]> {
  const stored = await readDefinitions(client);
  const problems: string[] = [];
  for (const name of stored.keys())
    if (!files.some((f) => f.name === name)) problems.push(`${name}: in the database, no file`);
  for (const file of files) {
    const statements = splitStatements(file.sql).map(normalise);
    const stray = statements.filter((s) => !/^CREATE OR REPLACE (FUNCTION|TRIGGER) /.test(s));
    for (const s of stray)
      problems.push(`${file.name}.sql: not its function or a trigger: ${s.slice(0, 60)}`);
    const held = stored.get(file.name);
    if (!held) {
      problems.push(`${file.name}.sql: no such function in the database`);
      continue;
    }
    const kinds = { functions: 'FUNCTION', triggers: 'TRIGGER' } as const;
    for (const [kind, word] of Object.entries(kinds) as Array<[keyof typeof kinds, string]>) {
      const inFile = statements.filter((s) => s.startsWith(`CREATE OR REPLACE ${word} `)).sort();
      const inDatabase = held[kind].map(normalise).sort();
      for (const s of inDatabase.filter((d) => !inFile.includes(d)))
        problems.push(`${file.name}.sql: the database holds another ${kind.slice(0, -1)}: ${s.slice(0, 80)}`);
      for (const s of inFile.filter((f) => !inDatabase.includes(f)))
        problems.push(`${file.name}.sql: the database lacks this ${kind.slice(0, -1)}: ${s.slice(0, 80)}`);
    }
  }
  return problems;
}

function normalise(statement: string): string {
  return statement.replace(/\s+/g, ' ').trim();
}

/**
 * A file's statements, without the comments between them: what the test compares with the
 * database's definitions. Quotes, quoted names and dollar-quoted bodies are read whole;
 * `BEGIN ATOMIC` bodies are not supported (write `RETURN …` or a dollar-quoted body).
 */
function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const skipped = quotedOrComment(sql, i);
    if (skipped !== undefined) {
      if (!sql.startsWith('--', i) && !sql.startsWith('/*', i)) current += sql.slice(i, skipped);
      else current += ' ';
      i = skipped;
    } else if (sql[i] === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      i++;
    } else {
      current += sql[i++];
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

/** Where the quoted text or comment that starts at `i` ends, or undefined when none starts there. */
function quotedOrComment(sql: string, i: number): number | undefined {
  if (sql.startsWith('--', i)) {
    const end = sql.indexOf('\n', i);
    return end < 0 ? sql.length : end;
  }
  if (sql.startsWith('/*', i)) return closing(sql, '*/', i + 2);
  if (sql[i] === "'" || sql[i] === '"') return closing(sql, sql[i], i + 1);
  const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64))?.[0];
  return tag ? closing(sql, tag, i + tag.length) : undefined;
}

function closing(sql: string, end: string, from: number): number {
  const at = sql.indexOf(end, from);
  if (at < 0) throw new Error(`unterminated ${end} in a function file`);
  return at + end.length;
}
