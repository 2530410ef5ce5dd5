import type { OpenAPIObject } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../client/src/index.ts';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/logger.ts';
import { createCaller } from '../../src/router.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, TEST_SECRET_KEY, type TestApp, testContext } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { send } from '../helpers/http.ts';
import { registerRaw } from '../helpers/oauth.ts';
import { rawRequest } from '../helpers/raw-http.ts';

/**
 * Rough edges of the REST surface, each through real HTTP: body-less POSTs with every empty body a
 * client sends, one unknown-field rule for JSON bodies, wrong-type and single-field errors that name
 * what was expected and where, a client's own X-Request-Id, 405 with Allow, and a well-formed 415.
 */

const OPERATOR_TOKEN = 'op_rough_edges_token_0123456789abcdef';

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let doc: OpenAPIObject;
let supplierId: number;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore('Rough Edges');
  doc = (await app.get<OpenAPIObject>('/api/v1/openapi.json')).body;
  supplierId = await fixtures(app.em()).supplier({ name: 'Edge Maker' });
});
afterAll(() => app.close());

const HOOKS = '/api/v1/vendor/webhooks';

/** A catalogue product anyone may list and order (images, stock), wholesale 1000 unless told. */
const product = (wholesale = 1000) =>
  fixtures(app.em()).product({ supplierId, wholesale, retail: wholesale * 2, images: 1, stock: [50] });

/** A request as a client writes it on the socket: head lines, then the body bytes as given. */
function raw(method: string, path: string, lines: string[] = [], body = '', key = store.readWrite) {
  const head = [`${method} ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${key}`, ...lines];
  return rawRequest(app.url, `${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
}

const json = <T = ErrorBody>(text: string) => JSON.parse(text) as T;

async function webhook(): Promise<number> {
  const res = await send<{ webhook: { id: number } }>(app, 'POST', HOOKS, {
    key: store.readWrite,
    body: { url: 'https://127.0.0.1:9/rough-edges', events: ['*'] },
  });
  expect(res.status).toBe(201);
  return res.body.webhook.id;
}

/** A marketplace order of the store's own goods, as the marketplace app posts it. */
async function externalOrder(): Promise<number> {
  const internal = createCaller(
    testContext(app, { authorization: `Bearer ${OPERATOR_TOKEN}`, operatorToken: OPERATOR_TOKEN }),
  ).internal;
  const sku = `EDGE-${Date.now().toString(36)}`;
  await internal.listings.createOwnGoods({
    storeId: store.id,
    sku,
    name: 'Edge vase',
    priceCents: 4500,
    stock: 5,
  });
  const res = await send<{ order: { id: number } }>(app, 'POST', '/api/v1/orders/external', {
    key: store.readWrite,
    body: {
      marketplace: 'etsy',
      external_order_id: sku,
      placed_at: '2026-11-20T09:30:00+11:00',
      currency: 'AUD',
      customer: { email: 'mia@example.com', name: 'Mia', phone: '' },
      shipping: { address: '1 Main St', city: 'Melbourne', state: 'VIC', zip: '3000', country: 'AU' },
      items: [{ sku, quantity: 1, price_cents: 4500 }],
      total_cents: 4500,
    },
  });
  expect(res.status).toBe(201);
  return res.body.order.id;
}

describe('POSTs whose contract has no body', () => {
  /** Every way a client sends "no body" (curl -X POST, fetch, chunked encoders, `echo |` pipes). */
  const EMPTY: [string, string[], string][] = [
    ['no body, no Content-Type', [], ''],
    ['no body, Content-Length: 0', ['Content-Length: 0'], ''],
    ['application/json, Content-Length: 0', ['Content-Type: application/json', 'Content-Length: 0'], ''],
    [
      'application/json, chunked, empty',
      ['Content-Type: application/json', 'Transfer-Encoding: chunked'],
      '0\r\n\r\n',
    ],
    ['no type, chunked, empty', ['Transfer-Encoding: chunked'], '0\r\n\r\n'],
    [
      'a form type, empty (curl -d "")',
      ['Content-Type: application/x-www-form-urlencoded', 'Content-Length: 0'],
      '',
    ],
    ['application/json, a lone newline', ['Content-Type: application/json', 'Content-Length: 1'], '\n'],
    ['no type, whitespace only', ['Content-Length: 4'], ' \r\n\t'],
    ['application/json, {}', ['Content-Type: application/json', 'Content-Length: 2'], '{}'],
  ];

  it('answer every empty-body form as the operation answers (test, rotate-secret, resend, cancel)', async () => {
    const hook = await webhook();
    const ping = await send<{ delivery: { id: number } }>(app, 'POST', `${HOOKS}/${hook}/test`, {
      key: store.readWrite,
    });
    expect(ping.status).toBe(202);
    const order = await externalOrder();
    const operations: [string, number][] = [
      [`${HOOKS}/${hook}/test`, 202],
      [`${HOOKS}/${hook}/rotate-secret`, 200],
      [`${HOOKS}/${hook}/deliveries/${ping.body.delivery.id}/resend`, 202],
      [`/api/v1/orders/external/${order}/cancel`, 200],
    ];
    for (const [path, status] of operations) {
      for (const [label, lines, body] of EMPTY) {
        const res = await raw('POST', path, lines, body);
        expect(res.status, `${path}: ${label}: ${res.body}`).toBe(status);
      }
    }
  });

  it('still refuse a body that is not JSON, or JSON that is not an object', async () => {
    const hook = await webhook();
    const path = `${HOOKS}/${hook}/rotate-secret`;
    const junk = await raw('POST', path, ['Content-Type: application/json', 'Content-Length: 3'], ' x ');
    expect(junk.status).toBe(400);
    expect(json(junk.body).code).toBe('INVALID_JSON');
    const array = await raw('POST', path, ['Content-Type: application/json', 'Content-Length: 2'], '[]');
    expect(array.status).toBe(400);
    expect(json(array.body).code).toBe('VALIDATION_FAILED');
  });
});

/** Every object schema of a JSON Schema, with where it is, following $refs into the components. */
function objectSchemas(schema: unknown, at: string, out: [string, Record<string, unknown>][] = []) {
  const s = schema as Record<string, unknown> | undefined;
  if (!s || typeof s !== 'object') return out;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.split('/').pop() ?? '';
    return objectSchemas(doc.components?.schemas?.[name], `${at}(${name})`, out);
  }
  if (s.type === 'object' || s.properties) {
    out.push([at || '(root)', s]);
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
      objectSchemas(v, at ? `${at}.${k}` : k, out);
  }
  if (s.items) objectSchemas(s.items, `${at}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const branch of (s[key] as unknown[] | undefined) ?? []) objectSchemas(branch, at, out);
  return out;
}

