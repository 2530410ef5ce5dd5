import { readFileSync } from 'node:fs';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ListInventoryResponse,
  Stockless,
  StocklessError,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../../client/src/index.ts';
import { generateTypes, readContract, TYPES_FILE } from '../../server/contract/sdk-types.ts';

const BASE = 'https://api.stockless.test';
const KEY = 'sl_test_0123456789abcdef0123456789abcdef';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = (o: Partial<ConstructorParameters<typeof Stockless>[0]> = {}) =>
  new Stockless({ baseUrl: BASE, apiKey: KEY, ...o } as ConstructorParameters<typeof Stockless>[0]);

const errorBody = (status: number, body: object, headers: Record<string, string> = {}) =>
  HttpResponse.json(body, { status, headers: { 'x-request-id': 'req_header', ...headers } });

/** Rejects with the error a promise throws (fails when it resolves). */
async function caught<E = StocklessError>(promise: Promise<unknown>): Promise<E> {
  return promise.then(
    () => expect.unreachable('expected an error'),
    (e: unknown) => e as E,
  );
}

describe('generated types', () => {
  it('client/src/generated/openapi-types.ts is what openapi.json generates (run `npm run sdk:types`)', async () => {
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(await generateTypes(readContract()));
  });
});

describe('requests', () => {
  it('sends the credential as a bearer token, JSON in and out, and the query as the contract spells it', async () => {
    const seen: Request[] = [];
    server.use(
      http.get(`${BASE}/api/v1/products`, ({ request }) => {
        seen.push(request);
        return HttpResponse.json({
          products: [],
          pagination: { page: 1, limit: 5, total_count: 0, total_pages: 0 },
        });
      }),
      http.put(`${BASE}/api/v1/my-products/:productId/pricing`, async ({ request, params }) => {
        seen.push(request);
        return HttpResponse.json({ message: 'ok', echo: await request.json(), id: params.productId });
      }),
    );
    await client().products.list({ in_stock: false, limit: 5, search: 'oak lamp', brand: undefined });
    const put = await new Stockless({
      baseUrl: `${BASE}/api/v1/`,
      accessToken: 'sl_at_x',
    }).listings.setPricing(7, { custom_retail_price_cents: null });

    const [get, pricing] = seen;
    expect(get?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(new URL(get?.url ?? '').search).toBe('?in_stock=false&limit=5&search=oak+lamp');
    expect(pricing?.headers.get('authorization')).toBe('Bearer sl_at_x');
    expect(pricing?.headers.get('content-type')).toBe('application/json');
    expect(put).toMatchObject({ echo: { custom_retail_price_cents: null }, id: '7' });
  });

  it('refuses to start without exactly one credential', () => {
    expect(() => new Stockless({ baseUrl: BASE } as never)).toThrow(TypeError);
    expect(() => new Stockless({ baseUrl: BASE, apiKey: KEY, accessToken: 'sl_at_x' } as never)).toThrow(
      TypeError,
    );
  });
});

describe('errors', () => {
  it('throws StocklessError with category, code, status, request id, details and required scope', async () => {
    server.use(
      http.post(`${BASE}/api/v1/my-products`, () =>
        errorBody(403, {
          error: 'forbidden',
          message: 'This credential is read-only',
          code: 'INSUFFICIENT_SCOPE',
          required_scope: 'read_write',
          request_id: 'req_body',
        }),
      ),
      http.get(`${BASE}/api/v1/orders`, () =>
        errorBody(400, {
          error: 'bad_request',
          message: 'Invalid parameters',
          code: 'VALIDATION_FAILED',
          request_id: 'req_400',
          details: [{ path: 'limit', message: 'Too big' }],
        }),
      ),
    );
    const scope = await caught(client().listings.add({ product_id: 1 }));
    expect(scope).toBeInstanceOf(StocklessError);
    expect(scope).toMatchObject({
      name: 'StocklessError',
      category: 'forbidden',
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
      requestId: 'req_body',
      requiredScope: 'read_write',
      message: 'This credential is read-only',
    });
    const invalid = await caught(client().orders.list({ limit: 501 }));
    expect(invalid).toMatchObject({ category: 'bad_request', status: 400, requestId: 'req_400' });
    expect(invalid.details).toEqual([{ path: 'limit', message: 'Too big' }]);
  });

  it('a body that is not the contract’s still gives a category from the status and the X-Request-Id', async () => {
    server.use(
      http.get(
        `${BASE}/api/v1/vendor/me`,
        () =>
          new HttpResponse('<h1>Bad gateway</h1>', { status: 502, headers: { 'x-request-id': 'req_proxy' } }),
      ),
    );
    const e = await caught(client().store.me());
    expect(e).toMatchObject({
      category: 'server_error',
      status: 502,
      requestId: 'req_proxy',
      code: undefined,
    });
  });
});

describe('429 retries', () => {
  const limited = (retryAfter: string) =>
    errorBody(
      429,
      { error: 'rate_limited', message: 'Slow down', code: 'RATE_LIMITED', request_id: 'req_429' },
      { 'retry-after': retryAfter },
    );

  it('retries a GET after Retry-After, then gives up after maxRetries with the 429 as the error', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/api/v1/inventory`, () =>
        ++calls === 1
          ? limited('0.05')
          : HttpResponse.json({ items: [], next_cursor: 'c1', has_more: false }),
      ),
    );
    const started = performance.now();
    await expect(client().inventory.list()).resolves.toMatchObject({ next_cursor: 'c1' });
    expect(calls).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);

    calls = 0;
    server.use(
      http.get(`${BASE}/api/v1/inventory`, () => {
        calls++;
        return limited('0.01');
      }),
    );
    const e = await caught(client({ retry: { maxRetries: 2 } }).inventory.list());
    expect(calls).toBe(3);
    expect(e).toMatchObject({
      category: 'rate_limited',
      status: 429,
      retryAfter: 0.01,
      requestId: 'req_429',
    });
  });

  it('repeats a write with the same Idempotency-Key; writes: false never repeats one; never waits past maxDelayMs', async () => {
    let calls = 0;
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${BASE}/api/v1/orders/external/:id/cancel`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        return ++calls === 1 ? limited('0.01') : HttpResponse.json({ order: { id: 9 } });
      }),
    );
    await expect(client().externalOrders.cancel(9)).resolves.toEqual({ order: { id: 9 } });
    expect(calls).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);

    calls = 0;
    const e = await caught(client({ retry: { writes: false } }).externalOrders.cancel(9));
    expect(e.status).toBe(429);
    expect(calls).toBe(1);

    calls = 0;
    server.use(
      http.get(`${BASE}/api/v1/products/facets`, () => {
        calls++;
        return limited('30');
      }),
    );
    await expect(client({ retry: { maxDelayMs: 1000 } }).products.facets()).rejects.toMatchObject({
      retryAfter: 30,
    });
    expect(calls).toBe(1);
  });
});

