import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { oas31 } from 'zod-openapi';
import type { ErrorBody, OAuthError } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { bodyFor, type Operation, operationsOf, pathFor, queryFor, type RawBody } from '../helpers/fuzz.ts';
import { rawRequest } from '../helpers/raw-http.ts';

/**
 * Property: whatever a client sends to any operation of `openapi.json` (and to the raw HTTP layer),
 * the answer is never a 5xx, errors come in the contract's shape (RFC 6749's on OAuth) with no stack
 * or SQL text, and a 4xx writes nothing. The operations are read from the committed document, so a
 * new one is fuzzed with no test code of its own.
 *
 * Seeded and bounded: FUZZ_RUNS requests per operation (default 60: ~2,500 requests, under a minute), FUZZ_SEED
 * to replay a run. The long run is `FUZZ_RUNS=3000 npx vitest run test/edge/fuzz.test.ts` (≥ 100,000
 * requests).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const LONG = RUNS > 200;

const LIMITS = {
  DISCOVERY_RATE_LIMIT: '1000000',
  OAUTH_TOKEN_RATE_LIMIT: '1000000',
  OAUTH_REGISTER_RATE_LIMIT: '1000000',
  INVENTORY_RATE_LIMIT: '1000000',
  EXTERNAL_ORDERS_RATE_LIMIT: '1000000',
};

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let ids: number[] = [];
let fingerprint: () => Promise<string>;
let lastState = '';
const counts = { requests: 0, byStatus: new Map<number, number>() };

beforeAll(async () => {
  app = await startTestApp(LIMITS);
  store = await app.createStore('Fuzz Store');
  const em = app.em();
  const f = fixtures(em);
  const supplier = await f.supplier();
  const products: number[] = [];
  for (let i = 0; i < 6; i++)
    products.push(await f.product({ supplierId: supplier, stock: i % 2 ? [3, 0] : [5] }));
  for (const id of products.slice(0, 3)) await f.listing(store.id, id);
  ids = [...new Set([1, 2, ...products])];
  // Every table as one digest of row counts and newest row versions, so any insert, update or delete
  // changes it; but the limiter's, which counts refused requests by design, and the keys', whose
  // `last_used_at` any authenticated request stamps.
  const tables = await rows<{ name: string }>(
    em,
    sql`SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables
      WHERE relname NOT IN ('rate_limits', 'api_keys') AND schemaname IN ('public', 'graphile_worker')
      ORDER BY 1`,
  );
  const digest = tables
    .map((t) => `(SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM ${t.name})`)
    .join(` || ',' || `);
  fingerprint = async () => {
    const [row] = await app.em().getConnection().execute<{ d: string }[]>(`SELECT ${digest} AS d`);
    return row?.d ?? '';
  };
  lastState = await fingerprint();
}, 120_000);

afterAll(async () => {
  const statuses = [...counts.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.info(`fuzz: ${counts.requests} requests (seed ${SEED}); ${statuses.join(', ')}`);
  await app.close();
});

const CATEGORIES = ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'rate_limited'];
/** What an answer must never show: a stack frame, a source path, a driver or SQL message. */
const LEAK =
  /\bat [\w.<>]+ \(|node_modules|\.ts:\d+|TRPCError|ZodError|SELECT |INSERT INTO|DELETE FROM|violates |syntax error at|invalid input syntax|relation "/;

function credential(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(store.readWrite), weight: 8 },
    {
      arbitrary: fc.constantFrom(store.read, undefined, 'sl_live_nope', 'Basic x', '', 'sl_at_zz'),
      weight: 2,
    },
  );
}

async function send(
  op: Operation,
  path: string,
  query: string,
  body: RawBody | undefined,
  key: string | undefined,
): Promise<{ status: number; text: string; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = key.includes(' ') ? key : `Bearer ${key}`;
  if (body?.type) headers['content-type'] = body.type;
  const res = await fetch(`${app.url}${path}${query ? `?${query}` : ''}`, {
    method: op.method,
    headers,
    body: body?.bytes,
    redirect: 'manual',
  });
  const text = await res.text();
  counts.requests++;
  counts.byStatus.set(res.status, (counts.byStatus.get(res.status) ?? 0) + 1);
  return { status: res.status, text, headers: res.headers };
}

