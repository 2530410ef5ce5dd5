import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The current definition of every function of ours, one `<name>.sql` per function with the triggers
 * that call it. `migrate()` runs the ones that changed after the versioned migrations
 * (docs/architecture.md, "Database functions").
 */
export const FUNCTIONS_DIR = join(import.meta.dirname, 'functions');

export interface FunctionFile {
  /** The function's name: the file's name without `.sql`. */
  name: string;
  sql: string;
  /** sha256 of the file's bytes, recorded in `schema_functions` once the file has run. */
  checksum: string;
  /** Functions whose files run first: the file's `-- requires: a, b` lines. */
  requires: string[];
}

export function readFunctionFiles(dir = FUNCTIONS_DIR): FunctionFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => {
      const sql = readFileSync(join(dir, f), 'utf8');
      return {
        name: f.slice(0, -'.sql'.length),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        requires: requiresOf(sql),
      };
    });
}

/** The `-- requires: a, b` lines of the comment a file starts with. */
function requiresOf(sql: string): string[] {
  const header = sql.slice(0, sql.search(/^(?!--)/m));
  return [...header.matchAll(/^-- requires: (.+)$/gm)].flatMap((m) =>
    (m[1] ?? '').split(',').map((s) => s.trim()),
  );
}

/**
 * The order files run in: by name, except that a file comes after the files it requires. Only a
 * function whose body PostgreSQL checks when it is created (`LANGUAGE sql`) needs to require
 * another; PL/pgSQL bodies are checked when they first run.
 */
export function applyOrder(files: FunctionFile[]): FunctionFile[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const done = new Set<string>();
  const order: FunctionFile[] = [];
  const visit = (file: FunctionFile, path: string[]) => {
    if (done.has(file.name)) return;
    if (path.includes(file.name))
      throw new Error(`function files require each other: ${[...path, file.name].join(' → ')}`);
    for (const name of file.requires) {
      const required = byName.get(name);
      if (!required) throw new Error(`${file.name}.sql requires ${name}, which has no file`);
      visit(required, [...path, file.name]);
    }
    done.add(file.name);
    order.push(file);
  };
  for (const file of [...files].sort((a, b) => (a.name < b.name ? -1 : 1))) visit(file, []);
  return order;
}
