import type { OpenAPIObject } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, OAuthError } from '../../client/src/index.ts';
import { hitLimit } from '../../src/ratelimit/limiter.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { postForm, REDIRECT, registerClient, registerRaw } from '../helpers/oauth.ts';
import { rawRequest } from '../helpers/raw-http.ts';

/**
 * Every class of input an outside probe found reaching a 500 (issue 13), each answered with a 4xx in
 * the contract's shape (RFC 6749's on OAuth) and a regression test. The fuzz suite
 * (test/edge/fuzz.test.ts) guards the classes in general; these pin the probe's own examples.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore();
});
afterAll(() => app.close());

/**
 * A request as a probe sends it; the body is parsed when JSON, else kept as text. `T` is the body
 * the test expects: every answer here is a refusal in the contract's shape unless it says otherwise.
 */
async function send<T = ErrorBody>(
  path: string,
  init: { method?: string; body?: string | Uint8Array; type?: string; key?: string } = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.type) headers['content-type'] = init.type;
  const res = await fetch(`${app.url}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json');
  const body: unknown = json && text ? JSON.parse(text) : text;
  return { status: res.status, body: body as T, headers: res.headers };
}

const raw = (head: string) => rawRequest(app.url, head);

function expectContractError(res: { status: number; body: ErrorBody; headers: Headers }, status: number) {
  expect(res.status).toBe(status);
  expect(res.body.error).toBe(status === 413 || status === 415 ? 'bad_request' : res.body.error);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}

const deep = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

async function countOrders(): Promise<number> {
  const [row] = await app.em().getConnection().execute<{ n: string }[]>('SELECT count(*) AS n FROM orders');
  return Number(row?.n);
}

describe('prototype keys in the query', () => {
  it('are ordinary unknown parameters on every GET operation: refused with 400, never a 500', async () => {
    const doc = (await send<OpenAPIObject>('/api/v1/openapi.json')).body;
    const gets = Object.keys(doc.paths ?? {}).filter((p) => doc.paths?.[p]?.get);
    expect(gets.length).toBeGreaterThan(10);
    for (const path of gets) {
      const url = `${path.replace(/\{[^}]+\}/g, '1')}?zz_unknown=1&__proto__=x&constructor=y&__proto__=z`;
      const res = await send(url, { key: store.read });
      expect(res.status, url).toBeLessThan(500);
      if (path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json') expect(res.status, url).toBe(400);
    }
  });

  it('are named in the refusal like any other unknown parameter', async () => {
    const hostile = await send<ErrorBody>(
      '/api/v1/products?limit=2&constructor=1&hasOwnProperty=1&toString=2',
      {
        key: store.read,
      },
    );
    expect(hostile.status).toBe(400);
    expect(hostile.body.details?.map((d) => d.path)).toEqual(['constructor', 'hasOwnProperty', 'toString']);
  });
});

describe('deep nesting in a JSON body', () => {
  const writes: [string, string][] = [
    ['POST', '/api/v1/my-products'],
    ['POST', '/api/v1/my-products/bulk'],
    ['PUT', '/api/v1/my-products/1/pricing'],
    ['PATCH', '/api/v1/my-products/1/enquiry-mode'],
    ['POST', '/api/v1/orders'],
    ['POST', '/api/v1/orders/external'],
    ['POST', '/api/v1/vendor/webhooks'],
  ];

  it('answers 400 INVALID_JSON for 5,000 levels on every write', async () => {
    for (const [method, path] of writes) {
      const res = await send(path, {
        method,
        key: store.readWrite,
        type: 'application/json',
        body: `{"zz":${deep(5000)}}`,
      });
      expectContractError(res, 400);
      expect(res.body.code, path).toBe('INVALID_JSON');
      expect(res.body.message).toContain('nested deeper');
    }
  });

  it('answers 400 for a 100k-deep array on the body-less POSTs', async () => {
    for (const path of [
      '/api/v1/vendor/webhooks/1/test',
      '/api/v1/vendor/webhooks/1/rotate-secret',
      '/api/v1/orders/external/1/cancel',
    ]) {
      const res = await send(path, {
        method: 'POST',
        key: store.readWrite,
        type: 'application/json',
        body: deep(100_000),
      });
      expectContractError(res, 400);
      expect(res.body.code).toBe('INVALID_JSON');
    }
  });

  it('parses 32 levels (then the unknown field is refused by name), and refuses the 33rd as JSON', async () => {
    const at = (depth: number) =>
      send('/api/v1/vendor/webhooks/999999/rotate-secret', {
        method: 'POST',
        key: store.readWrite,
        type: 'application/json',
        body: `{"zz":${deep(depth - 1)}}`,
      });
    const parsed = await at(32);
    expect(parsed.status).toBe(400);
    expect(parsed.body.code).toBe('VALIDATION_FAILED');
    expect(parsed.body.details).toEqual([{ path: 'zz', message: 'unknown field' }]);
    const over = await at(33);
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('INVALID_JSON');
  });
});

describe('text PostgreSQL cannot store', () => {
  it('refuses a NUL or a lone surrogate in any body string with 400 naming the field, writing nothing', async () => {
    const before = await countOrders();
    const cases: [string, string, string][] = [
      ['/api/v1/orders/external', '{"external_order_id":"\\ud800"}', 'external_order_id'],
      [
        '/api/v1/orders',
        '{"customer":{"name":"\\ud800","email":"a@b.co"},"items":[{"product_id":1,"quantity":1}]}',
        'customer.name',
      ],
      ['/api/v1/orders', '{"customer":{"name":"a\\u0000b"}}', 'customer.name'],
      ['/api/v1/vendor/webhooks', '{"url":"https://example.com/\\u0000","events":["*"]}', 'url'],
      ['/api/v1/orders/external', '{"customer":{"\\u0000":"x"}}', 'customer'],
    ];
    for (const [path, body, field] of cases) {
      const res = await send(path, { method: 'POST', key: store.readWrite, type: 'application/json', body });
      expectContractError(res, 400);
      expect(res.body.code, body).toBe('VALIDATION_FAILED');
      expect(res.body.details).toEqual([{ path: field, message: expect.any(String) }]);
    }
    expect(await countOrders()).toBe(before);
  });

  it('refuses a NUL or invalid UTF-8 in a query value with 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['search=a%00b', 'search'],
      ['brand=%ED%A0%80', 'brand'],
      ['category=%FF', 'category'],
    ]) {
      const res = await send(`/api/v1/products?${query}`, { key: store.read });
      expectContractError(res, 400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details?.[0]?.path).toBe(param);
    }
    // WHATWG's lenient reading of a stray `%` stays: it is not an encoding error.
    expect((await send('/api/v1/products?search=50%25%off', { key: store.read })).status).toBe(200);
  });
});

describe('OAuth endpoints: NUL and broken text in the RFC 6749 form', () => {
  it('refuses a NUL in each client metadata field at registration', async () => {
    for (const body of [
      { client_name: 'a\u0000b', redirect_uris: [REDIRECT] },
      { client_name: 'App', redirect_uris: [`${REDIRECT}\u0000`] },
      { client_name: 'App', redirect_uris: [REDIRECT], contacts: ['a\u0000@b.co'] },
      { client_name: 'App', redirect_uris: [REDIRECT], software_id: '\u0000' },
      { client_name: '\ud800', redirect_uris: [REDIRECT] },
    ]) {
      const res = await registerRaw(app, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_client_metadata',
        error_description: expect.any(String),
        error_uri: expect.any(String),
      });
    }
    const deepBody = await registerRaw<OAuthError>(app, `{"client_name":${deep(10_000, '"x"')}}`);
    expect(deepBody.status).toBe(400);
    expect(deepBody.body.error).toBe('invalid_client_metadata');
  });

  it('refuses client_id=slc_%00 at authorize, token and revoke, and a NUL state', async () => {
    const client = await registerClient(app);
    const authorize = await send<OAuthError>(
      `/oauth/authorize?response_type=code&client_id=slc_%00&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    expect(authorize.status).toBe(400);
    expect(authorize.body).toEqual({
      error: 'invalid_request',
      error_description: expect.any(String),
      error_uri: expect.any(String),
    });
    const state = await send<OAuthError>(
      `/oauth/authorize?response_type=code&client_id=${client.client_id}&state=%00&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    expect(state.status).toBe(400);
    expect(state.body.error).toBe('invalid_request');
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      const res = await send<OAuthError>(path, {
        method: 'POST',
        type: 'application/x-www-form-urlencoded',
        body: 'grant_type=authorization_code&client_id=slc_%00&code=x&token=y',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_request',
        error_description: expect.any(String),
        error_uri: expect.any(String),
      });
    }
  });

  it('refuses a NUL request id at the consent page and a NUL email at sign-in', async () => {
    const consent = await send<OAuthError>('/oauth/consent?request=%00');
    expect(consent.status).toBe(400);
    expect(consent.body.error).toBe('invalid_request');
    const signIn = await fetch(`${app.url}/oauth/consent`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=sign_in&request=x&csrf=y&email=a%00b%40c.co&password=p',
    });
    expect(signIn.status).toBe(400);
  });
});

describe('malformed request targets and transport refusals', () => {
  it('answers a target that is no URL with 400 in the contract shape', async () => {
    for (const target of ['http://[/x', '*', 'ftp://x/y']) {
      const res = await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(res.status, target).toBe(400);
      const body: ErrorBody = JSON.parse(res.body);
      expect(body, target).toMatchObject({ error: 'bad_request', code: 'INVALID_REQUEST_TARGET' });
      expect(res.head).toContain(`X-Request-Id: ${body.request_id}`);
    }
    // `//[` is a path (origin-form), just not one we serve.
    const path = await raw('GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(path.status).toBe(404);
    expect(JSON.parse(path.body)).toMatchObject({ error: 'not_found', code: 'ROUTE_NOT_FOUND' });
  });

  it('serves an absolute-form target as its path, and never reads `//host` as a host', async () => {
    const absolute = await raw(
      `GET http://anything.example/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(absolute.status).toBe(200);
    const slashes = await raw(
      `GET //.well-known/oauth-authorization-server HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(slashes.status).toBe(404);
  });

  it('answers a 20 KB header with 431, the error body and X-Request-Id', async () => {
    const res = await raw(
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    const body: ErrorBody = JSON.parse(res.body);
    expect(body).toMatchObject({ error: 'bad_request', code: 'HEADERS_TOO_LARGE' });
    expect(res.head).toContain(`X-Request-Id: ${body.request_id}`);
  });

  it('answers those refusals on an OAuth path in the RFC 6749 form', async () => {
    const res = await raw(
      `POST /oauth/token?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({
      error: 'invalid_request',
      error_description: expect.any(String),
      error_uri: expect.any(String),
    });
    expect(res.head).toMatch(/X-Request-Id: req_/);
  });

  it('answers a method fetch forbids on /trpc with 405, not a 500 from the adapter', async () => {
    for (const method of ['TRACE', 'PUT', 'OPTIONS']) {
      const res = await raw(`${method} /trpc/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(res.status, method).toBe(405);
      expect(res.head).toMatch(/\r\nAllow: GET, HEAD, POST/i);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'method_not_allowed', code: 'METHOD_NOT_ALLOWED' });
    }
  });

  it('answers bytes that are not HTTP with 400 and the error body', async () => {
    const res = await raw('GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'bad_request', code: 'MALFORMED_REQUEST' });
  });
});