function checkAnswer(op: Operation, res: { status: number; text: string; headers: Headers }) {
  const where = `${op.method} ${op.path} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status < 400) return;
  expect(res.text, where).not.toMatch(LEAK);
  const type = res.headers.get('content-type') ?? '';
  // The authorization endpoint and the consent page answer a person, with a page.
  if (type.startsWith('text/html')) {
    expect(op.path.startsWith('/oauth/'), where).toBe(true);
    return;
  }
  expect(type, where).toMatch(/^application\/json/);
  const parsed: unknown = JSON.parse(res.text);
  // The OAuth and discovery endpoints answer in RFC 6749's form; everything else in the contract's.
  if (!op.path.startsWith('/oauth/') && !op.path.startsWith('/.well-known/')) {
    const body = parsed as ErrorBody;
    expect(CATEGORIES, where).toContain(body.error);
    expect(typeof body.message, where).toBe('string');
    expect(body.request_id, where).toBe(res.headers.get('x-request-id'));
  } else {
    const body = parsed as OAuthError;
    expect(typeof body.error, where).toBe('string');
    expect(typeof body.error_description, where).toBe('string');
  }
}

/** The committed document, read as the OpenAPI 3.1 it is (a JSON import's type widens its enums). */
const doc: oas31.OpenAPIObject = JSON.parse(
  readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'),
);
const operations = operationsOf(doc);

describe('fuzz: every operation of openapi.json', () => {
  it('covers every operation the document lists', () => {
    const listed = Object.values(doc.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).filter((o) => o.operationId),
    );
    expect(operations).toHaveLength(listed.length);
    expect(operations.length).toBeGreaterThan(30);
  });

  for (const op of operations) {
    it(`${op.method} ${op.path} (${op.id})`, { timeout: LONG ? 3_600_000 : 120_000 }, async () => {
      const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
      await fc.assert(
        fc.asyncProperty(
          pathFor(op, ids),
          queryFor(op),
          hasBody ? bodyFor(op).map((b) => b as RawBody | undefined) : fc.constant(undefined),
          credential(),
          async (path, query, body, key) => {
            // Requests run one at a time and nothing else writes to this database: the state after
            // one request is the state before the next.
            const before = lastState;
            const res = await send(op, path, query, body, key);
            checkAnswer(op, res);
            lastState = await fingerprint();
            if (res.status >= 400 && res.status !== 429) {
              expect(lastState, `a ${res.status} wrote: ${op.method} ${path}`).toBe(before);
            }
          },
        ),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  }
});

describe('fuzz: the raw HTTP layer', () => {
  it('answers any request target and method with a non-5xx in the contract shape', {
    timeout: 120_000,
  }, async () => {
    const target = fc.oneof(
      fc
        .constantFrom(...operations.map((o) => o.path), '/health', '/docs', '/trpc/x', '/api/v1/openapi.json')
        .chain((p) =>
          fc
            .string({
              unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
              maxLength: 30,
            })
            .map((tail) => p + tail),
        ),
      fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
        minLength: 1,
        maxLength: 60,
      }),
      fc.constantFrom(
        '*',
        '//[',
        'http://[/x',
        'http://h/%zz',
        '/%00',
        '/..%2f..%2f',
        '//',
        '/?&&==&__proto__[x]=1',
      ),
    );
    const method = fc.constantFrom(
      'GET',
      'HEAD',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'TRACE',
      'PROPFIND',
      'FOO',
    );
    await fc.assert(
      fc.asyncProperty(target, method, async (t, m) => {
        const { status, head, body } = await rawRequest(
          app.url,
          `${m} ${t} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        counts.requests++;
        const where = `${m} ${t} → ${head.split('\r\n')[0]} ${body.slice(0, 200)}`;
        expect(status, where).toBeGreaterThanOrEqual(200);
        expect(status, where).toBeLessThan(500);
        if (status >= 400) expect(body, where).not.toMatch(LEAK);
        expect(head, where).toMatch(/\r\nX-Request-Id: req_/i);
      }),
      { seed: SEED, numRuns: RUNS * 5, endOnFailure: true },
    );
  });
});
