import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findOffenders, LENGTH_LIMIT } from '../../scripts/function-length/check.ts';
import { measureFunctions } from '../../scripts/function-length/measure.ts';

const root = join(import.meta.dirname, '../..');
const lengths = (source: string) =>
  Object.fromEntries(measureFunctions(source).map((f) => [f.name, [f.lines, f.biomeLines]]));

/** A function of `lines` lines, all but two of them SQL text, which Biome does not count. */
const longSql = (lines: number) =>
  [
    'export async function insertMany(run: (q: string) => Promise<void>) {',
    '  await run(`INSERT INTO t (a)',
    ...Array.from({ length: lines - 3 }, (_, i) => `    SELECT ${i}`),
    '  `);',
    '  return 1;',
    '}',
  ].join('\n');

describe('measureFunctions', () => {
  // Each second figure is what `biome lint` (2.5, skipBlankLines) reported for the same source.
  it("counts a function's body the way Biome does, when it has no template text", () => {
    const source = `
export function plain(a: number) {
  const x = 1;

  // a comment line is not counted, nor a blank one
  return x + a;
}
export function braces() {
  a([
    {
      u: 1,
    },
  ]);
  if (a()) {
    a();
  } else {
    a();
  }
}
export const arrow = () =>
  a(
    1,
  );
export const params = async (
  x: number,
) => {
  a(x);
};
class K {
  method() {
    return 1 +
      2;
  }
}
function a(..._a: unknown[]) { return 1; }
`;
    expect(lengths(source)).toEqual({
      plain: [2, 2],
      braces: [6, 6],
      arrow: [3, 3],
      params: [1, 1],
      'K.method': [2, 2],
      a: [0, 0],
    });
  });

  it("counts the lines of a template literal's text, which Biome skips", () => {
    const source = `
export function query(id: number) {
  const q = sql\`SELECT a
    FROM t

    WHERE id = \${id}
      AND b\`;
  return q;
}
export function strings() {
  return [
    'a // not a comment',
    '} neither a brace',
  ];
}
function sql(..._a: unknown[]) { return 1; }
`;
    expect(lengths(source)).toMatchObject({ query: [5, 2], strings: [4, 4] });
  });

  it('names methods, properties and callbacks as a reader finds them', () => {
    const source = `
class Run { async deliver() {} #take() {} }
const routes = { list: () => 1, get() {} };
export default function () {}
describe('x', () => {});
`;
    expect(measureFunctions(source).map((f) => f.name)).toEqual([
      'Run.deliver',
      'Run.#take',
      'routes.list',
      'routes.get',
      'default',
      '(module) callback',
    ]);
  });

  it('reports the line a function starts on, past multi-byte text and a shebang', () => {
    const source = "#!/usr/bin/env node\n// café\nconst s = 'é';\nexport function f() {\n  return s;\n}\n";
    expect(measureFunctions(source)).toEqual([{ name: 'f', line: 4, lines: 1, biomeLines: 1 }]);
  });
});

describe('the function-length rule', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'function-length-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('fails on a function whose SQL takes it over the limit, though Biome passes it', () => {
    mkdirSync(join(scratch, 'src'), { recursive: true });
    writeFileSync(join(scratch, 'src', 'long.ts'), longSql(LENGTH_LIMIT + 1));
    writeFileSync(join(scratch, 'src', 'short.ts'), longSql(LENGTH_LIMIT));
    const offenders = findOffenders(scratch);
    expect(offenders).toMatchObject([{ file: 'src/long.ts', name: 'insertMany', lines: LENGTH_LIMIT + 1 }]);
    expect(offenders[0]?.biomeLines).toBe(2);
  });

  it('holds over src/, server/, jobs/ and client/src/', () => {
    expect(findOffenders(root).map((o) => `${o.file} ${o.name} ${o.lines}`)).toEqual([]);
  });
});
