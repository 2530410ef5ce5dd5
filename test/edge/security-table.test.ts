import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { oas31 } from 'zod-openapi';
import { APP_SCOPES, type AppScope } from '../../src/auth/actor.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { type AppToken, ISSUER, mintAppToken } from '../helpers/oauth.ts';

/**
 * Every partner operation of the contract × every kind of credential: no credential, read key,
 * read_write key, app token with and without the operation's app scope, app token for another
 * resource. Only the authentication and authorization outcome is asserted, never the business one.
 */

const ROOT = new URL('../../', import.meta.url);

/**
 * The endpoint table of the spec (partner-commerce-api.md, "Endpoints"; checked verbatim when written),
 * verbatim. The app-scope column is what the table below is checked against.
 */
const SPEC_ENDPOINT_TABLE = `
| GET | /api/v1/products | read | read_products | browse catalogue |
| GET | /api/v1/products/facets | read | read_products | value+count lists for every catalogue filter |
| GET | /api/v1/products/{id} | read | read_products | one catalogue product |
| GET | /api/v1/vendor/me | read | * | the authenticated store |
| GET | /api/v1/my-products | read | read_products | list listings |
| POST | /api/v1/my-products | read_write | write_products | add a product |
| POST | /api/v1/my-products/bulk | read_write | write_products | bulk add |
| POST | /api/v1/my-products/bulk-remove | read_write | write_products | bulk remove |
| GET | /api/v1/my-products/{productId} | read | read_products | one listing |
| DELETE | /api/v1/my-products/{productId} | read_write | write_products | remove a listing |
| PUT | /api/v1/my-products/{productId}/pricing | read_write | write_products | set or clear custom retail price |
| PATCH | /api/v1/my-products/{productId}/enquiry-mode | read_write | write_products | set selling mode |
| PATCH | /api/v1/my-products/{productId}/vendor-fulfilled | read_write | write_products | mark listing as fulfilled by the vendor |
| GET | /api/v1/orders | read | read_orders | list orders |
| POST | /api/v1/orders | read_write | none (apps refused) | place a wholesale order |
| GET | /api/v1/orders/{id} | read | not shown | one order |
| GET | /api/v1/orders/{id}/invoice | read | not shown | buyer's tax invoice PDF |
| GET | /api/v1/inventory | read | read_inventory | stock available to sell |
| POST | /api/v1/orders/external | read_write | write_external_orders | post a marketplace order |
| POST | /api/v1/orders/external/{id}/cancel | read_write | not shown | cancel a marketplace-app order |
| GET, POST | /api/v1/vendor/webhooks and sub-paths | read / read_write | none | webhook management (below) |
| GET | /api/v1/openapi.json | | | machine-readable contract |
| GET | /health | | | status check |
`;

/**
 * Operations the contract adds beyond the spec's table (docs/decisions.md), in the table's columns:
 * the event log reads what each event's kind allows an app (any app scope may call).
 */
const ADDED_ENDPOINT_TABLE = `
| GET | /api/v1/events | read | * | the event log |
| GET | /api/v1/events/{id} | read | * | one event |
| GET | /api/v1/requests | read | * | the request log (an app reads its own requests) |
| GET | /api/v1/requests/{request_id} | read | * | one logged request |
| POST | /api/v1/test_helpers/orders/{id}/advance | read_write | * | advance a test order |
| POST | /api/v1/test_helpers/orders/{id}/cancel | read_write | * | cancel a test order |
| POST | /api/v1/exports | read_write | * | start a bulk export (the app needs its type's read scope) |
| GET | /api/v1/exports | read | * | the store's exports (an app sees the types its scopes read) |
| GET | /api/v1/exports/{id} | read | * | one export (the app needs its type's read scope) |
| GET | /health/live | | | liveness probe (Kubernetes) |
| GET | /health/ready | | | readiness probe (Kubernetes) |
`;

/**
 * Test mode only (src/test-helpers/): every live credential, a live key and any OAuth token (which act
 * in live mode), is refused with TEST_MODE_ONLY once the method and scope rules let it through; a test
 * key gets in.
 */
const TEST_MODE_ONLY = new Set([
  'POST /api/v1/test_helpers/orders/{id}/advance',
  'POST /api/v1/test_helpers/orders/{id}/cancel',
]);

/** What an app token needs: every listed scope, any scope (`*`), or nothing will do (`null`). */
type Rule = readonly AppScope[] | '*' | null;

/** The scopes the spec leaves "not shown", as docs/decisions.md decides them. */
const DECIDED: Record<string, Rule> = {
  'GET /api/v1/orders/{id}': ['read_orders'],
  'GET /api/v1/orders/{id}/invoice': ['read_orders', 'read_customers'],
  'POST /api/v1/orders/external/{id}/cancel': ['write_external_orders'],
};

