import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { oas31 } from 'zod-openapi';
import {
  type CheckInput,
  checkContract,
  diffContracts,
  parseChangelog,
  type Released,
  requiredLevel,
  runCheck,
} from '../../server/contract/check.ts';

/**
 * The contract check (server/contract/check.ts) on small fixture contracts: every kind of change
 * and the version bump and changelog entry it needs, the removal rule, the command line, and the
 * repository itself.
 */

/** A fixture contract: an OpenAPI 3.1 document, edited through `node` and `list` below. */
type Doc = oas31.OpenAPIObject;

const ROOT = resolve(import.meta.dirname, '../..');

function baseDoc(version = '1.0.0'): Doc {
  const thing = () => ({
    description: 'OK',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'Fixture API', version },
    paths: {
      '/api/v1/things': {
        get: {
          operationId: 'listThings',
          summary: 'List things',
          parameters: [
            {
              in: 'query',
              name: 'status',
              required: false,
              schema: { type: 'string', enum: ['open', 'closed'] },
            },
          ],
          responses: {
            '200': {
              description: 'OK',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['things'],
                    properties: { things: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } },
                  },
                },
              },
            },
            '401': { description: 'Unauthorized' },
          },
        },
        post: {
          operationId: 'createThing',
          summary: 'Create a thing',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['name'],
                  properties: { name: { type: 'string' }, colour: { type: 'string' } },
                },
              },
            },
          },
          responses: { '201': thing() },
        },
      },
      '/api/v1/things/{id}': {
        get: {
          operationId: 'getThing',
          summary: 'One thing',
          parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'integer' } }],
          responses: { '200': thing() },
        },
      },
    },
    webhooks: {
      'thing.created': {
        post: {
          operationId: 'thingCreatedWebhook',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    event: { type: 'string', const: 'thing.created' },
                    data: { $ref: '#/components/schemas/Thing' },
                  },
                },
              },
            },
          },
          responses: { '200': { description: 'Acknowledged' } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer' },
            name: { type: 'string' },
            colour: { anyOf: [{ type: 'string', enum: ['red', 'blue'] }, { type: 'null' }] },
          },
        },
      },
    },
  };
}

/** A copy of `doc` at `version`, edited by `edit`. */
function next(doc: Doc, version: string, edit: (d: Doc) => void = () => {}): Doc {
  const copy = structuredClone(doc);
  copy.info.version = version;
  edit(copy);
  return copy;
}

/** The object at `path` in a fixture, for an edit to reach into; a path the fixture lacks throws. */
function node(from: object, ...path: (string | number)[]): Record<string, unknown> {
  let at: unknown = from;
  for (const key of path) at = (at as Record<string | number, unknown> | null | undefined)?.[key];
  if (typeof at !== 'object' || at === null)
    throw new Error(`the fixture has no object at ${path.join(' ')}`);
  return at as Record<string, unknown>;
}

/** The array at `path` in a fixture (see `node`). */
function list(from: object, ...path: (string | number)[]): unknown[] {
  const at = node(from, ...path);
  if (!Array.isArray(at)) throw new Error(`the fixture has no array at ${path.join(' ')}`);
  return at;
}

type Entry = [version: string, date: string, sections: Record<string, string[]>];
function changelog(...entries: Entry[]): string {
  return [
    '# Changelog',
    '',
    'Intro.',
    '',
    ...entries.flatMap(([version, date, sections]) => [
      `## [${version}] - ${date}`,
      '',
      ...Object.entries(sections).flatMap(([name, items]) => [
        `### ${name}`,
        ...items.map((i) => `- ${i}`),
        '',
      ]),
    ]),
  ].join('\n');
}

const FIRST: Entry = ['1.0.0', '2026-11-22', { Added: ['Everything.'] }];
const TODAY = '2026-12-01';

function check(current: Doc, released: Doc[], log: string, today = TODAY) {
  const input: CheckInput = {
    current,
    released: released.map((doc): Released => ({ version: doc.info.version, doc })),
    changelog: log,
    today,
  };
  return checkContract(input);
}

const problemsOf = (r: { problems: string[] }) => r.problems.join('\n');

