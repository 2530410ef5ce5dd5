import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import checksums from '../../src/migrations/checksums.json' with { type: 'json' };
import { migrationsList } from '../../src/migrations/index.ts';

const DIR = join(import.meta.dirname, '../../src/migrations');
const files = readdirSync(DIR)
  .filter((f) => f.startsWith('Migration') && f.endsWith('.ts'))
  .sort();

/**
 * A database only ever runs a migration once, so a migration edited after it ran leaves that
 * database with a schema no fresh one has (it happened to the benchmark's database: see
 * docs/benchmarks.md). Migrations are therefore append-only: each file's checksum is committed, and
 * a change to one is a failing test, not a silent drift. A migration that has never landed may still
 * be edited by updating its checksum in the same commit.
 */
describe('migrations', () => {
  it('every migration file is applied, in the order of its timestamp', () => {
    expect(migrationsList.map((m) => m.name)).toEqual(files.map((f) => f.replace(/\.ts$/, '')));
    expect(migrationsList.map((m) => m.class.name)).toEqual(migrationsList.map((m) => m.name));
  });

  it('no migration changes once it is written: each matches its committed checksum', () => {
    const actual = Object.fromEntries(
      files.map((f) => [
        f.replace(/\.ts$/, ''),
        createHash('sha256')
          .update(readFileSync(join(DIR, f)))
          .digest('hex'),
      ]),
    );
    expect(actual, 'write a new migration instead of editing one that has run').toEqual(checksums);
  });
});