describe('idempotent writes', () => {
  it('sends a new key per write call, the caller’s key when given, and none on reads', async () => {
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${BASE}/api/v1/my-products`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        return HttpResponse.json({ product: { id: 1 } }, { status: 201 });
      }),
      http.get(`${BASE}/api/v1/vendor/me`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        return HttpResponse.json({ store: { id: 1 } });
      }),
    );
    await client().listings.add({ product_id: 1 });
    await client().listings.add({ product_id: 1 });
    await client().listings.add({ product_id: 1 }, { idempotencyKey: 'order-4711' });
    await client().store.me();
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('order-4711');
    expect(keys[3]).toBeNull();
  });

  it.each([
    ['a network error', () => HttpResponse.error()],
    ['a 503', () => errorBody(503, { error: 'server_error', message: 'Unavailable' })],
    ['a 502 from a proxy', () => new HttpResponse('bad gateway', { status: 502 })],
    [
      'a 409 IDEMPOTENCY_KEY_IN_USE',
      () =>
        errorBody(
          409,
          { error: 'conflict', code: 'IDEMPOTENCY_KEY_IN_USE', message: 'busy' },
          { 'retry-after': '0' },
        ),
    ],
  ])('retries a write after %s with the same key', async (_, failure) => {
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${BASE}/api/v1/orders`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        return keys.length === 1 ? failure() : HttpResponse.json({ order: { id: 7 } }, { status: 201 });
      }),
    );
    const body = { customer: { email: 'a@b.co', name: 'A' }, items: [], shipping: {} } as never;
    await expect(client().orders.create(body)).resolves.toEqual({ order: { id: 7 } });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('does not retry other conflicts, or a call the caller aborted', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/api/v1/orders`, () => {
        calls++;
        return errorBody(409, { error: 'conflict', code: 'PRICE_CHANGED', message: 'price changed' });
      }),
    );
    const body = { customer: { email: 'a@b.co', name: 'A' }, items: [], shipping: {} } as never;
    expect(await caught(client().orders.create(body))).toMatchObject({ code: 'PRICE_CHANGED' });
    expect(calls).toBe(1);
    const aborted = new AbortController();
    aborted.abort();
    await expect(client().orders.create(body, { signal: aborted.signal })).rejects.toThrow();
  });
});

describe('iterators', () => {
  it('pages through a list until the last page, only as far as the loop reads', async () => {
    const pages: string[] = [];
    server.use(
      http.get(`${BASE}/api/v1/orders`, ({ request }) => {
        const url = new URL(request.url);
        const page = Number(url.searchParams.get('page'));
        pages.push(url.search);
        const ids = page < 3 ? [page * 10 + 1, page * 10 + 2] : [page * 10 + 1];
        return HttpResponse.json({
          orders: ids.map((id) => ({ id })),
          pagination: { page, limit: 2, total_count: 5, total_pages: 3 },
        });
      }),
    );
    const ids: number[] = [];
    for await (const order of client().orders.iterate({ limit: 2, status: 'shipped' })) ids.push(order.id);
    expect(ids).toEqual([11, 12, 21, 22, 31]);
    expect(pages).toEqual([
      '?limit=2&status=shipped&page=1',
      '?limit=2&status=shipped&page=2',
      '?limit=2&status=shipped&page=3',
    ]);

    pages.length = 0;
    for await (const order of client().orders.iterate({ limit: 2 })) if (order.id === 11) break;
    expect(pages).toHaveLength(1);
  });

  it('inventory.sync follows next_cursor, exposes the cursor after each page, and resumes from a stored one', async () => {
    // A feed of 5 items, 2 a page; the cursor is the index reached.
    const feed = ['a', 'b', 'c', 'd', 'e'];
    const asked: (string | null)[] = [];
    server.use(
      http.get(`${BASE}/api/v1/inventory`, ({ request }) => {
        const since = new URL(request.url).searchParams.get('updated_since');
        asked.push(since);
        const from = since ? Number(since.slice(1)) : 0;
        const items = feed.slice(from, from + 2).map((sku, i) => ({ product_id: from + i + 1, sku }));
        const to = from + items.length;
        return HttpResponse.json({ items, next_cursor: `c${to}`, has_more: to < feed.length });
      }),
    );

    const sync = client().inventory.sync({ limit: 2 });
    const seen: string[] = [];
    let stored: string | undefined;
    for await (const page of sync) {
      seen.push(...page.items.map((i) => i.sku));
      expect(sync.cursor).toBe(page.next_cursor);
      stored = sync.cursor;
      if (seen.length === 2) break; // the process stops after the first page
    }
    expect(stored).toBe('c2');

    const resumed = client().inventory.sync({ cursor: stored, limit: 2 });
    const pages: ListInventoryResponse[] = [];
    for await (const page of resumed) pages.push(page);
    expect(pages.flatMap((p) => p.items.map((i) => i.sku))).toEqual(['c', 'd', 'e']);
    expect(resumed.cursor).toBe('c5');
    expect(asked).toEqual([null, 'c2', 'c4']);

    // caught up: one empty page that keeps the cursor, and the loop ends
    asked.length = 0;
    let count = 0;
    for await (const page of client().inventory.sync({ cursor: 'c5' })) count += page.items.length;
    expect(count).toBe(0);
    expect(asked).toEqual(['c5']);
  });
});

describe('invoice', () => {
  it('returns the PDF as bytes', async () => {
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a, 0xff, 0x00]);
    server.use(
      http.get(`${BASE}/api/v1/orders/:id/invoice`, ({ params, request }) =>
        params.id === '42' && request.headers.get('accept')?.includes('application/pdf')
          ? new HttpResponse(pdf, { headers: { 'content-type': 'application/pdf' } })
          : errorBody(404, {
              error: 'not_found',
              message: 'No invoice yet',
              code: 'INVOICE_NOT_ISSUED',
              request_id: 'r',
            }),
      ),
    );
    const bytes = await client().orders.invoice(42);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...bytes]).toEqual([...pdf]);
    await expect(client().orders.invoice(43)).rejects.toMatchObject({
      code: 'INVOICE_NOT_ISSUED',
      status: 404,
    });
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0cy0xMjM0NTY3OA==';
  const body = JSON.stringify({
    event: 'order.created',
    event_key: 'order.created:7',
    created_at: '2026-10-18T00:00:00.000Z',
    data: { order: { id: 7 } },
  });
  const t = 1_800_000_000;
  const now = t * 1000;
  const reason = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(WebhookVerificationError);
      return (e as WebhookVerificationError).reason;
    }
    return expect.unreachable('expected a WebhookVerificationError');
  };

  it('accepts a valid signature (string or bytes) and returns the event', () => {
    const header = signWebhook(body, secret, t);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(body, header, secret, { now }).event_key).toBe('order.created:7');
    expect(verifyWebhook(Buffer.from(body), header, secret, { now: new Date(now + 299_000) }).data).toEqual({
      order: { id: 7 },
    });
  });

  it('rejects a wrong secret or an altered body', () => {
    const header = signWebhook(body, secret, t);
    expect(reason(() => verifyWebhook(body, header, `${secret}x`, { now }))).toBe('signature_mismatch');
    expect(reason(() => verifyWebhook(body.replace('7', '8'), header, secret, { now }))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects timestamps older or further in the future than the tolerance', () => {
    const header = signWebhook(body, secret, t);
    expect(reason(() => verifyWebhook(body, header, secret, { now: now + 301_000 }))).toBe(
      'timestamp_too_old',
    );
    expect(reason(() => verifyWebhook(body, header, secret, { now: now - 301_000 }))).toBe(
      'timestamp_in_future',
    );
    expect(verifyWebhook(body, header, secret, { now: now + 900_000, tolerance: 1000 }).event).toBe(
      'order.created',
    );
    expect(reason(() => verifyWebhook(body, header, secret, { now: now + 11_000, tolerance: 10 }))).toBe(
      'timestamp_too_old',
    );
  });

  it('rejects missing and malformed headers', () => {
    const v1 = signWebhook(body, secret, t).split(',')[1];
    expect(reason(() => verifyWebhook(body, undefined, secret, { now }))).toBe('missing_signature');
    expect(reason(() => verifyWebhook(body, '', secret, { now }))).toBe('missing_signature');
    for (const bad of ['garbage', `${v1}`, `t=${t}`, `t=abc,${v1}`, `t=${t},t=${t},${v1}`, `t=-5,${v1}`]) {
      expect(
        reason(() => verifyWebhook(body, bad, secret, { now })),
        bad,
      ).toBe('malformed_signature');
    }
    expect(reason(() => verifyWebhook(body, `t=${t},v1=zz`, secret, { now }))).toBe('signature_mismatch');
    expect(() => verifyWebhook(body, `t=${t},${v1}`, '', { now })).toThrow(TypeError);
  });

  it('accepts a header with several v1 entries when any one matches', () => {
    const good = signWebhook(body, secret, t).split(',')[1];
    const other = signWebhook(body, 'whsec_old', t).split(',')[1];
    expect(verifyWebhook(body, `t=${t},${other},${good}`, secret, { now }).event).toBe('order.created');
    expect(verifyWebhook(body, `t=${t}, v0=abc, ${good}, ${other}`, secret, { now }).event).toBe(
      'order.created',
    );
    expect(reason(() => verifyWebhook(body, `t=${t},${other},${other}`, secret, { now }))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects an authentic body that is not an event', () => {
    const header = signWebhook('not json', secret, t);
    expect(reason(() => verifyWebhook('not json', header, secret, { now }))).toBe('invalid_payload');
  });
});