/** Every operation of the document under /api/v1/, with its method and path. */
function operations() {
  const out: { method: string; path: string; op: Record<string, unknown> }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = (item as Record<string, unknown>)[method];
      if (op) out.push({ method: method.toUpperCase(), path, op: op as Record<string, unknown> });
    }
  }
  return out;
}

const filled = (path: string) => path.replace(/\{[^}]+\}/g, '1');

describe('unknown fields in JSON bodies', () => {
  it('are refused on every operation that takes a body: 400 VALIDATION_FAILED naming the field', async () => {
    const writes = operations().filter((o) => o.method !== 'GET' && o.method !== 'DELETE');
    expect(writes.length).toBeGreaterThan(12);
    // The test helpers take a test key only (a live one is refused before the body is read).
    const testKey = (
      await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read_write', mode: 'test' })
    ).key;
    for (const { method, path } of writes) {
      const res = await send<ErrorBody>(app, method, filled(path), {
        key: path.startsWith('/api/v1/test_helpers/') ? testKey : store.readWrite,
        body: { zz_unknown: 1 },
      });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.code, `${method} ${path}`).toBe('VALIDATION_FAILED');
      expect(res.body.details, `${method} ${path}`).toContainEqual({
        path: 'zz_unknown',
        message: 'unknown field',
      });
      expect(res.body.message).toContain('zz_unknown: unknown field');
    }
  });

  it('POST /my-products with an extra `price` is a 400 and lists nothing (it was 201, price dropped)', async () => {
    const p = await product();
    const res = await send<ErrorBody>(app, 'POST', '/api/v1/my-products', {
      key: store.readWrite,
      body: { product_id: p, price: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: price: unknown field',
      details: [{ path: 'price', message: 'unknown field' }],
    });
    expect((await app.get(`/api/v1/my-products/${p}`, store.read)).status).toBe(404);
    const ok = await send(app, 'POST', '/api/v1/my-products', {
      key: store.readWrite,
      body: { product_id: p },
    });
    expect(ok.status).toBe(201);
  });

  it('are refused in nested objects and array items, at their full path', async () => {
    const p = await product();
    const customer = { email: 'bea@example.com', name: 'Bea', phone: '', nickname: 'B' };
    const shipping = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' };
    const res = await send<ErrorBody>(app, 'POST', '/api/v1/orders', {
      key: store.readWrite,
      body: { customer, shipping, items: [{ product_id: p, quantity: 1, colour: 'red' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { path: 'customer.nickname', message: 'unknown field' },
        { path: 'items.0.colour', message: 'unknown field' },
      ]),
    );
    const bulk = await send<ErrorBody>(app, 'POST', '/api/v1/my-products/bulk', {
      key: store.readWrite,
      body: { mode: 'filter', filters: { brnad: 'x' } },
    });
    expect(bulk.status).toBe(400);
    expect(bulk.body.details).toEqual([{ path: 'filters.brnad', message: 'unknown field' }]);
  });

  it('include a path parameter sent in the body (the path would silently win)', async () => {
    const p = await product();
    await send(app, 'POST', '/api/v1/my-products', { key: store.readWrite, body: { product_id: p } });
    const res = await send<ErrorBody>(app, 'PUT', `/api/v1/my-products/${p}/pricing`, {
      key: store.readWrite,
      body: { productId: p + 1, custom_retail_price_cents: null },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details).toEqual([{ path: 'productId', message: 'unknown field (taken from the path)' }]);
  });

  it('include query keys an operation does not declare, on reads and writes alike; a refused write changes nothing', async () => {
    const hook = await webhook();
    for (const path of [
      `${HOOKS}/${hook}?zz_unknown=1&id=99`,
      `${HOOKS}?zz_unknown=1`,
      '/api/v1/my-products?zz_unknown=1',
    ]) {
      const res = await app.get<ErrorBody>(path, store.read);
      expect(res.status, path).toBe(400);
      expect(res.body.details?.[0]?.path, path).toBe('zz_unknown');
    }
    const p = await product();
    const add = await send<ErrorBody>(app, 'POST', '/api/v1/my-products?zz_unknown=1', {
      key: store.readWrite,
      body: { product_id: p },
    });
    expect(add.status).toBe(400);
    expect((await app.get(`/api/v1/my-products/${p}`, store.read)).status).toBe(404);
    expect(
      (await send(app, 'POST', '/api/v1/my-products', { key: store.readWrite, body: { product_id: p } }))
        .status,
    ).toBe(201);
    const remove = await send(app, 'DELETE', `/api/v1/my-products/${p}?zz_unknown=1`, {
      key: store.readWrite,
    });
    expect(remove.status).toBe(400);
    expect((await app.get(`/api/v1/my-products/${p}`, store.read)).status).toBe(200);
  });

  it('are declared in the contract: every request body object says additionalProperties: false', () => {
    const bodies = operations().filter((o) => o.op.requestBody);
    expect(bodies.length).toBeGreaterThan(10);
    for (const { method, path, op } of bodies) {
      const content = (op.requestBody as { content: Record<string, { schema: unknown }> }).content;
      const objects = objectSchemas(content['application/json']?.schema, '');
      expect(objects.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [at, schema] of objects)
        expect(schema.additionalProperties, `${method} ${path} ${at}`).toBe(false);
    }
  });

  it('leave OAuth client registration as RFC 7591 says: unknown metadata is ignored', async () => {
    const res = await registerRaw<{ client_id: string }>(app, {
      client_name: 'Edge App',
      redirect_uris: ['http://127.0.0.1:8765/callback'],
      token_endpoint_auth_method: 'none',
      zz_unknown_metadata: 'x',
    });
    expect(res.status).toBe(201);
  });
});

describe('errors name what was expected and which field', () => {
  const addListing = (body: unknown) =>
    send<ErrorBody>(app, 'POST', '/api/v1/my-products', { key: store.readWrite, body });

  it('says integer, string, boolean, array, object and null by name', async () => {
    const cases: [unknown, string][] = [
      ['abc', 'expected integer, got string "abc"'],
      [true, 'expected integer, got boolean'],
      [null, 'expected integer, got null'],
      [[1], 'expected integer, got array'],
      [{ id: 1 }, 'expected integer, got object'],
      [1.5, 'expected integer, got 1.5'],
    ];
    for (const [value, message] of cases) {
      const res = await addListing({ product_id: value });
      expect(res.status, message).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toBe(`Invalid request: product_id: ${message}`);
      expect(res.body.details).toEqual([{ path: 'product_id', message }]);
    }
    expect((await addListing({})).body.details).toEqual([{ path: 'product_id', message: 'required' }]);
    expect((await addListing({ product_id: 0 })).body.details).toEqual([
      { path: 'product_id', message: 'must be at least 1' },
    ]);
  });

  it('names the JSON types of nested fields, booleans and enums', async () => {
    const order = await send<ErrorBody>(app, 'POST', '/api/v1/orders', {
      key: store.readWrite,
      body: { customer: 'bea', shipping: null, items: {} },
    });
    expect(order.status).toBe(400);
    expect(order.body.details).toEqual(
      expect.arrayContaining([
        { path: 'customer', message: 'expected object, got string' },
        { path: 'shipping', message: 'expected object, got null' },
        { path: 'items', message: 'expected array, got object' },
      ]),
    );
    const hook = await send<ErrorBody>(app, 'POST', HOOKS, {
      key: store.readWrite,
      body: { url: 5, events: 'order.created' },
    });
    expect(hook.body.details).toEqual([
      { path: 'url', message: 'expected string, got number' },
      { path: 'events', message: 'expected array, got string' },
    ]);
    const p = await product();
    await addListing({ product_id: p });
    const flag = await send<ErrorBody>(app, 'PATCH', `/api/v1/my-products/${p}/vendor-fulfilled`, {
      key: store.readWrite,
      body: { vendor_fulfilled: 'yes' },
    });
    expect(flag.body.details).toEqual([
      { path: 'vendor_fulfilled', message: 'expected boolean, got string "yes"' },
    ]);
    const mode = await send<ErrorBody>(app, 'PATCH', `/api/v1/my-products/${p}/enquiry-mode`, {
      key: store.readWrite,
      body: { purchase_mode: 'buy-now' },
    });
    expect(mode.body.details).toEqual([
      { path: 'purchase_mode', message: 'expected one of "buy_now", "enquiry", got "buy-now"' },
    ]);
  });

  it('says the same of query values, with the value shown', async () => {
    const res = await app.get<ErrorBody>('/api/v1/products?limit=ten', store.read);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'limit', message: 'expected integer, got string "ten"' }]);
    const big = await app.get<ErrorBody>('/api/v1/products?limit=100000', store.read);
    expect(big.body.details).toEqual([{ path: 'limit', message: 'must be at most 500' }]);
  });

  it('names the one field a domain error concerns, with the code unchanged', async () => {
    const p = await product();
    const low = await addListing({ product_id: p, custom_retail_price_cents: 1 });
    expect(low.status).toBe(400);
    expect(low.body.code).toBe('PRICE_BELOW_MINIMUM');
    expect(low.body.details).toEqual([
      { path: 'custom_retail_price_cents', message: expect.stringMatching(/^must be at least \d+$/) },
    ]);
    const missing = await addListing({ product_id: 2_000_000_000 });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
      details: [{ path: 'product_id', message: 'no such catalogue product' }],
    });
    await addListing({ product_id: p });
    const again = await addListing({ product_id: p });
    expect(again.body).toMatchObject({ code: 'ALREADY_LISTED', details: [{ path: 'product_id' }] });
    const reprice = await send<ErrorBody>(app, 'PUT', `/api/v1/my-products/${p}/pricing`, {
      key: store.readWrite,
      body: { custom_retail_price_cents: 1 },
    });
    expect(reprice.body).toMatchObject({
      code: 'PRICE_BELOW_MINIMUM',
      details: [{ path: 'custom_retail_price_cents' }],
    });

    const quoteOnly = await fixtures(app.em()).product({ supplierId, purchaseMode: 'enquiry', images: 1 });
    await addListing({ product_id: quoteOnly });
    const locked = await send<ErrorBody>(app, 'PATCH', `/api/v1/my-products/${quoteOnly}/enquiry-mode`, {
      key: store.readWrite,
      body: { purchase_mode: 'buy_now' },
    });
    expect(locked.status).toBe(409);
    expect(locked.body).toMatchObject({ code: 'PURCHASE_MODE_LOCKED', details: [{ path: 'purchase_mode' }] });

    const hook = await send<ErrorBody>(app, 'POST', HOOKS, {
      key: store.readWrite,
      body: { url: 'http://example.com/hook', events: ['*'] },
    });
    expect(hook.status).toBe(400);
    expect(hook.body.details).toEqual([{ path: 'url', message: hook.body.message }]);
  });

  it('names the order line at fault (items.N.…) on a wholesale order', async () => {
    const p = await product(1000);
    const customer = { email: 'bea@example.com', name: 'Bea', phone: '' };
    const shipping = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' };
    const order = (items: unknown[], extra: Record<string, unknown> = {}) =>
      send<ErrorBody>(app, 'POST', '/api/v1/orders', {
        key: store.readWrite,
        body: { customer, shipping, items, ...extra },
      });
    const stale = await order([
      { product_id: p, quantity: 1, price_cents: 1000 },
      { product_id: p, quantity: 1, price_cents: 999 },
    ]);
    // 999 was never its price: a mistake, not a change.
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe('PRICE_MISMATCH');
    expect(stale.body.details).toEqual([
      {
        path: 'items.1.price_cents',
        message: `999 is not the wholesale price of product ${p} (1000), nor was it recently`,
      },
    ]);
    const unknown = await order([
      { product_id: p, quantity: 1 },
      { product_id: 2_000_000_000, quantity: 1 },
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
      details: [{ path: 'items.1.product_id', message: 'no such catalogue product' }],
    });
    const paid = await order([{ product_id: p, quantity: 2 }], {
      payment: { method: 'card', transaction_id: 'ch_1', amount_cents: 1 },
    });
    expect(paid.body).toMatchObject({
      code: 'PAYMENT_MISMATCH',
      details: [{ path: 'payment.amount_cents', message: 'must equal the order total (2000)' }],
    });
  });
});