/** The operation → app scope table this test enforces. */
const APP_SCOPE_TABLE: Record<string, Rule> = {
  'GET /api/v1/products': ['read_products'],
  'GET /api/v1/products/facets': ['read_products'],
  'GET /api/v1/products/{id}': ['read_products'],
  'GET /api/v1/vendor/me': '*',
  'GET /api/v1/my-products': ['read_products'],
  'POST /api/v1/my-products': ['write_products'],
  'POST /api/v1/my-products/bulk': ['write_products'],
  'POST /api/v1/my-products/bulk-remove': ['write_products'],
  'GET /api/v1/my-products/{productId}': ['read_products'],
  'DELETE /api/v1/my-products/{productId}': ['write_products'],
  'PUT /api/v1/my-products/{productId}/pricing': ['write_products'],
  'PATCH /api/v1/my-products/{productId}/enquiry-mode': ['write_products'],
  'PATCH /api/v1/my-products/{productId}/vendor-fulfilled': ['write_products'],
  'GET /api/v1/orders': ['read_orders'],
  'POST /api/v1/orders': null,
  'GET /api/v1/orders/{id}': ['read_orders'],
  'GET /api/v1/orders/{id}/invoice': ['read_orders', 'read_customers'],
  'GET /api/v1/inventory': ['read_inventory'],
  'POST /api/v1/orders/external': ['write_external_orders'],
  'POST /api/v1/orders/external/{id}/cancel': ['write_external_orders'],
  'GET /api/v1/events': '*',
  'GET /api/v1/events/{id}': '*',
  'GET /api/v1/requests': '*',
  'GET /api/v1/requests/{request_id}': '*',

  'POST /api/v1/test_helpers/orders/{id}/advance': '*',
  'POST /api/v1/test_helpers/orders/{id}/cancel': '*',
  'POST /api/v1/exports': '*',
  'GET /api/v1/exports': '*',
  'GET /api/v1/exports/{id}': '*',
};
const WEBHOOKS = '/api/v1/vendor/webhooks';

function ruleOf(method: string, path: string): Rule | undefined {
  if (path === WEBHOOKS || path.startsWith(`${WEBHOOKS}/`)) return null;
  return APP_SCOPE_TABLE[`${method} ${path}`];
}

interface SpecRow {
  methods: string[];
  path: string;
  subPaths: boolean;
  scope: string;
  appScope: string;
}

function specRows(table: string): SpecRow[] {
  return table
    .trim()
    .split('\n')
    .map((line) => {
      const [methods = '', rawPath = '', scope = '', appScope = ''] = line
        .split('|')
        .slice(1)
        .map((c) => c.trim());
      const subPaths = rawPath.endsWith(' and sub-paths');
      return {
        methods: methods.split(',').map((m) => m.trim()),
        path: rawPath.replace(' and sub-paths', ''),
        subPaths,
        scope,
        appScope,
      };
    });
}

const SPEC = [...specRows(SPEC_ENDPOINT_TABLE), ...specRows(ADDED_ENDPOINT_TABLE)];

function specRowOf(method: string, path: string): SpecRow | undefined {
  return (
    SPEC.find((r) => r.path === path && r.methods.includes(method)) ??
    // "GET, POST … and sub-paths": the webhook management table below it has PUT and DELETE too.
    SPEC.find((r) => r.subPaths && (path === r.path || path.startsWith(`${r.path}/`)))
  );
}

/** What the spec's app-scope cell means as a rule (`not shown`: the decision). */
function specRule(row: SpecRow, key: string): Rule | undefined {
  if (row.appScope === '*') return '*';
  if (row.appScope.startsWith('none')) return null;
  if (row.appScope === 'not shown') return DECIDED[key];
  return (APP_SCOPES as readonly string[]).includes(row.appScope) ? [row.appScope as AppScope] : undefined;
}

type Doc = oas31.OpenAPIObject;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** A path item's fields by name: its operations by method, and other fields (with no `security`). */
const fieldsOf = (item: oas31.PathItemObject) =>
  Object.entries(item as Record<string, { security?: unknown }>);

function operationsOf(doc: Doc): { method: string; path: string; security: unknown }[] {
  const out: { method: string; path: string; security: unknown }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    // The OAuth and discovery endpoints are documented too; the table is about the partner API.
    if (!path.startsWith('/api/v1/')) continue;
    for (const [m, op] of fieldsOf(item)) {
      // Operations that take no credential (`security: []`) are checked on their own below.
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      if (METHODS.includes(m)) out.push({ method: m.toUpperCase(), path, security: op.security });
    }
  }
  return out;
}

const contract: Doc = JSON.parse(readFileSync(new URL('openapi.json', ROOT), 'utf8'));
const OPERATIONS = operationsOf(contract);
// The invoice is served by a raw route: cover it even if the contract ever leaves it out.
if (!OPERATIONS.some((o) => o.method === 'GET' && o.path === '/api/v1/orders/{id}/invoice')) {
  OPERATIONS.push({ method: 'GET', path: '/api/v1/orders/{id}/invoice', security: undefined });
}

