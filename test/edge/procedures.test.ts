import { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../server/logger.ts';
import type { Actor, AppScope } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { AppError } from '../../src/errors.ts';
import { createCaller } from '../../src/router.ts';
import { revokeApiKey } from '../../src/store/revoke-api-key.ts';
import type { Context } from '../../src/trpc/context.ts';
import { jsonRpcCodeOf, shapeError } from '../../src/trpc/errors.ts';
import { createCallerFactory, router } from '../../src/trpc/init.ts';
import { partnerProcedure } from '../../src/trpc/procedures.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { failure } from '../helpers/errors.ts';

const OPERATOR_TOKEN = 'op_test_token_0123456789abcdefghijklmnop';
const _log = createLogger('silent');

/** Which handlers actually ran: a refused call must never reach its handler. */
const ran: string[] = [];

const testRouter = router({
  readProducts: partnerProcedure.meta({ appScope: 'read_products' }).query(({ ctx }) => {
    ran.push('readProducts');
    return { storeId: ctx.actor.storeId, kind: ctx.actor.kind };
  }),
  writeProducts: partnerProcedure.meta({ appScope: 'write_products' }).mutation(({ ctx }) => {
    ran.push('writeProducts');
    return { storeId: ctx.actor.storeId };
  }),
  readCustomers: partnerProcedure.meta({ appScope: 'read_customers' }).query(() => {
    ran.push('readCustomers');
    return { ok: true };
  }),
  anyApp: partnerProcedure.meta({ appScope: '*' }).query(({ ctx }) => {
    ran.push('anyApp');
    return { storeId: ctx.actor.storeId };
  }),
  anyAppWrite: partnerProcedure.meta({ appScope: '*' }).mutation(({ ctx }) => {
    ran.push('anyAppWrite');
    return { storeId: ctx.actor.storeId };
  }),
  noApps: partnerProcedure.meta({ appScope: null }).query(() => {
    ran.push('noApps');
    return { ok: true };
  }),
  noAppsWrite: partnerProcedure.meta({ appScope: null }).mutation(() => {
    ran.push('noAppsWrite');
    return { ok: true };
  }),
  noMeta: partnerProcedure.query(() => {
    ran.push('noMeta');
    return { ok: true };
  }),
  validated: partnerProcedure
    .meta({ appScope: '*' })
    .input(z.object({ limit: z.number().int().max(10), nested: z.object({ name: z.string() }) }))
    .query(({ input }) => input),
  crashes: partnerProcedure.meta({ appScope: '*' }).query(() => {
    throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db.internal:5432');
  }),
});
const createTestCaller = createCallerFactory(testRouter);

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN });
  store = await app.createStore('Procedures Store');
});
afterAll(() => app.close());

/** A fresh context per call, as each HTTP request gets. */
function context(o: { authorization?: string; actor?: Actor; operatorToken?: string } = {}): Context {
  return testContext(app, o);
}

const asKey = (key: string) => createTestCaller(context({ authorization: `Bearer ${key}` }));

function appActor(scopes: AppScope[], scope: Actor['scope'] = 'read_write'): Actor {
  return {
    storeId: store.id,
    kind: 'app',
    scope,
    appScopes: new Set(scopes),
    credentialId: 1,
    appId: 1,
    canReadCustomers: scopes.includes('read_customers'),
    livemode: true,
  };
}
const asApp = (scopes: AppScope[], scope: Actor['scope'] = 'read_write') =>
  createTestCaller(context({ actor: appActor(scopes, scope) }));

function expectInsufficientScope(err: AppError, requiredScope: string) {
  expect(err.category).toBe('forbidden');
  expect(err.appCode).toBe('INSUFFICIENT_SCOPE');
  expect(err.extra).toEqual({ required_scope: requiredScope });
  expect(jsonRpcCodeOf(err.category)).toBe(TRPC_ERROR_CODES_BY_KEY.FORBIDDEN);
  expect(shapeError(err)).toEqual({
    status: 403,
    headers: {},
    body: {
      error: 'forbidden',
      code: 'INSUFFICIENT_SCOPE',
      message: expect.any(String),
      required_scope: requiredScope,
    },
  });
}

