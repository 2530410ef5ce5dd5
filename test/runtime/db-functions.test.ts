import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFunctionFiles } from '../../server/db-functions.ts';
import { readDefinitions } from '../../server/db-functions-read.ts';
import { migrate, openOrm } from '../../server/orm.ts';
import {
  applyOrder,
  FUNCTIONS_DIR,
  type FunctionFile,
  readFunctionFiles,
} from '../../src/db/function-files.ts';
import { migrationsList } from '../../src/migrations/index.ts';
import { cloneDatabase, functionDrift } from '../helpers/db-functions.ts';

/**
 * src/db/functions/ holds the current definition of every function and trigger of ours
 * (docs/architecture.md, "Database functions"); `migrate()` runs a file again when it changes. The
 * migrated database must hold exactly the files' definitions, so a function created or redefined
 * anywhere else, or a file that does not say what the database runs, is a failing test.
 */
const files = readFunctionFiles();

describe('function files and the migrated database', () => {
  let db: { url: string; client: pg.Client };
  beforeAll(async () => {
    db = await cloneDatabase();
  });
  afterAll(async () => db?.client.end());

  it('every function of ours has a file, every file a function, and the database holds each file as written', async () => {
    expect(files.length).toBeGreaterThan(40);
    expect(await functionDrift(db.client, files)).toEqual([]);
  });

  it('has run each file once: its checksum is recorded', async () => {
    const { rows } = await db.client.query('SELECT name, checksum FROM schema_functions ORDER BY name');
    expect(rows).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
  });

  it('each file starts with a comment saying what it does', () => {
    const bare = files.filter((f) => !/^-- \S/.test(f.sql)).map((f) => f.name);
    expect(bare).toEqual([]);
  });

  it('no migration after the function files defines a function or a trigger: their files do', () => {
    const cutover = migrationsList.findIndex((m) => m.name === 'Migration20261129031000_schema_functions');
    const later = migrationsList.slice(cutover + 1).map((m) => m.name);
    const defining = later.filter((name) =>
      /CREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|TRIGGER)\b/i.test(
        readFileSync(join(import.meta.dirname, '../../src/migrations', `${name}.ts`), 'utf8'),
      ),
    );
    expect(cutover).toBeGreaterThan(0);
    expect(defining).toEqual([]);
  });
});

describe('the comparison fails when the database and the files part', () => {
  let db: { url: string; client: pg.Client };
  beforeAll(async () => {
    db = await cloneDatabase();
  });
  afterAll(async () => db?.client.end());

  it('names a function redefined outside its file, as a migration of old would', async () => {
    const file = fileNamed('product_stock_fanout');
    await db.client.query(file.sql.replace('RETURN NULL;', 'RETURN NULL; -- an older body'));
    expect(await functionDrift(db.client, files)).toEqual([
      expect.stringMatching(/^product_stock_fanout\.sql: the database holds another function/),
      expect.stringMatching(/^product_stock_fanout\.sql: the database lacks this function/),
    ]);
    await db.client.query(file.sql);
  });

  it('names a file edited and not run', async () => {
    const edited = files.map((f) =>
      f.name === 'products_copy_owner'
        ? { ...f, sql: f.sql.replace('RETURN NEW;', 'RETURN NEW; -- edited') }
        : f,
    );
    expect(await functionDrift(db.client, edited)).toEqual([
      expect.stringMatching(/^products_copy_owner\.sql: the database holds another function/),
      expect.stringMatching(/^products_copy_owner\.sql: the database lacks this function/),
    ]);
  });

  it('names a trigger changed or added outside its file, and a function with no file', async () => {
    await db.client.query('BEGIN');
    try {
      await db.client.query('DROP TRIGGER products_copy_owner ON products');
      await db.client.query(
        'CREATE TRIGGER orders_counts_ins_again AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_inserted()',
      );
      await db.client.query('CREATE FUNCTION unfiled() RETURNS int LANGUAGE sql RETURN 1');
      expect(await functionDrift(db.client, files)).toEqual([
        'unfiled: in the database, no file',
        expect.stringMatching(
          /^order_counts_inserted\.sql: the database holds another trigger: .*orders_counts_ins_again/,
        ),
        expect.stringMatching(/^products_copy_owner\.sql: the database lacks this trigger/),
      ]);
    } finally {
      await db.client.query('ROLLBACK');
    }
  });

  it('names a file holding more than its function and triggers', async () => {
    const extra = files.map((f) =>
      f.name === 'earn_at' ? { ...f, sql: `${f.sql}\nALTER TABLE products ADD x int;\n` } : f,
    );
    expect(await functionDrift(db.client, extra)).toEqual([
      'earn_at.sql: not its function or a trigger: ALTER TABLE products ADD x int',
    ]);
  });
});