describe('the contract check', () => {
  const v1 = baseDoc();

  it('passes a document that is the newest released copy', () => {
    const r = check(v1, [v1], changelog(FIRST));
    expect(problemsOf(r)).toBe('');
    expect(r.ok).toBe(true);
  });

  it('refuses a change without a version bump, naming the version it needs', () => {
    const changed = next(v1, '1.0.0', (d) => {
      node(d, 'paths', '/api/v1/things', 'get').description = 'Now described.';
    });
    const r = check(changed, [v1], changelog(FIRST));
    expect(r.ok).toBe(false);
    expect(problemsOf(r)).toContain('info.version is still 1.0.0');
    expect(problemsOf(r)).toContain('1.0.1');
  });

  it('takes an addition as a patch: bumped, dated in the changelog and kept as released', () => {
    const added = next(v1, '1.0.1', (d) => {
      node(d, 'paths')['/api/v1/stock'] = {
        get: { operationId: 'getStock', responses: { '200': { description: 'OK' } } },
      };
      node(d, 'components', 'schemas', 'Thing', 'properties').weight = { type: 'number' };
      list(d, 'components', 'schemas', 'Thing', 'properties', 'colour', 'anyOf', 0, 'enum').push('green');
      // A webhook payload field that is now always sent: more for the receiver, nothing asked of it.
      const content = node(d, 'webhooks', 'thing.created', 'post', 'requestBody', 'content');
      node(content, 'application/json', 'schema').required = ['event'];
    });
    expect(requiredLevel(diffContracts(v1, added))).toBe('patch');
    const log = changelog(['1.0.1', '2026-11-30', { Added: ['`GET /api/v1/stock`.'] }], FIRST);
    expect(problemsOf(check(added, [v1, added], log))).toBe('');

    // Not yet kept as released: everything else holds, so `--release` may write the copy.
    const unkept = check(added, [v1], log);
    expect(unkept.ok).toBe(false);
    expect(unkept.releasable).toBe('1.0.1');
    expect(problemsOf(unkept)).toContain('docs/contract/openapi-1.0.1.json');

    // A bump that skips a version, a missing or undated changelog entry: refused.
    expect(problemsOf(check(next(added, '1.0.2'), [v1, next(added, '1.0.2')], log))).toContain(
      'not one step from 1.0.0',
    );
    expect(problemsOf(check(added, [v1, added], changelog(FIRST)))).toContain('no entry "## [1.0.1]');
    const undated = changelog(['1.0.1', 'someday', { Added: ['x'] }], FIRST);
    expect(problemsOf(check(added, [v1, added], undated))).toContain('1.0.1 needs a date');
  });

  it('takes a deprecation as minor, and wants its sunset date', () => {
    const deprecated = next(v1, '1.0.1', (d) => {
      Object.assign(node(d, 'paths', '/api/v1/things/{id}', 'get'), {
        deprecated: true,
        'x-sunset': '2027-01-01',
      });
    });
    expect(requiredLevel(diffContracts(v1, deprecated))).toBe('minor');
    const patchLog = changelog(['1.0.1', '2026-11-30', { Deprecated: ['`getThing`.'] }], FIRST);
    expect(problemsOf(check(deprecated, [v1, deprecated], patchLog))).toContain('a minor change (1.1.0)');

    const minor = next(deprecated, '1.1.0');
    const log = changelog(['1.1.0', '2026-11-30', { Deprecated: ['`getThing`: use `listThings`.'] }], FIRST);
    expect(problemsOf(check(minor, [v1, minor], log))).toBe('');
    const noSection = changelog(['1.1.0', '2026-11-30', { Changed: ['`getThing`.'] }], FIRST);
    expect(problemsOf(check(minor, [v1, minor], noSection))).toContain('no "### Deprecated" section');

    // Without x-sunset, the changelog entry must name the date.
    const noSunset = next(v1, '1.1.0', (d) => {
      node(d, 'paths', '/api/v1/things/{id}', 'get').deprecated = true;
    });
    expect(problemsOf(check(noSunset, [v1, noSunset], log))).toContain('must name its sunset date');
    const withNote = changelog(
      ['1.1.0', '2026-11-30', { Deprecated: ['`getThing`. Sunset: 2027-01-01.'] }],
      FIRST,
    );
    expect(problemsOf(check(noSunset, [v1, noSunset], withNote))).toBe('');
  });

  describe('removals', () => {
    const withoutGet = (d: Doc) => {
      delete node(d, 'paths')['/api/v1/things/{id}'];
    };

    it('detects removed operations, webhook events, parameters, fields, answers and enum values', () => {
      const cases: [string, (d: Doc) => void, string][] = [
        ['path', withoutGet, 'operation GET /api/v1/things/{id} removed'],
        [
          'operation',
          (d) => delete node(d, 'paths', '/api/v1/things').post,
          'operation POST /api/v1/things removed',
        ],
        [
          'webhook event',
          (d) => delete node(d, 'webhooks')['thing.created'],
          'webhook thing.created removed',
        ],
        [
          'parameter',
          (d) => (node(d, 'paths', '/api/v1/things', 'get').parameters = []),
          'parameter GET /api/v1/things param query:status removed',
        ],
        [
          'response field',
          (d) => delete node(d, 'components', 'schemas', 'Thing', 'properties').colour,
          'colour removed',
        ],
        [
          'request field',
          (d) => {
            const content = node(d, 'paths', '/api/v1/things', 'post', 'requestBody', 'content');
            delete node(content, 'application/json', 'schema', 'properties').colour;
          },
          'request application/json colour removed',
        ],
        [
          'success answer',
          (d) => delete node(d, 'paths', '/api/v1/things/{id}', 'get', 'responses')['200'],
          'response GET /api/v1/things/{id} response 200 removed',
        ],
        [
          'enum value',
          (d) => list(d, 'components', 'schemas', 'Thing', 'properties', 'colour', 'anyOf', 0, 'enum').pop(),
          'enum value "blue"',
        ],
        [
          'parameter enum value',
          (d) => list(d, 'paths', '/api/v1/things', 'get', 'parameters', 0, 'schema', 'enum').pop(),
          'enum value "closed"',
        ],
      ];
      for (const [label, edit, expected] of cases) {
        const changes = diffContracts(v1, next(v1, '2.0.0', edit));
        expect(changes.removed.join('\n'), label).toContain(expected);
        expect(requiredLevel(changes), label).toBe('major');
      }
      // A removed field is reported once, with every place the shared schema is used, not per sub-field.
      const gone = diffContracts(
        v1,
        next(v1, '2.0.0', (d) => delete node(d, 'components', 'schemas', 'Thing', 'properties').colour),
      );
      expect(gone.removed.every((r) => r.includes('colour removed'))).toBe(true);
    });

    it('needs a major bump and an earlier released deprecation with a sunset date', () => {
      const removed = next(v1, '2.0.0', withoutGet);
      const log = changelog(['2.0.0', '2026-11-30', { Removed: ['`GET /api/v1/things/{id}`.'] }], FIRST);
      const r = check(removed, [v1, removed], log);
      expect(problemsOf(r)).toContain('no earlier release deprecated it with a sunset date');

      const patch = next(v1, '1.0.1', withoutGet);
      expect(
        problemsOf(check(patch, [v1, patch], changelog(['1.0.1', '2026-11-30', { Removed: ['x'] }], FIRST))),
      ).toContain('a major change (2.0.0)');
    });

    it('allows a removal after a released deprecation whose sunset date has come', () => {
      const deprecated = next(v1, '1.1.0', (d) => {
        Object.assign(node(d, 'paths', '/api/v1/things/{id}', 'get'), {
          deprecated: true,
          'x-sunset': '2027-01-01',
        });
      });
      const removed = next(deprecated, '2.0.0', withoutGet);
      const log = changelog(
        ['2.0.0', '2027-01-02', { Removed: ['`GET /api/v1/things/{id}`.'] }],
        ['1.1.0', '2026-11-30', { Deprecated: ['`GET /api/v1/things/{id}`.'] }],
        FIRST,
      );
      expect(problemsOf(check(removed, [v1, deprecated, removed], log, '2027-01-02'))).toBe('');
      expect(problemsOf(check(removed, [v1, deprecated, removed], log, '2026-12-15'))).toContain(
        'before its sunset date 2027-01-01',
      );
      // Deprecated and removed in one release: no earlier deprecation.
      const atOnce = next(v1, '2.0.0', withoutGet);
      expect(problemsOf(check(atOnce, [v1, atOnce], log, '2027-01-02'))).toContain(
        'no earlier release deprecated it',
      );
    });

    it('accepts a Sunset note in an earlier Deprecated changelog entry (an enum value)', () => {
      const noted = next(v1, '1.0.1', (d) => {
        node(d, 'paths', '/api/v1/things', 'get', 'parameters', 0).description = 'closed is going away';
      });
      const removed = next(noted, '2.0.0', (d) =>
        list(d, 'paths', '/api/v1/things', 'get', 'parameters', 0, 'schema', 'enum').pop(),
      );
      const log = (note: string) =>
        changelog(
          ['2.0.0', '2027-02-01', { Removed: ['`status=closed`.'] }],
          ['1.0.1', '2026-11-30', { Deprecated: [note] }],
          FIRST,
        );
      const released = [v1, noted, removed];
      expect(
        problemsOf(check(removed, released, log('`closed` of `status`. Sunset: 2027-01-01.'), '2027-02-01')),
      ).toBe('');
      expect(
        problemsOf(check(removed, released, log('`closed` of `status`, soon.'), '2027-02-01')),
      ).toContain('no earlier release deprecated it');
    });
  });

  it('takes a changed type and a newly required input as changed meaning: major', () => {
    const typeChanged = diffContracts(
      v1,
      next(
        v1,
        '2.0.0',
        (d) => (node(d, 'components', 'schemas', 'Thing', 'properties').id = { type: 'string' }),
      ),
    );
    expect(typeChanged.changed.join('\n')).toContain('type integer became string');
    expect(requiredLevel(typeChanged)).toBe('major');
    const required = diffContracts(
      v1,
      next(v1, '2.0.0', (d) => {
        list(d, 'paths', '/api/v1/things', 'get', 'parameters').push({
          in: 'query',
          name: 'owner',
          required: true,
          schema: { type: 'string' },
        });
      }),
    );
    expect(required.changed.join('\n')).toContain('query:owner added as required');
    // A field that becomes nullable keeps its type: not a change of meaning by this check.
    const nullable = diffContracts(
      v1,
      next(
        v1,
        '1.0.1',
        (d) => (node(d, 'components', 'schemas', 'Thing', 'properties').name = { type: ['string', 'null'] }),
      ),
    );
    expect(nullable.changed).toEqual([]);
  });

  it('reads the changelog: newest first, known sections only', () => {
    const { problems } = parseChangelog(
      changelog(['1.0.0', '2026-11-22', { Added: ['a'] }], ['1.0.1', '2026-11-30', { Misc: ['b'] }]),
    );
    expect(problems.join('\n')).toContain('1.0.1 comes after 1.0.0: newest first');
    expect(problems.join('\n')).toContain('section "Misc"');
  });
});