describe('partnerProcedure with API keys', () => {
  it('lets a read key query, as its own store', async () => {
    ran.length = 0;
    expect(await asKey(store.read).readProducts()).toEqual({ storeId: store.id, kind: 'api_key' });
    expect(ran).toEqual(['readProducts']);
  });

  it('refuses a mutation to a read key with INSUFFICIENT_SCOPE / read_write, before the handler runs', async () => {
    ran.length = 0;
    for (const call of [
      () => asKey(store.read).writeProducts(),
      () => asKey(store.read).anyAppWrite(),
      () => asKey(store.read).noAppsWrite(),
    ]) {
      expectInsufficientScope(await failure(call()), 'read_write');
    }
    expect(ran).toEqual([]);
  });

  it('lets a read_write key query and mutate', async () => {
    ran.length = 0;
    expect(await asKey(store.readWrite).writeProducts()).toEqual({ storeId: store.id });
    expect(await asKey(store.readWrite).readProducts()).toEqual({ storeId: store.id, kind: 'api_key' });
    expect(await asKey(store.readWrite).noAppsWrite()).toEqual({ ok: true });
    expect(ran).toEqual(['writeProducts', 'readProducts', 'noAppsWrite']);
  });

  it('ignores app scopes for API keys: every rule, even none, accepts a key', async () => {
    const caller = () => asKey(store.read);
    expect(await caller().noApps()).toEqual({ ok: true });
    expect(await caller().noMeta()).toEqual({ ok: true });
    expect(await caller().readCustomers()).toEqual({ ok: true });
    expect(await caller().anyApp()).toEqual({ storeId: store.id });
  });

  it('answers unauthorized without a credential or with an invalid one', async () => {
    ran.length = 0;
    const headers = [
      undefined,
      '',
      'Basic dXNlcjpwYXNz',
      'Bearer not-a-key',
      'Bearer sl_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      `Bearer ${store.read}x`,
      store.read, // no scheme
    ];
    for (const authorization of headers) {
      for (const call of [
        () => createTestCaller(context({ authorization })).readProducts(),
        () => createTestCaller(context({ authorization })).writeProducts(),
      ]) {
        const err = await failure(call());
        expect(err.category, `authorization=${authorization}`).toBe('unauthorized');
        expect(jsonRpcCodeOf(err.category)).toBe(TRPC_ERROR_CODES_BY_KEY.UNAUTHORIZED);
        expect(shapeError(err).status).toBe(401);
      }
    }
    expect(ran).toEqual([]);
  });

  it('answers unauthorized for a revoked key', async () => {
    const fresh = await app.createStore('Revoked Store');
    expect(await asKey(fresh.readWrite).readProducts()).toEqual({ storeId: fresh.id, kind: 'api_key' });
    const em = app.em();
    const [row] = await rows<{ id: number }>(
      em,
      sql`SELECT id FROM api_keys WHERE store_id = ${fresh.id} AND scope = 'read_write'`,
    );
    if (!row) throw new Error('no key row');
    await revokeApiKey(testContext(app), { id: row.id });
    const err = await failure(asKey(fresh.readWrite).readProducts());
    expect(err.category).toBe('unauthorized');
  });
});