describe('bodies on body-less operations', () => {
  const path = '/api/v1/vendor/webhooks/999999/rotate-secret';

  it('refuses invalid UTF-8 bytes with 400 instead of reading them as nothing', async () => {
    const res = await send(path, {
      method: 'POST',
      key: store.readWrite,
      type: 'application/json',
      body: Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expectContractError(res, 400);
    expect(res.body.code).toBe('INVALID_JSON');
  });

  it('refuses a body of another media type (application/json-patch+json) with 415', async () => {
    const res = await send(path, {
      method: 'POST',
      key: store.readWrite,
      type: 'application/json-patch+json',
      body: '[{"op":"add"}]',
    });
    expectContractError(res, 415);
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts an empty body, with or without a media type', async () => {
    for (const type of [undefined, 'application/json', 'application/x-www-form-urlencoded']) {
      const res = await send(path, { method: 'POST', key: store.readWrite, type, body: '' });
      expect(res.status, String(type)).toBe(404);
    }
  });

  it('refuses a JSON body that is not an object', async () => {
    for (const body of ['"x"', '[1]', 'null', '3']) {
      const res = await send('/api/v1/orders/external/1/cancel', {
        method: 'POST',
        key: store.readWrite,
        type: 'application/json',
        body,
      });
      expectContractError(res, 400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses prototype-poisoning keys in a body', async () => {
    const res = await send('/api/v1/my-products', {
      method: 'POST',
      key: store.readWrite,
      type: 'application/json',
      body: '{"product_id":1,"__proto__":{"admin":true}}',
    });
    expectContractError(res, 400);
    expect(res.body.code).toBe('INVALID_JSON');
  });
});

describe('rate limits', () => {
  it('limits the token endpoint per address: rotating client_id is no escape', async () => {
    const limited = await startTestApp({ OAUTH_TOKEN_RATE_LIMIT: '5' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await postForm(limited, '/oauth/token', {
          grant_type: 'authorization_code',
          client_id: `slc_rotating_${i}`,
          code: 'x',
        });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
    } finally {
      await limited.close();
    }
  });

  it('never lets a burst across a boundary through twice (GCRA, not fixed windows)', async () => {
    const em = app.em();
    const key = `test:burst:${Date.now()}`;
    // 4 a second: a fixed 1-second window would let 4 through before its end and 4 more after it.
    const first = await Promise.all(Array.from({ length: 6 }, () => hitLimit(em, key, 4, 1)));
    await new Promise((r) => setTimeout(r, 300));
    const second = await Promise.all(Array.from({ length: 6 }, () => hitLimit(em, key, 4, 1)));
    expect(first.filter((r) => r.allowed)).toHaveLength(4);
    // 300 ms at one request per 250 ms earns one more, never a whole new window.
    expect(second.filter((r) => r.allowed).length).toBeLessThanOrEqual(2);
  });

  it('reports exact headers: remaining counts down, Retry-After is when the next is allowed', async () => {
    const em = app.em();
    const key = `test:exact:${Date.now()}`;
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push(await hitLimit(em, key, 3, 60));
    expect(hits.map((h) => h.remaining)).toEqual([2, 1, 0]);
    expect(hits.map((h) => h.resetSeconds)).toEqual([20, 40, 60]);
    const refused = await hitLimit(em, key, 3, 60);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 20, resetSeconds: 60 });
    // The refusal took nothing: a quick key (1 per 100 ms) is allowed again once Retry-After passes.
    const quick = `test:quick:${Date.now()}`;
    expect((await hitLimit(em, quick, 1, 0.1)).allowed).toBe(true);
    expect((await hitLimit(em, quick, 1, 0.1)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 120));
    expect((await hitLimit(em, quick, 1, 0.1)).allowed).toBe(true);
  });

  it('a refusal that waited for a concurrent request tells the real wait, not the one it first saw', async () => {
    const key = `test:waited:${Date.now()}`;
    // One left of 2 an hour; a concurrent request takes it while this one waits on the row.
    await hitLimit(app.em(), key, 2, 3600);
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked: () => void = () => {};
    const taken = new Promise<void>((r) => {
      locked = r;
    });
    const holder = app.em().transactional(async (tx) => {
      const got = await hitLimit(tx, key, 2, 3600);
      expect(got.allowed).toBe(true);
      locked();
      await held;
    });
    await taken;
    const waiting = hitLimit(app.em(), key, 2, 3600);
    await new Promise((r) => setTimeout(r, 200));
    release();
    await holder;
    const refused = await waiting;
    expect(refused.allowed).toBe(false);
    // The window is full for the next 30 minutes: saying 1 second would send the client straight back.
    expect(refused.retryAfterSeconds).toBeGreaterThan(1700);
  });
});