/** Every operation the contract documents as taking no credential, wherever it is served. */
function publicOperations(doc: Doc): string[] {
  return Object.entries(doc.paths ?? {})
    .filter(([path]) => !path.startsWith('/oauth/') && !path.startsWith('/.well-known/'))
    .flatMap(([path, item]) =>
      fieldsOf(item)
        .filter(([m, op]) => METHODS.includes(m) && Array.isArray(op.security) && op.security.length === 0)
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    )
    .sort();
}

describe('operations without a credential', () => {
  it('are exactly the rows with no scope: the contract, the status check and the health probes', () => {
    const unscoped = SPEC.filter((r) => !r.scope).flatMap((r) => r.methods.map((m) => `${m} ${r.path}`));
    expect(publicOperations(contract)).toEqual(unscoped.sort());
    expect(unscoped.sort()).toEqual([
      'GET /api/v1/openapi.json',
      'GET /health',
      'GET /health/live',
      'GET /health/ready',
    ]);
  });

  it.each(['/api/v1/openapi.json', '/health', '/health/live', '/health/ready'])(
    '%s answers with no credential and ignores any',
    async (path) => {
      for (const key of [undefined, store.read, 'not-a-credential']) {
        const res = await app.request(path, { key });
        expect(res.status, `${path} with ${key ?? 'no credential'}`).toBe(200);
        expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      }
    },
  );
});

describe('the app-scope table', () => {
  it('covers exactly the operations of openapi.json', () => {
    const keys = OPERATIONS.map((o) => `${o.method} ${o.path}`);
    expect(keys.filter((k) => ruleOf(k.split(' ')[0] ?? '', k.split(' ')[1] ?? '') === undefined)).toEqual(
      [],
    );
    expect(Object.keys(APP_SCOPE_TABLE).filter((k) => !keys.includes(k))).toEqual([]);
    expect(keys.filter((k) => k.includes(WEBHOOKS)).length).toBeGreaterThanOrEqual(8);
  });

  it("agrees with the spec's endpoint table (scope and app scope columns)", () => {
    for (const { method, path } of OPERATIONS) {
      const key = `${method} ${path}`;
      const row = specRowOf(method, path);
      expect(row, `${key} is not in the spec's endpoint table`).toBeDefined();
      if (!row) continue;
      expect(specRule(row, key), key).toEqual(ruleOf(method, path));
      const methodScope = method === 'GET' ? 'read' : 'read_write';
      expect(row.scope.split(' / '), key).toContain(methodScope);
    }
    // Every operation the spec lists is in the contract.
    for (const row of SPEC.filter((r) => r.scope && r.path.startsWith('/api/v1/') && !r.subPaths)) {
      for (const method of row.methods) {
        expect(
          OPERATIONS.some((o) => o.method === method && o.path === row.path),
          `${method} ${row.path}`,
        ).toBe(true);
      }
    }
  });

  it('is what openapi.json documents as PartnerApp security', () => {
    for (const { method, path, security } of OPERATIONS) {
      const rule = ruleOf(method, path);
      const partner = ((security as Record<string, string[]>[] | undefined) ?? []).find(
        (s) => 'PartnerApp' in s,
      )?.PartnerApp;
      const expected = rule === null ? undefined : rule === '*' ? [] : [...(rule ?? [])];
      expect(partner, `${method} ${path}`).toEqual(expected);
    }
  });
});

let app: TestApp;
let store: { id: number; readWrite: string; read: string };
let testKey: string;
let productId: number;

beforeAll(async () => {
  // Many apps are registered: one per scope set.
  app = await startTestApp({ OAUTH_REGISTER_RATE_LIMIT: '1000' });
  store = await app.createStore('Security Table Store');
  testKey = (await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read_write', mode: 'test' }))
    .key;
  const f = fixtures(app.em());
  const supplier = await f.supplier();
  productId = await f.product({ supplierId: supplier, images: 1 });
  await f.listing(store.id, productId);
});
afterAll(() => app.close());

const tokens = new Map<string, Promise<AppToken>>();
/** One genuine app token (its own app) per scope set, minted once. */
function tokenFor(scopes: readonly AppScope[], resource?: string): Promise<AppToken> {
  const key = `${[...scopes].sort().join(' ')}|${resource ?? ''}`;
  let t = tokens.get(key);
  if (!t) {
    t = mintAppToken(app, store.id, [...scopes], { resource });
    tokens.set(key, t);
  }
  return t;
}

/** Every app scope except `scope` and any scope that would imply it. */
function allBut(scope: AppScope): AppScope[] {
  const impliers = new Set<string>([scope]);
  if (scope.startsWith('read_') && scope !== 'read_customers') impliers.add(scope.replace('read_', 'write_'));
  return APP_SCOPES.filter((s) => !impliers.has(s));
}

function concretePath(path: string): string {
  if (path === '/api/v1/products/{id}' || path.startsWith('/api/v1/my-products/{productId}')) {
    return path.replace(/\{[^}]+\}/g, String(productId));
  }
  return path.replace(/\{[^}]+\}/g, '999999');
}