describe('partnerProcedure with app tokens', () => {
  it('refuses an app on an operation without an app scope: APP_TOKEN_NOT_ALLOWED', async () => {
    ran.length = 0;
    const everything: AppScope[] = [
      'read_products',
      'write_products',
      'read_inventory',
      'write_inventory',
      'read_orders',
      'write_orders',
      'read_customers',
      'write_external_orders',
    ];
    for (const call of [
      () => asApp(everything).noApps(),
      () => asApp(everything).noMeta(),
      () => asApp(everything).noAppsWrite(),
    ]) {
      const err = await failure(call());
      expect(err.category).toBe('forbidden');
      expect(err.appCode).toBe('APP_TOKEN_NOT_ALLOWED');
      expect(err.extra).toEqual({});
      expect(shapeError(err).body).toEqual({
        error: 'forbidden',
        code: 'APP_TOKEN_NOT_ALLOWED',
        message: expect.any(String),
      });
    }
    expect(ran).toEqual([]);
  });

  it('refuses an app lacking the scope with INSUFFICIENT_SCOPE naming that scope', async () => {
    ran.length = 0;
    expectInsufficientScope(await failure(asApp([]).readProducts()), 'read_products');
    expectInsufficientScope(await failure(asApp(['read_orders']).readProducts()), 'read_products');
    expectInsufficientScope(await failure(asApp(['read_products']).writeProducts()), 'write_products');
    expectInsufficientScope(await failure(asApp(['write_inventory']).writeProducts()), 'write_products');
    expect(ran).toEqual([]);
  });

  it('allows an app holding the scope', async () => {
    expect(await asApp(['read_products']).readProducts()).toEqual({ storeId: store.id, kind: 'app' });
    expect(await asApp(['write_products']).writeProducts()).toEqual({ storeId: store.id });
    expect(await asApp(['read_customers']).readCustomers()).toEqual({ ok: true });
  });

  it('lets write_products cover read_products, but never implies read_customers', async () => {
    expect(await asApp(['write_products']).readProducts()).toEqual({ storeId: store.id, kind: 'app' });
    expectInsufficientScope(await failure(asApp(['write_orders']).readProducts()), 'read_products');
    expectInsufficientScope(
      await failure(
        asApp([
          'read_products',
          'write_products',
          'read_orders',
          'write_orders',
          'write_external_orders',
        ]).readCustomers(),
      ),
      'read_customers',
    );
    // Not even by a write_customers grant, should one ever exist.
    expectInsufficientScope(
      await failure(asApp(['write_customers' as AppScope]).readCustomers()),
      'read_customers',
    );
  });

  it("accepts any app on '*', even one with no scopes", async () => {
    expect(await asApp([]).anyApp()).toEqual({ storeId: store.id });
    expect(await asApp(['read_orders']).anyAppWrite()).toEqual({ storeId: store.id });
  });

  it('still applies the method rule to a read-only app token', async () => {
    ran.length = 0;
    expectInsufficientScope(await failure(asApp(['write_products'], 'read').writeProducts()), 'read_write');
    expectInsufficientScope(await failure(asApp([], 'read').anyAppWrite()), 'read_write');
    expect(ran).toEqual([]);
    expect(await asApp(['read_products'], 'read').readProducts()).toEqual({
      storeId: store.id,
      kind: 'app',
    });
  });

  it('uses the preset actor rather than the header', async () => {
    const ctx = context({ authorization: `Bearer ${store.readWrite}`, actor: appActor([]) });
    const err = await failure(createTestCaller(ctx).readProducts());
    expect(err.appCode).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('shapeError', () => {
  it('maps a ZodError to 400 VALIDATION_FAILED with one detail per issue', () => {
    const parsed = z
      .object({ limit: z.number().max(10), nested: z.object({ name: z.string() }) })
      .safeParse({ limit: 50, nested: { name: 3 } });
    if (parsed.success) throw new Error('expected a validation failure');
    const shaped = shapeError(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
    expect(shaped.status).toBe(400);
    expect(shaped.headers).toEqual({});
    expect(shaped.body).toEqual({
      error: 'bad_request',
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('limit'),
      details: [
        { path: 'limit', message: expect.any(String) },
        { path: 'nested.name', message: expect.any(String) },
      ],
    });
    expect(shaped.body.message).toContain('nested.name');
  });

  it('names the root when the whole input is wrong', () => {
    const parsed = z.object({ a: z.string() }).safeParse('nope');
    if (parsed.success) throw new Error('expected a validation failure');
    const shaped = shapeError(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
    expect(shaped.body.details).toEqual([{ path: '(root)', message: expect.any(String) }]);
  });

  it('maps an input validation failure raised by a procedure the same way', async () => {
    const call = asKey(store.read).validated({ limit: 11, nested: { name: 'x' } });
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TRPCError);
    const shaped = shapeError(err as TRPCError);
    expect(shaped.status).toBe(400);
    expect(shaped.body).toMatchObject({
      error: 'bad_request',
      code: 'VALIDATION_FAILED',
      details: [{ path: 'limit', message: expect.any(String) }],
    });
  });

  it('hides an unknown error behind a bare 500', async () => {
    const direct = shapeError(
      new TRPCError({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'relation "secret_table" does not exist',
        cause: new Error('stack here'),
      }),
    );
    expect(direct).toEqual({
      status: 500,
      headers: {},
      body: { error: 'server_error', code: 'INTERNAL_ERROR', message: 'Internal server error' },
    });

    const err = await asKey(store.read)
      .crashes()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(TRPCError);
    const shaped = shapeError(err as TRPCError);
    expect(shaped).toEqual({
      status: 500,
      headers: {},
      body: { error: 'server_error', code: 'INTERNAL_ERROR', message: 'Internal server error' },
    });
    expect(JSON.stringify(shaped)).not.toContain('hunter2');
  });

  it('maps an AppError to its category, code, extras and headers', () => {
    const shaped = shapeError(
      new AppError('rate_limited', 'RATE_LIMITED', 'Slow down', {
        extra: { retry_after: 3 },
        headers: { 'Retry-After': '3' },
      }),
    );
    expect(shaped).toEqual({
      status: 429,
      headers: { 'Retry-After': '3' },
      body: { error: 'rate_limited', code: 'RATE_LIMITED', message: 'Slow down', retry_after: 3 },
    });
  });
});

describe('internal router', () => {
  const internal = (o: { authorization?: string; operatorToken?: string }) =>
    createCaller(context(o)).internal;

  it('refuses createStore without the operator token', async () => {
    const cases = [
      {},
      { authorization: `Bearer ${OPERATOR_TOKEN}` }, // no token configured
      { operatorToken: OPERATOR_TOKEN }, // no header
      { operatorToken: OPERATOR_TOKEN, authorization: `Bearer ${OPERATOR_TOKEN}x` },
      { operatorToken: OPERATOR_TOKEN, authorization: 'Bearer short' },
      { operatorToken: OPERATOR_TOKEN, authorization: OPERATOR_TOKEN },
      { operatorToken: OPERATOR_TOKEN, authorization: `Bearer ${store.readWrite}` }, // a partner key
    ];
    for (const c of cases) {
      const err = await failure(internal(c).store.create({ name: 'Should Not Exist' }));
      expect(err.category, JSON.stringify(c)).toBe('unauthorized');
      expect(shapeError(err).status).toBe(401);
    }
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM stores WHERE name = 'Should Not Exist'`,
    );
    expect(row?.n).toBe(0);
  });

  it('creates a store with the operator token', async () => {
    const created = await internal({
      operatorToken: OPERATOR_TOKEN,
      authorization: `Bearer ${OPERATOR_TOKEN}`,
    }).store.create({ name: 'Operator Store', slug: 'operator-store' });
    expect(created).toMatchObject({ id: expect.any(Number), name: 'Operator Store', slug: 'operator-store' });
    const [row] = await rows<{ name: string }>(
      app.em(),
      sql`SELECT name FROM stores WHERE id = ${created.id}`,
    );
    expect(row?.name).toBe('Operator Store');
  });

  it('validates internal input with the contract error shape', async () => {
    const err = await internal({ operatorToken: OPERATOR_TOKEN, authorization: `Bearer ${OPERATOR_TOKEN}` })
      .store.create({ name: '   ' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(TRPCError);
    expect(shapeError(err as TRPCError).body).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

interface TrpcFailure {
  error: { code: number; data: { httpStatus: number; contract: Record<string, unknown> } };
}

describe('internal router over HTTP', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, { method: 'POST', body, headers });

  it('answers 401 without the operator token, in the contract shape', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-wrong-token-wrong' },
      { authorization: `Bearer ${store.readWrite}` },
    ];
    for (const headers of attempts) {
      const res = await post('/trpc/internal.store.create', { name: 'HTTP Refused' }, headers);
      expect(res.status).toBe(401);
      const body = (await res.json()) as TrpcFailure;
      expect(body.error.data.httpStatus).toBe(401);
      // The domain error reaches tRPC wrapped; its client still sees UNAUTHORIZED's JSON-RPC code.
      expect(body.error.code).toBe(TRPC_ERROR_CODES_BY_KEY.UNAUTHORIZED);
      expect(body.error.data.contract).toMatchObject({
        error: 'unauthorized',
        code: 'INVALID_CREDENTIAL',
        request_id: res.headers.get('x-request-id'),
      });
    }
  });

  it('creates a store with Authorization: Bearer <operator token>', async () => {
    const res = await post(
      '/trpc/internal.store.create',
      { name: 'HTTP Store', slug: 'http-store' },
      { authorization: `Bearer ${OPERATOR_TOKEN}` },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { data: { id: number } } };
    expect(body.result.data).toMatchObject({
      id: expect.any(Number),
      name: 'HTTP Store',
      slug: 'http-store',
    });
    const [row] = await rows<{ slug: string }>(
      app.em(),
      sql`SELECT slug FROM stores WHERE id = ${body.result.data.id}`,
    );
    expect(row?.slug).toBe('http-store');
  });

  it('answers 401 when no operator token is configured at all', async () => {
    const bare = await startTestApp();
    try {
      const res = await bare.request('/trpc/internal.store.create', {
        method: 'POST',
        body: { name: 'No Token Configured' },
        headers: { authorization: 'Bearer undefined' },
      });
      expect(res.status).toBe(401);
    } finally {
      await bare.close();
    }
  });
});

describe('a reused in-process context', () => {
  it('checks the credential on every call: a key revoked between two calls is refused the second time', async () => {
    const em = app.em();
    const { createApiKey } = await import('../../src/store/create-api-key.ts');
    const key = await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'test' });
    const caller = createTestCaller(context({ authorization: `Bearer ${key.key}` }));
    await caller.writeProducts();
    await revokeApiKey(testContext(app), { id: key.id });
    const err = await failure(caller.writeProducts());
    expect(err.category).toBe('unauthorized');
  });
});

describe('internal router: own goods', () => {
  const operator = () =>
    createCaller(context({ operatorToken: OPERATOR_TOKEN, authorization: `Bearer ${OPERATOR_TOKEN}` }))
      .internal;

  it('creates own goods listed in the store and lists them for the dashboard', async () => {
    const own = await app.createStore('Own Goods Store');
    const made = await operator().listings.createOwnGoods({
      storeId: own.id,
      sku: 'OWN-PROC-1',
      name: 'Linen Apron',
      priceCents: 4200,
      stock: 3,
    });
    const second = await operator().listings.createOwnGoods({
      storeId: own.id,
      sku: 'OWN-PROC-2',
      name: 'Tea Towel',
      priceCents: 1800,
      stock: 0,
    });
    // One own supplier per store, created on first use.
    expect(second.supplier_id).toBe(made.supplier_id);
    const listed = await operator().listings.listOwnGoods({ storeId: own.id });
    expect(listed.map((g) => [g.sku, g.name, g.stock_quantity, g.listed])).toEqual([
      ['OWN-PROC-1', 'Linen Apron', 3, true],
      ['OWN-PROC-2', 'Tea Towel', 0, true],
    ]);
    // Another store never sees them.
    expect(await operator().listings.listOwnGoods({ storeId: store.id })).toEqual([]);
    const err = await failure(
      operator().listings.createOwnGoods({
        storeId: 99_999_999,
        sku: 'X-1',
        name: 'X',
        priceCents: 1,
        stock: 1,
      }),
    );
    expect(err.appCode).toBe('STORE_NOT_FOUND');
  });
});
