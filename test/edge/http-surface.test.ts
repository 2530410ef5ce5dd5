import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { oas31 } from 'zod-openapi';
import type { ErrorBody, ListProductsResponse } from '../../client/src/index.ts';
import { CONTRACT_VERSION } from '../../server/contract/document.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore();
});
afterAll(() => app.close());

describe('HTTP surface', () => {
  it('answers /health with the database status', async () => {
    const res = await app.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('puts X-Request-Id on every response and in error bodies', async () => {
    const res = await app.get<ErrorBody>('/api/v1/products');
    expect(res.status).toBe(401);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^req_[a-z2-7]+$/);
    expect(res.body.request_id).toBe(id);
  });

  it('answers 401 with WWW-Authenticate pointing at the protected-resource metadata', async () => {
    const res = await app.get('/api/v1/vendor/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"`,
    );
    expect(res.body).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIAL' });
  });

  it('refuses a well-formed but unknown key and a malformed one', async () => {
    for (const key of ['sl_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'not-a-key', 'sl_test_short']) {
      const res = await app.get<ErrorBody>('/api/v1/vendor/me', key);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
  });

  it('answers unknown routes with a contract 404', async () => {
    for (const path of ['/api/v1/nope', '/nope']) {
      const res = await app.get<ErrorBody>(path, store.readWrite);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', code: 'ROUTE_NOT_FOUND' });
      expect(typeof res.body.request_id).toBe('string');
    }
  });

  it('serves HEAD wherever GET works: same status and headers, no body', async () => {
    for (const path of ['/api/v1/products?limit=2', '/api/v1/vendor/me', '/health', '/api/v1/openapi.json']) {
      const get = await app.request(path, { key: store.read });
      const head = await app.request(path, { key: store.read, method: 'HEAD' });
      expect(head.status).toBe(get.status);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(await head.text()).toBe('');
    }
    const unauth = await app.request('/api/v1/products', { method: 'HEAD' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toContain('resource_metadata');
  });

  it('serves the OpenAPI 3.1 contract without a credential', async () => {
    const res = await app.get<oas31.OpenAPIObject>('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe(CONTRACT_VERSION);
    expect(CONTRACT_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(res.body.servers).toHaveLength(1);
    expect(res.body.servers?.[0]?.url).toBe('{base_url}');
    expect(res.body.tags?.map((t) => t.name)).toEqual([
      'Catalogue',
      'Store',
      'Listings',
      'Orders',
      'Webhooks',
      'Test helpers',
      'OAuth',
      'Service',
    ]);
    expect(res.body.components?.securitySchemes?.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(res.body.paths ?? {})).toEqual(
      expect.arrayContaining([
        '/api/v1/products',
        '/api/v1/products/facets',
        '/api/v1/products/{id}',
        '/api/v1/vendor/me',
      ]),
    );
    const op = res.body.paths?.['/api/v1/products']?.get;
    // A response the contract writes inline (a $ref there would fail the assertion).
    const badRequest = op?.responses?.['400'] as oas31.ResponseObject | undefined;
    expect(badRequest?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    // Internal procedures never leak into the partner contract.
    expect(JSON.stringify(res.body)).not.toContain('internal');
  });

  it('never sends a stack trace, even on a request the adapter cannot parse', async () => {
    const res = await app.request('/api/v1/products?limit=abc', { key: store.read });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(/at .*\.ts:\d+/);
    expect(JSON.parse(text)).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
  });

  it('reads integers strictly: only plain decimal digits, never hex, exponents, signs or blanks', async () => {
    for (const bad of ['0x1', '1e0', '+1', '01', '1.0', '', ' 1']) {
      const path = await app.get(`/api/v1/products/${encodeURIComponent(bad)}`, store.read);
      if (bad !== '') expect(path.status, `path ${JSON.stringify(bad)}`).toBe(400);
      const query = await app.get<ErrorBody>(
        `/api/v1/products?supplier_id=${encodeURIComponent(bad)}`,
        store.read,
      );
      expect(query.status, `supplier_id=${JSON.stringify(bad)}`).toBe(400);
      expect(query.body.code).toBe('VALIDATION_FAILED');
      const price = await app.get(`/api/v1/products?price_max_cents=${encodeURIComponent(bad)}`, store.read);
      expect(price.status, `price_max_cents=${JSON.stringify(bad)}`).toBe(400);
    }
    expect((await app.get('/api/v1/products?supplier_id=1&price_max_cents=0', store.read)).status).toBe(200);
  });

  it('treats an empty text filter as not given', async () => {
    const all = await app.get<ListProductsResponse>('/api/v1/products', store.read);
    const blank = await app.get<ListProductsResponse>(
      '/api/v1/products?brand=&category=&store_type=&search=',
      store.read,
    );
    expect(blank.status).toBe(200);
    expect(blank.body.pagination).toEqual(all.body.pagination);
  });

  it('answers a page far past the end with an empty page, not an error', async () => {
    const res = await app.get<ListProductsResponse>(
      '/api/v1/products?page=9007199254740991&limit=500',
      store.read,
    );
    expect(res.status).toBe(200);
    expect(res.body.products).toEqual([]);
    expect(res.body.pagination).toMatchObject({ page: 9007199254740991, limit: 500 });
  });
});