describe('the command', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const run = promisify(execFile);

  it('passes on this repository: openapi.json is the newest released contract', async () => {
    const r = runCheck({ root: ROOT, today: new Date().toISOString().slice(0, 10) });
    expect(problemsOf(r)).toBe('');
    const { stdout } = await run(process.execPath, [join(ROOT, 'server/contract/check.ts')]);
    expect(stdout).toContain('contract check: ok');
  });

  it('fails with the reasons, and --release keeps the copy of a valid next version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-check-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'docs/contract'), { recursive: true });
    const v1 = baseDoc();
    writeFileSync(join(dir, 'docs/contract/openapi-1.0.0.json'), JSON.stringify(v1));
    const added = next(
      v1,
      '1.0.1',
      (d) => (node(d, 'components', 'schemas', 'Thing', 'properties').weight = { type: 'number' }),
    );
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(added, null, 2));
    writeFileSync(join(dir, 'CHANGELOG.md'), changelog(FIRST));

    const script = join(ROOT, 'server/contract/check.ts');
    const failed = await run(process.execPath, [script, '--root', dir]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect('code' in failed && failed.code).toBe(1);
    expect(failed.stderr).toContain('CHANGELOG.md has no entry "## [1.0.1]');

    writeFileSync(
      join(dir, 'CHANGELOG.md'),
      changelog(['1.0.1', '2026-11-30', { Added: ['`weight`.'] }], FIRST),
    );
    const { stdout } = await run(process.execPath, [script, '--root', dir, '--release']);
    expect(stdout).toContain('contract check: ok');
    expect(readFileSync(join(dir, 'docs/contract/openapi-1.0.1.json'), 'utf8')).toBe(
      readFileSync(join(dir, 'openapi.json'), 'utf8'),
    );
  });
});
