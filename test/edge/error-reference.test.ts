import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../client/src/index.ts';
import { StocklessError } from '../../client/src/index.ts';
import { ERROR_REFERENCE, ERROR_REFERENCE_SECTIONS, errorDocUrl } from '../../src/error-codes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';
import { rawRequest } from '../helpers/raw-http.ts';

const PUBLIC_URL = 'http://stockless.test';
const CODES = Object.keys(ERROR_REFERENCE) as (keyof typeof ERROR_REFERENCE)[];

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore();
});
afterAll(() => app.close());

/** The page a doc_url names, fetched from this app (the public host is the deployment's). */
async function follow(docUrl: string) {
  const url = new URL(docUrl);
  expect(url.origin).toBe(PUBLIC_URL);
  const res = await app.request(url.pathname);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('the error reference', () => {
  it('has one entry per code, in exactly one section', () => {
    const sectioned = ERROR_REFERENCE_SECTIONS.flatMap((s) => Object.keys(s.codes));
    expect(new Set(sectioned).size).toBe(sectioned.length);
    expect(sectioned.sort()).toEqual([...CODES].sort());
    for (const code of CODES) {
      const { doc, fix, example } = ERROR_REFERENCE[code];
      for (const text of [doc, fix, example]) expect(text.trim().length, code).toBeGreaterThan(10);
      expect(example, code).not.toBe(doc);
    }
  });

  it('serves a page for every code, with its meaning, fix and example', async () => {
    for (const code of CODES) {
      const page = await follow(errorDocUrl(PUBLIC_URL, code));
      expect(page.status, code).toBe(200);
      expect(page.type).toBe('text/html; charset=utf-8');
      expect(page.text).toContain(`<section id="${code}">`);
      expect(page.text).toContain(`HTTP ${ERROR_REFERENCE[code].status}`);
      // The example is written as the service writes the body, doc_url included.
      expect(page.text).toContain(errorDocUrl(PUBLIC_URL, code));
      expect(page.text).toContain('What it means');
      expect(page.text).toContain('The fix');
    }
  });

  it('lists every code on the index page and as JSON', async () => {
    const index = await follow(`${PUBLIC_URL}/docs/errors`);
    expect(index.status).toBe(200);
    for (const code of CODES) expect(index.text).toContain(`id="${code}"`);
    const json = await app.get<{ data: { code: string; doc_url: string; fix: string }[] }>(
      '/docs/errors.json',
    );
    expect(json.status).toBe(200);
    expect(json.body.data.map((e) => e.code).sort()).toEqual([...CODES].sort());
    for (const e of json.body.data)
      expect(e.doc_url).toBe(errorDocUrl(PUBLIC_URL, e.code as (typeof CODES)[number]));
  });

  it('answers an unknown code with a 404 and refuses writes to the pages', async () => {
    const unknown = await send<ErrorBody>(app, 'GET', '/docs/errors/NO_SUCH_CODE');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('ROUTE_NOT_FOUND');
    const post = await app.request('/docs/errors/VALIDATION_FAILED', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('doc_url on the wire', () => {
  const expectLinked = (body: { code?: string; doc_url?: string }) => {
    expect(body.code).toBeTruthy();
    expect(body.doc_url).toBe(`${PUBLIC_URL}/docs/errors/${body.code}`);
  };

  it('links the code on refusals of every layer: auth, validation, routing, method, the domain', async () => {
    const answers = [
      await send<ErrorBody>(app, 'GET', '/api/v1/products'),
      await send<ErrorBody>(app, 'GET', '/api/v1/products?limit=5000', { key: store.read }),
      await send<ErrorBody>(app, 'GET', '/api/v1/products?in_stok=true', { key: store.read }),
      await send<ErrorBody>(app, 'GET', '/api/v1/nope', { key: store.read }),
      await send<ErrorBody>(app, 'DELETE', '/api/v1/products', { key: store.read }),
      await send<ErrorBody>(app, 'GET', '/api/v1/products/999999999', { key: store.read }),
      await send<ErrorBody>(app, 'POST', '/api/v1/my-products', { key: store.read, body: { product_id: 1 } }),
      await send<ErrorBody>(app, 'POST', '/api/v1/my-products', {
        key: store.readWrite,
        body: '{"product_id":',
        headers: { 'content-type': 'application/json' },
      }),
    ];
    const codes = answers.map((a) => a.body.code);
    expect(codes).toEqual([
      'INVALID_CREDENTIAL',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
      'ROUTE_NOT_FOUND',
      'METHOD_NOT_ALLOWED',
      'PRODUCT_NOT_FOUND',
      'INSUFFICIENT_SCOPE',
      'INVALID_JSON',
    ]);
    for (const a of answers) {
      expectLinked(a.body);
      expect((await follow(a.body.doc_url as string)).status).toBe(200);
    }
  });

  it('links it on a keyed write refused and on its replay', async () => {
    const sent = {
      key: store.readWrite,
      body: { product_id: 999999999 },
      headers: { 'Idempotency-Key': 'doc-url-1' },
    };
    const first = await send<ErrorBody>(app, 'POST', '/api/v1/my-products', sent);
    const again = await send<ErrorBody>(app, 'POST', '/api/v1/my-products', sent);
    expect(first.status).toBe(404);
    expectLinked(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.doc_url).toBe(first.body.doc_url);
    const bad = await send<ErrorBody>(app, 'POST', '/api/v1/my-products', {
      ...sent,
      headers: { 'Idempotency-Key': 'é'.repeat(3) },
    });
    expect(bad.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
    expectLinked(bad.body);
  });

  it('links it on what the HTTP parser refuses', async () => {
    const res = await rawRequest(app.url, 'GET /api/v1/products HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(res.status).toBe(400);
    expectLinked(JSON.parse(res.body) as ErrorBody);
  });

  it('links it for tRPC clients inside the error data', async () => {
    const res = await app.request('/trpc/catalogue.get?input=%7B%22id%22%3A999999999%7D', {
      key: store.read,
    });
    const body = (await res.json()) as { error: { data: { contract: ErrorBody } } };
    expect(body.error.data.contract.code).toBe('PRODUCT_NOT_FOUND');
    expectLinked(body.error.data.contract);
  });

  it('is RFC 6749 error_uri on the OAuth endpoints and RFC 6750 error_uri in the MCP challenge', async () => {
    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password',
    });
    const oauth = (await token.json()) as { error: string; error_uri: string };
    expect(oauth.error).toBe('unsupported_grant_type');
    expect(oauth.error_uri).toBe(`${PUBLIC_URL}/docs/errors/unsupported_grant_type`);
    expect((await follow(oauth.error_uri)).status).toBe(200);

    const mcp = await app.request('/mcp', { method: 'POST', key: 'not-a-token', body: {} });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(
      `error_uri="${PUBLIC_URL}/docs/errors/invalid_token"`,
    );
  });

  it('reaches SDK users as StocklessError.docUrl', async () => {
    const res = await app.request('/api/v1/products/999999999', { key: store.read });
    const error = await StocklessError.fromResponse(res);
    expect(error.code).toBe('PRODUCT_NOT_FOUND');
    expect(error.docUrl).toBe(`${PUBLIC_URL}/docs/errors/PRODUCT_NOT_FOUND`);
  });
});