describe('running the files', () => {
  let db: { url: string; client: pg.Client };
  let dir: string;
  beforeAll(async () => {
    db = await cloneDatabase();
    dir = mkdtempSync(join(tmpdir(), 'db-functions-'));
    cpSync(FUNCTIONS_DIR, dir, { recursive: true });
  });
  afterAll(async () => {
    await db?.client.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs only the files that changed or are new, and records them', async () => {
    expect(await applyFunctionFiles(db.client, readFunctionFiles(dir))).toEqual([]);
    edit(dir, 'products_copy_owner', (sql) => sql.replace('RETURN NEW;', 'RETURN NEW; -- edited'));
    writeFileSync(
      join(dir, 'zz_probe.sql'),
      '-- A probe.\n\nCREATE OR REPLACE FUNCTION public.zz_probe()\n RETURNS integer\n LANGUAGE sql\nRETURN 1;\n',
    );
    expect(await applyFunctionFiles(db.client, readFunctionFiles(dir))).toEqual([
      'products_copy_owner',
      'zz_probe',
    ]);
    expect(await functionDrift(db.client, readFunctionFiles(dir))).toEqual([]);
    expect(await applyFunctionFiles(db.client, readFunctionFiles(dir))).toEqual([]);
    const { rows } = await db.client.query(
      "SELECT name, checksum FROM schema_functions WHERE name IN ('products_copy_owner', 'zz_probe') ORDER BY name",
    );
    expect(rows).toEqual(
      readFunctionFiles(dir)
        .filter((f) => f.name === 'products_copy_owner' || f.name === 'zz_probe')
        .map((f) => ({ name: f.name, checksum: f.checksum })),
    );
  });

  it('forgets a file that is gone, so the file written again runs again', async () => {
    rmSync(join(dir, 'zz_probe.sql'));
    expect(await applyFunctionFiles(db.client, readFunctionFiles(dir))).toEqual([]);
    const { rowCount } = await db.client.query("SELECT 1 FROM schema_functions WHERE name = 'zz_probe'");
    expect(rowCount).toBe(0);
    await db.client.query('DROP FUNCTION zz_probe()');
  });

  it('a file that fails is undone whole and named, and runs again once mended', async () => {
    edit(
      dir,
      'facet_cells_truncated',
      (sql) => `${sql.replace('RETURN NULL;', 'RETURN NULL; -- edited')}\nSELECT 1/0;\n`,
    );
    await expect(applyFunctionFiles(db.client, readFunctionFiles(dir))).rejects.toThrow(
      'src/db/functions/facet_cells_truncated.sql: division by zero',
    );
    const held = (await readDefinitions(db.client)).get('facet_cells_truncated');
    expect(held?.functions.join()).not.toContain('-- edited');
    const { rows } = await db.client.query(
      "SELECT checksum FROM schema_functions WHERE name = 'facet_cells_truncated'",
    );
    expect(rows).toEqual([{ checksum: fileNamed('facet_cells_truncated').checksum }]);
    edit(dir, 'facet_cells_truncated', (sql) => sql.replace('\nSELECT 1/0;\n', ''));
    expect(await applyFunctionFiles(db.client, readFunctionFiles(dir))).toEqual(['facet_cells_truncated']);
    expect(await functionDrift(db.client, readFunctionFiles(dir))).toEqual([]);
  });
});

describe('migrating', () => {
  it('two processes migrating at once run each file once, one after the other', async () => {
    const db = await cloneDatabase();
    await db.client.query('DELETE FROM schema_functions');
    const orms = await Promise.all([openOrm(db.url, 1), openOrm(db.url, 1)]);
    try {
      await Promise.all(orms.map((orm) => migrate(orm, db.url)));
      expect(await functionDrift(db.client, files)).toEqual([]);
      const { rows } = await db.client.query('SELECT count(*)::int AS n FROM schema_functions');
      expect(rows).toEqual([{ n: files.length }]);
    } finally {
      await Promise.all(orms.map((orm) => orm.close(true)));
      await db.client.end();
    }
  });
});

describe('the order files run in', () => {
  const file = (name: string, requires: string[] = []): FunctionFile => ({
    name,
    sql: '',
    checksum: '',
    requires,
  });

  it('is by name, a file after those it requires', () => {
    const order = applyOrder([file('c'), file('a', ['d']), file('b'), file('d', ['c'])]).map((f) => f.name);
    expect(order).toEqual(['c', 'd', 'a', 'b']);
  });

  it('refuses a requirement with no file, or files requiring each other', () => {
    expect(() => applyOrder([file('a', ['x'])])).toThrow('a.sql requires x, which has no file');
    expect(() => applyOrder([file('a', ['b']), file('b', ['a'])])).toThrow(
      'function files require each other: a → b → a',
    );
  });

  it('reads `-- requires:` lines from the files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-functions-'));
    try {
      writeFileSync(
        join(dir, 'a.sql'),
        '-- A.\n-- requires: b, c\n-- requires: d\n\nSELECT 1; -- requires: e\n',
      );
      expect(readFunctionFiles(dir)[0]?.requires).toEqual(['b', 'c', 'd']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every file in src/db/functions is a function file', () => {
    expect(readdirSync(FUNCTIONS_DIR).filter((f) => !f.endsWith('.sql'))).toEqual([]);
  });
});

function fileNamed(name: string): FunctionFile {
  const file = files.find((f) => f.name === name);
  if (!file) throw new Error(`no file ${name}.sql`);
  return file;
}

function edit(dir: string, name: string, change: (sql: string) => string): void {
  const path = join(dir, `${name}.sql`);
  writeFileSync(path, change(readFileSync(path, 'utf8')));
}