describe('X-Request-Id', () => {
  it('keeps a client id of [A-Za-z0-9._:-], 1 to 200 long: header, error body and log line', async () => {
    const lines: string[] = [];
    const log = createLogger('info', 'json', { write: (line: string) => void lines.push(line) });
    const config = loadConfig({
      PORT: '0',
      PUBLIC_URL: 'http://stockless.test',
      DATABASE_URL: app.databaseUrl,
      LOG_LEVEL: 'info',
      SECRET_KEY: TEST_SECRET_KEY,
    });
    const server = createApp({ orm: app.orm, config, log });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      for (const id of ['partner-trace:42.a_b', 'A', 'x'.repeat(200)]) {
        const res = await fetch(`${base}/api/v1/vendor/me`, { headers: { 'x-request-id': id } });
        expect(res.status).toBe(401);
        expect(res.headers.get('x-request-id')).toBe(id);
        expect(((await res.json()) as ErrorBody).request_id).toBe(id);
        await new Promise((resolve) => setTimeout(resolve, 20));
        const logged = lines
          .map((l) => JSON.parse(l))
          .find((l) => l.msg === 'request' && l.request_id === id);
        expect(logged, id).toMatchObject({ method: 'GET', path: '/api/v1/vendor/me', status: 401 });
      }
      const ok = await fetch(`${base}/api/v1/vendor/me`, {
        headers: { 'x-request-id': 'trace-ok', authorization: `Bearer ${store.read}` },
      });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-request-id')).toBe('trace-ok');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('ignores anything else and generates a fresh id', async () => {
    const refused = ['has space', 'x'.repeat(201), 'semi;colon', 'quote"d', 'slash/ed', 'ünïcode'];
    for (const id of refused) {
      const head = `GET /api/v1/vendor/me HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n`;
      const res = await rawRequest(app.url, head);
      expect(res.status, id).toBe(401);
      const sent = /\r\nX-Request-Id: ([^\r]*)/i.exec(res.head)?.[1];
      expect(sent, id).toMatch(/^req_[a-z2-7]+$/);
      expect(json(res.body).request_id).toBe(sent);
    }
    // Sent twice (joined by Node with ", "), or empty: fresh too.
    const twice = await rawRequest(
      app.url,
      'GET /api/v1/vendor/me HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\r\nX-Request-Id: b\r\nConnection: close\r\n\r\n',
    );
    expect(/\r\nX-Request-Id: ([^\r]*)/i.exec(twice.head)?.[1]).toMatch(/^req_/);
    const empty = await rawRequest(
      app.url,
      'GET /api/v1/vendor/me HTTP/1.1\r\nHost: x\r\nX-Request-Id:\r\nConnection: close\r\n\r\n',
    );
    expect(/\r\nX-Request-Id: ([^\r]*)/i.exec(empty.head)?.[1]).toMatch(/^req_/);
  });
});

