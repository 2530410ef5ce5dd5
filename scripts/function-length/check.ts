/**
 * The function-length rule over the project's sources: every function at most LENGTH_LIMIT lines,
 * counted with its template literals' text (measure.ts). Biome holds the same limit without that text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type FunctionLength, measureFunctions } from './measure.ts';

/** The same limit as biome.json's noExcessiveLinesPerFunction. */
export const LENGTH_LIMIT = 60;

/**
 * Where the rule applies. Not the tests, nor bench/ (which Biome does not hold either: its `main` is
 * 555 lines of scenario table).
 */
const ROOTS = ['src', 'server', 'jobs', 'client/src'];

/** Migrations are append-only, as Biome's override says; generated code is not written by hand. */
const EXEMPT = [/^src\/migrations\//, /^client\/src\/generated\//];

export interface Offender extends FunctionLength {
  file: string;
}

/** Every `.ts` file the rule applies to, relative to the project root, in a stable order. */
export function sourceFiles(root: string): string[] {
  return ROOTS.filter((dir) => existsSync(join(root, dir)))
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .map((file) =>
          relative(root, join(root, dir, file))
            .split('\\')
            .join('/'),
        )
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
        .filter((file) => !EXEMPT.some((pattern) => pattern.test(file))),
    )
    .sort();
}

export function findOffenders(root: string, limit = LENGTH_LIMIT): Offender[] {
  return sourceFiles(root).flatMap((file) =>
    measureFunctions(readFileSync(join(root, file), 'utf8'))
      .filter((fn) => fn.lines > limit)
      .map((fn) => ({ file, ...fn })),
  );
}