interface Outcome {
  status: number;
  code?: string;
  required_scope?: string;
  www?: string | null;
}

async function send(method: string, path: string, key?: string): Promise<Outcome> {
  const hasBody = method !== 'GET' && method !== 'DELETE' && method !== 'HEAD';
  const res = await app.request(concretePath(path), { method, key, body: hasBody ? {} : undefined });
  const text = await res.text();
  let body: { code?: string; required_scope?: string } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // A PDF or an empty body: only the status matters then.
  }
  return {
    status: res.status,
    code: body.code,
    required_scope: body.required_scope,
    www: res.headers.get('www-authenticate'),
  };
}

const WWW_AUTHENTICATE = `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/v1"`;
const allowed = (o: Outcome) => o.status !== 401 && o.status !== 403;
const liveRefused = (o: Outcome) => o.status === 403 && o.code === 'TEST_MODE_ONLY';

describe.each(OPERATIONS.map((o) => [`${o.method} ${o.path}`, o.method, o.path] as const))(
  '%s',
  (_, method, path) => {
    it('answers every kind of credential as the table says', async () => {
      const rule = ruleOf(method, path);
      const write = method !== 'GET';
      const problems: string[] = [];
      const check = (label: string, outcome: Outcome, ok: boolean) => {
        if (!ok) problems.push(`${label}: ${JSON.stringify(outcome)}`);
      };

      const none = await send(method, path);
      check('no credential', none, none.status === 401 && none.www === WWW_AUTHENTICATE);

      const read = await send(method, path, store.read);
      check(
        'read key',
        read,
        write
          ? read.status === 403 && read.code === 'INSUFFICIENT_SCOPE' && read.required_scope === 'read_write'
          : allowed(read),
      );

      const testOnly = TEST_MODE_ONLY.has(`${method} ${path}`);
      // What passes the method and scope rules: in, or for test-mode-only operations a live refusal.
      const admitted = testOnly ? liveRefused : allowed;
      const readWrite = await send(method, path, store.readWrite);
      check('read_write key', readWrite, admitted(readWrite));
      if (testOnly) {
        const test = await send(method, path, testKey);
        check('test read_write key', test, allowed(test));
      }

      if (rule === undefined) {
        problems.push('no rule in the app-scope table');
      } else if (rule === null) {
        // No scope is enough: even a token holding every scope is refused.
        const all = await send(method, path, (await tokenFor(APP_SCOPES)).access_token);
        check('app token with every scope', all, all.status === 403 && all.code === 'APP_TOKEN_NOT_ALLOWED');
      } else if (rule === '*') {
        for (const scope of ['read_customers', 'write_external_orders'] as const) {
          const one = await send(method, path, (await tokenFor([scope])).access_token);
          check(`app token with only ${scope}`, one, admitted(one));
        }
      } else {
        const withScope = await send(method, path, (await tokenFor(rule)).access_token);
        check(`app token with ${rule.join('+')}`, withScope, allowed(withScope));
        for (const scope of rule) {
          // write_* includes its read_*.
          if (scope.startsWith('read_') && scope !== 'read_customers') {
            const implied = rule.map((s) => (s === scope ? (s.replace('read_', 'write_') as AppScope) : s));
            const viaWrite = await send(method, path, (await tokenFor(implied)).access_token);
            check(`app token with ${implied.join('+')}`, viaWrite, allowed(viaWrite));
          }
          const without = await send(method, path, (await tokenFor(allBut(scope))).access_token);
          check(
            `app token with every scope but ${scope}`,
            without,
            without.status === 403 &&
              without.code === 'INSUFFICIENT_SCOPE' &&
              without.required_scope === scope,
          );
        }
      }

      const wrongResource = await tokenFor(APP_SCOPES, `${ISSUER}/mcp`);
      const elsewhere = await send(method, path, wrongResource.access_token);
      check('app token for another resource', elsewhere, elsewhere.status === 401);

      expect(problems).toEqual([]);
    });
  },
);

it('serves the operations of openapi.json, no more and no fewer', async () => {
  const served = await app.get<Doc>('/api/v1/openapi.json');
  expect(served.status).toBe(200);
  const keys = (doc: Doc) =>
    operationsOf(doc)
      .map((o) => `${o.method} ${o.path}`)
      .sort();
  expect(keys(served.body)).toEqual(keys(contract));
});