describe('methods a REST path does not have', () => {
  const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

  /**
   * What `Allow` must say for a request path, worked out from the document apart from the server: the
   * methods of every template it matches (`/orders/external` is also an `/orders/{id}`).
   */
  function allowOf(target: string) {
    const matches = (template: string) =>
      new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`, 'i').test(target);
    const declared = new Set(
      operations()
        .filter((o) => matches(o.path))
        .map((o) => o.method),
    );
    if (declared.has('GET')) declared.add('HEAD');
    declared.add('OPTIONS');
    return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
      .filter((m) => declared.has(m))
      .join(', ');
  }

  it('answer 405 with Allow, in the contract error shape, on every path of the document', async () => {
    const paths = [...new Set(operations().map((o) => o.path))];
    expect(paths.length).toBeGreaterThan(15);
    let checked = 0;
    for (const path of paths) {
      const allow = allowOf(filled(path));
      for (const method of METHODS.filter((m) => !allow.split(', ').includes(m))) {
        const res = await send<ErrorBody>(app, method, filled(path), { key: store.readWrite });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
        expect(res.body).toMatchObject({ error: 'method_not_allowed', code: 'METHOD_NOT_ALLOWED' });
        expect(res.body.message).toBe(`${method} is not allowed here; allowed: ${allow}`);
        expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('answer HEAD on a path without GET with 405, and OPTIONS with 204 and Allow', async () => {
    const path = `${HOOKS}/1/rotate-secret`;
    const head = await raw('HEAD', path);
    expect(head.status).toBe(405);
    expect(head.head).toMatch(/\r\nAllow: POST, OPTIONS\r\n/);
    const options = await raw('OPTIONS', path);
    expect(options.status).toBe(204);
    expect(options.head).toMatch(/\r\nAllow: POST, OPTIONS\r\n/);
    const item = await raw('OPTIONS', `${HOOKS}/1`);
    expect(item.head).toMatch(/\r\nAllow: GET, HEAD, PUT, DELETE, OPTIONS\r\n/);
    // A trailing slash and letter case are matched as the router matches them.
    expect((await raw('PATCH', `${HOOKS}/1/Rotate-Secret/`)).status).toBe(405);
  });

  it('leave unknown paths a 404, and the methods of known ones as they were', async () => {
    for (const method of ['GET', 'PUT', 'OPTIONS']) {
      const res = await send<ErrorBody>(app, method, '/api/v1/no-such-thing', { key: store.read });
      expect(res.status, method).toBe(404);
      expect(res.body.code).toBe('ROUTE_NOT_FOUND');
    }
    const extra = await send<ErrorBody>(app, 'POST', '/api/v1/vendor/webhooks/1/test/extra', {
      key: store.readWrite,
    });
    expect(extra.status).toBe(404);
    expect((await app.get(HOOKS, store.read)).status).toBe(200);
    const docHead = await raw('HEAD', '/api/v1/openapi.json');
    expect(docHead.status).toBe(200);
    expect((await raw('POST', '/api/v1/openapi.json')).status).toBe(405);
  });
});

describe('415 Unsupported Media Type', () => {
  const post = (type: string) =>
    raw('POST', '/api/v1/my-products', [`Content-Type: ${type}`, 'Content-Length: 2'], '{}');

  it('quotes a media type back only as type/subtype, lower-cased', async () => {
    const res = await post('Text/Plain; charset="utf-8"; x=1');
    expect(res.status).toBe(415);
    expect(json(res.body)).toMatchObject({
      error: 'bad_request',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Unsupported media type "text/plain"; send application/json',
    });
  });

  it('never echoes a malformed, quoted, non-ASCII or very long Content-Type', async () => {
    const generic = 'The Content-Type is not a valid media type; send application/json';
    for (const type of [
      'text/"plain"',
      'text/pla"in; a=b',
      `a/${'b'.repeat(5000)}`,
      'tëxt/plain',
      'text',
      '"x"/"y"',
    ]) {
      const res = await post(type);
      expect(res.status, type).toBe(415);
      const body = json(res.body);
      expect(body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(body.message, type).toBe(generic);
      expect(res.body.length).toBeLessThan(300);
    }
  });
});
