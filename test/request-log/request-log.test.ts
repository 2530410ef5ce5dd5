import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../client/src/index.ts';
import { createTaskList } from '../../jobs/tasks.ts';
import { JOBS } from '../../src/db/jobs.ts';
import { rows, sql } from '../../src/db/sql.ts';
import type { RequestRecord } from '../../src/request-log/entry.ts';
import { pruneRequestLog } from '../../src/request-log/prune-requests.ts';
import { getRequestOutput, type LoggedRequest, listRequestsOutput } from '../../src/request-log/schemas.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';
import { mintAppToken } from '../helpers/oauth.ts';

/**
 * The request log, GET /api/v1/requests and /api/v1/requests/{request_id}: every /api/v1 request a
 * store's credentials make, recorded by the edge in batches, read back over HTTP.
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;
let testKey: string;

beforeAll(async () => {
  // A low inventory limit, so a rate-limited request is cheap to make.
  app = await startTestApp({ INVENTORY_RATE_LIMIT: '2' }, { requestLog: {} });
  store = await app.createStore('Logged Store');
  other = await app.createStore('Other Store');
  testKey = (await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read_write', mode: 'test' }))
    .key;
});
afterAll(async () => {
  await app?.close();
});

const REQUESTS = '/api/v1/requests';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A finished `GET /vendor/me` of a store, as the edge hands it to the recorder. */
function meRequest(storeId: number, requestId: string, createdAt: number): RequestRecord {
  return {
    storeId,
    livemode: true,
    requestId,
    method: 'GET',
    path: '/api/v1/vendor/me',
    search: '',
    status: 200,
    errorType: null,
    errorCode: null,
    durationMs: 1,
    credentialType: 'api_key',
    credentialId: 0,
    appId: null,
    idempotencyKey: null,
    replayed: false,
    userAgent: null,
    createdAt,
  };
}

/** Waits until every request id is in the log (its batch written), reading rows as the database has them. */
async function logged(ids: string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    await app.requestLog?.flush();
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(DISTINCT request_id)::integer AS n FROM request_log WHERE request_id = ANY (${ids}::text[])`,
    );
    if ((row?.n ?? 0) === ids.length) return;
    if (Date.now() > deadline) throw new Error(`not logged: ${ids.join(', ')}`);
    await sleep(20);
  }
}

/** A request through the real HTTP surface, with its id. */
async function call(
  method: string,
  path: string,
  key?: string,
  o: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await send<unknown>(app, method, path, { key, ...o });
  const id = res.headers.get('x-request-id') ?? '';
  return { ...res, id };
}

async function list(query: string, key: string) {
  const res = await send<{ requests: LoggedRequest[]; next_cursor: string | null; has_more: boolean }>(
    app,
    'GET',
    `${REQUESTS}${query}`,
    { key },
  );
  if (res.status === 200) listRequestsOutput.parse(res.body);
  return res;
}

/** Every request of the store a credential sees, all pages, under these filters. */
async function all(query: string, key: string): Promise<LoggedRequest[]> {
  const out: LoggedRequest[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '?';
    const page = await list(`${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    expect(page.status).toBe(200);
    out.push(...page.body.requests);
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

describe('what is recorded', () => {
  it('every request of the store once, with its fields: a success, a 4xx with its code, a replay, a 429', async () => {
    const ok = await call(
      'GET',
      '/api/v1/orders?status=pending&limit=5&search=bea%40example.com',
      store.readWrite,
      {
        headers: { 'user-agent': 'reqlog-test/1.0' },
      },
    );
    expect(ok.status).toBe(200);
    const missing = await call('GET', '/api/v1/orders/999999', store.read);
    expect(missing.status).toBe(404);
    const refused = await call('POST', '/api/v1/vendor/webhooks', store.read, {
      body: { url: 'https://127.0.0.1:9/hook', events: ['order.created'] },
    });
    expect(refused.status).toBe(403);
    const body = { url: 'https://127.0.0.1:9/hook', events: ['order.created'] };
    const headers = { 'Idempotency-Key': 'reqlog-key-1' };
    const first = await call('POST', '/api/v1/vendor/webhooks', store.readWrite, { body, headers });
    expect(first.status).toBe(201);
    const again = await call('POST', '/api/v1/vendor/webhooks', store.readWrite, { body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const limited: string[] = [];
    let tooMany: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 6 && !tooMany; i++) {
      const r = await call('GET', '/api/v1/inventory', store.readWrite);
      limited.push(r.id);
      if (r.status === 429) tooMany = r;
    }
    expect(tooMany?.status).toBe(429);
    const ids = [ok.id, missing.id, refused.id, first.id, again.id, ...limited];
    await logged(ids);

    const seen = await all('', store.read);
    const byId = new Map(seen.map((r) => [r.id, r]));
    for (const id of ids)
      expect(
        seen.filter((r) => r.id === id),
        id,
      ).toHaveLength(1);

    expect(byId.get(ok.id)).toMatchObject({
      method: 'GET',
      path: '/api/v1/orders',
      query: 'status=pending&limit=5&search=%5Bredacted%5D',
      operation: 'listOrders',
      status: 200,
      error: null,
      credential: { type: 'api_key', prefix: store.readWrite.slice(0, 12) },
      app: null,
      idempotency_key: null,
      replayed: false,
      user_agent: 'reqlog-test/1.0',
      livemode: true,
    });
    expect(byId.get(ok.id)?.duration_ms).toBeGreaterThan(0);
    expect(byId.get(missing.id)).toMatchObject({
      operation: 'getOrder',
      status: 404,
      error: { type: 'not_found', code: 'ORDER_NOT_FOUND' },
      credential: { type: 'api_key', prefix: store.read.slice(0, 12) },
    });
    expect(byId.get(refused.id)).toMatchObject({
      method: 'POST',
      operation: 'createWebhook',
      status: 403,
      error: { type: 'forbidden', code: 'INSUFFICIENT_SCOPE' },
    });
    expect(byId.get(first.id)).toMatchObject({
      status: 201,
      idempotency_key: 'reqlog-key-1',
      replayed: false,
    });
    expect(byId.get(again.id)).toMatchObject({
      status: 201,
      idempotency_key: 'reqlog-key-1',
      replayed: true,
    });
    expect(byId.get(tooMany?.id ?? '')).toMatchObject({
      operation: 'listInventory',
      status: 429,
      error: { type: 'rate_limited', code: 'RATE_LIMITED' },
    });
    // Never a secret: no row holds a key beyond its public prefix.
    expect(JSON.stringify(seen)).not.toContain(store.readWrite.slice(12));
    expect(JSON.stringify(seen)).not.toContain(store.read.slice(12));
  });

  it('not a request without a credential, nor one with a credential that is no key', async () => {
    const anonymous = await call('GET', '/api/v1/orders');
    const bogus = await call('GET', '/api/v1/orders', `sl_live_${'a'.repeat(40)}`);
    expect([anonymous.status, bogus.status]).toEqual([401, 401]);
    const marker = await call('GET', '/api/v1/vendor/me', store.readWrite);
    await logged([marker.id]);
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM request_log WHERE request_id IN (${anonymous.id}, ${bogus.id})`,
    );
    expect(row?.n).toBe(0);
  });

  it('a parameter the operation does not declare is left out, name and value (it may be a key)', async () => {
    const r = await call('GET', `/api/v1/orders?limit=2&api_key=${store.readWrite}`, store.readWrite);
    expect(r.status).toBe(400);
    await logged([r.id]);
    const got = await send<{ request: LoggedRequest }>(app, 'GET', `${REQUESTS}/${r.id}`, {
      key: store.read,
    });
    expect(got.status).toBe(200);
    getRequestOutput.parse(got.body);
    expect(got.body.request).toMatchObject({
      query: 'limit=2',
      status: 400,
      error: { type: 'bad_request', code: 'VALIDATION_FAILED' },
    });
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM request_log WHERE concat_ws(' ', path, query, user_agent) LIKE ${`%${store.readWrite.slice(12)}%`}`,
    );
    expect(row?.n).toBe(0);
  });

  it("the edge's own refusals after the credential keep their code: a reused Idempotency-Key (422)", async () => {
    const headers = { 'Idempotency-Key': 'reqlog-reused' };
    const url = 'https://127.0.0.1:9/reused';
    const made = await call('POST', '/api/v1/vendor/webhooks', store.readWrite, {
      body: { url, events: ['order.created'] },
      headers,
    });
    expect(made.status).toBe(201);
    const reused = await call('POST', '/api/v1/vendor/webhooks', store.readWrite, {
      body: { url, events: ['order.shipped'] },
      headers,
    });
    expect(reused.status).toBe(422);
    await logged([reused.id]);
    const got = await send<{ request: LoggedRequest }>(app, 'GET', `${REQUESTS}/${reused.id}`, {
      key: store.read,
    });
    expect(got.body.request).toMatchObject({
      status: 422,
      error: { code: 'IDEMPOTENCY_KEY_REUSED' },
      idempotency_key: 'reqlog-reused',
      replayed: false,
    });
  });

  it('the request log records its own reads too (as Stripe does)', async () => {
    const r = await call('GET', `${REQUESTS}?limit=1`, store.read);
    await logged([r.id]);
    const got = await send<{ request: LoggedRequest }>(app, 'GET', `${REQUESTS}/${r.id}`, {
      key: store.read,
    });
    expect(got.body.request).toMatchObject({ operation: 'listRequests', query: 'limit=1', status: 200 });
  });
});

describe('who reads what', () => {
  it('another store never: its list holds none of this store, and a get of this store’s request is 404', async () => {
    const mine = await call('GET', '/api/v1/vendor/me', store.readWrite);
    const theirs = await call('GET', '/api/v1/vendor/me', other.readWrite);
    await logged([mine.id, theirs.id]);
    const seen = await all('', other.read);
    expect(seen.map((r) => r.id)).toContain(theirs.id);
    expect(seen.map((r) => r.id)).not.toContain(mine.id);
    const get = await send<ErrorBody>(app, 'GET', `${REQUESTS}/${mine.id}`, { key: other.read });
    expect(get.status).toBe(404);
    expect(get.body).toMatchObject({ error: 'not_found', code: 'REQUEST_NOT_FOUND' });
  });

  it('a test key reads test requests only, a live key live ones only', async () => {
    const live = await call('GET', '/api/v1/vendor/me', store.readWrite);
    const test = await call('GET', '/api/v1/vendor/me', testKey);
    await logged([live.id, test.id]);
    const asTest = await all('', testKey);
    expect(asTest.map((r) => r.id)).toContain(test.id);
    expect(asTest.map((r) => r.id)).not.toContain(live.id);
    expect(asTest.every((r) => r.livemode === false)).toBe(true);
    const asLive = await all('', store.read);
    expect(asLive.map((r) => r.id)).not.toContain(test.id);
    expect((await send(app, 'GET', `${REQUESTS}/${test.id}`, { key: store.read })).status).toBe(404);
    expect((await send(app, 'GET', `${REQUESTS}/${live.id}`, { key: testKey })).status).toBe(404);
  });

  it('an app token, with any scope, reads only its own app’s requests, named by client id and name', async () => {
    const token = await mintAppToken(app, store.id, ['read_orders']);
    const otherApp = await mintAppToken(app, store.id, ['read_products']);
    const byApp = await call('GET', '/api/v1/orders', token.access_token);
    const byOther = await call('GET', '/api/v1/products?limit=1', otherApp.access_token);
    const byKey = await call('GET', '/api/v1/vendor/me', store.readWrite);
    await logged([byApp.id, byOther.id, byKey.id]);
    const seen = await all('', token.access_token);
    expect(seen.map((r) => r.id)).toContain(byApp.id);
    expect(seen.map((r) => r.id)).not.toContain(byOther.id);
    expect(seen.map((r) => r.id)).not.toContain(byKey.id);
    expect(seen.find((r) => r.id === byApp.id)).toMatchObject({
      credential: { type: 'app', prefix: null },
      app: { client_id: token.clientId },
    });
    expect(seen.find((r) => r.id === byApp.id)?.app?.name).toMatch(/^App /);
    expect((await send(app, 'GET', `${REQUESTS}/${byKey.id}`, { key: token.access_token })).status).toBe(404);
    // The store's keys see the app's requests, and may filter by its client id.
    const filtered = await all(`?credential=${token.clientId}`, store.read);
    expect(filtered.map((r) => r.id)).toEqual(expect.arrayContaining([byApp.id]));
    expect(filtered.every((r) => r.app?.client_id === token.clientId)).toBe(true);
  });

  it('security table: no key 401, a bad key 401, read and read_write keys 200', async () => {
    const none = await send<ErrorBody>(app, 'GET', REQUESTS);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIAL' });
    expect((await send(app, 'GET', `${REQUESTS}/req_x`)).status).toBe(401);
    expect((await send(app, 'GET', REQUESTS, { key: store.read })).status).toBe(200);
    expect((await send(app, 'GET', REQUESTS, { key: store.readWrite })).status).toBe(200);
    expect((await send(app, 'POST', REQUESTS, { key: store.readWrite })).status).toBe(405);
  });
});

describe('filters and pages', () => {
  it('status, status class, operation, credential, idempotency key and time each narrow the list', async () => {
    const s = await app.createStore('Filtered Store');
    const a = await call('GET', '/api/v1/vendor/me', s.readWrite);
    const b = await call('GET', '/api/v1/orders/424242', s.read);
    const c = await call('GET', '/api/v1/orders?limit=1', s.read);
    const d = await call('POST', '/api/v1/vendor/webhooks', s.readWrite, {
      body: { url: 'https://127.0.0.1:9/x', events: ['order.created'] },
      headers: { 'Idempotency-Key': 'filter-key' },
    });
    await logged([a.id, b.id, c.id, d.id]);
    const ids = async (q: string) =>
      (await all(q, s.read)).map((r) => r.id).filter((id) => [a.id, b.id, c.id, d.id].includes(id));
    expect(await ids('?status=404')).toEqual([b.id]);
    expect(await ids('?status_class=4xx')).toEqual([b.id]);
    expect(await ids('?status_class=2xx')).toEqual([d.id, c.id, a.id]);
    expect(await ids('?operation=listOrders')).toEqual([c.id]);
    expect(await ids(`?credential=${s.readWrite.slice(0, 12)}`)).toEqual([d.id, a.id]);
    expect(await ids('?idempotency_key=filter-key')).toEqual([d.id]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await ids(`?created_gte=${future}`)).toEqual([]);
    expect(await ids(`?created_lt=${future}`)).toEqual([d.id, c.id, b.id, a.id]);
  });

  it('a rare combination of filters reads a bounded window a page: short pages with next_cursor, every match once, in order', async () => {
    const s = await app.createStore('Windowed Store');
    const prefix = s.read.slice(0, 12);
    // 5,000 requests of one key, oldest first; six 409s: the three oldest and three in the middle.
    const rare = [1, 2, 3, 2_500, 2_501, 2_502];
    await rows(
      app.em(),
      sql`INSERT INTO request_log (store_id, livemode, request_id, method, path, operation, status, error_type,
          error_code, duration_ms, credential_type, credential_id, credential_prefix, created_at)
        SELECT ${s.id}, true, 'win_' || g, 'GET', '/api/v1/products',
          CASE WHEN g = ANY (${rare}::int[]) THEN 'createOrder' ELSE 'listProducts' END,
          CASE WHEN g = ANY (${rare}::int[]) THEN 409 ELSE 200 END, NULL, NULL, 1, 'api_key', 0, ${prefix},
          now() - interval '1 day' + g * interval '1 second'
        FROM generate_series(1, 5000) g`,
    );
    const pages: { n: number; more: boolean }[] = [];
    const found: string[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const q = `?status_class=4xx&credential=${prefix}&limit=20${cursor}`;
      const page = await list(q, s.read);
      expect(page.status).toBe(200);
      pages.push({ n: page.body.requests.length, more: page.body.has_more });
      found.push(...page.body.requests.map((r) => r.id));
      if (!page.body.next_cursor) break;
      expect(page.body.has_more).toBe(true);
      cursor = `&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    // Windows of 2,000: the newest holds no 409, the next the middle three, the last the oldest three.
    expect(pages).toEqual([
      { n: 0, more: true },
      { n: 3, more: true },
      { n: 3, more: false },
    ]);
    expect(found).toEqual(['win_2502', 'win_2501', 'win_2500', 'win_3', 'win_2', 'win_1']);
    // One filter walks its own index: full pages, and has_more only while matches are left.
    const single = [];
    cursor = '';
    for (;;) {
      const page = await list(`?status=409&limit=4${cursor}`, s.read);
      single.push(page.body.requests.length);
      if (!page.body.next_cursor) break;
      cursor = `&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    expect(single).toEqual([4, 2]);
    expect((await list('?operation=createOrder&status=409', s.read)).body).toMatchObject({ has_more: false });
  });

  it('pages follow next_cursor, newest first, each request once; a cursor holds to its filters', async () => {
    const s = await app.createStore('Paged Store');
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await call('GET', '/api/v1/vendor/me', s.readWrite)).id);
    await logged(made);
    const first = await list('?limit=3&operation=getStore', s.read);
    expect(first.body.requests).toHaveLength(3);
    expect(first.body.has_more).toBe(true);
    const walked = await all('?limit=3&operation=getStore', s.read);
    expect(walked.map((r) => r.id)).toEqual([...made].reverse());
    const times = walked.map((r) => Date.parse(r.created_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const cursor = encodeURIComponent(first.body.next_cursor ?? '');
    const otherFilter = await list(`?limit=3&operation=listOrders&cursor=${cursor}`, s.read);
    expect(otherFilter.status).toBe(400);
    expect(otherFilter.body).toMatchObject({ code: 'INVALID_CURSOR' });
    const otherStore = await list(`?limit=3&operation=getStore&cursor=${cursor}`, store.read);
    expect(otherStore.status).toBe(400);
  });

  it('invalid input is a 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['?status=99', 'status'],
      ['?status=abc', 'status'],
      ['?status_class=3xx', 'status_class'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?created_gte=yesterday', 'created_gte'],
      ['?created_gte=2026-11-29T10:00:00Z&created_lt=2026-11-29T09:00:00Z', 'created_lt'],
      ['?status=404&status_class=5xx', 'status'],
      ['?operation=list%20orders', 'operation'],
      ['?credential=%00', 'credential'],
      ['?cursor=garbage', 'cursor'],
      ['?statuss=200', 'statuss'],
    ];
    for (const [query, path] of cases) {
      const res = await send<ErrorBody & { details?: { path: string }[] }>(
        app,
        'GET',
        `${REQUESTS}${query}`,
        {
          key: store.read,
        },
      );
      expect(res.status, query).toBe(400);
      expect(
        res.body.details?.map((d) => d.path),
        query,
      ).toContain(path);
    }
    const badId = await send<ErrorBody>(app, 'GET', `${REQUESTS}/${'x'.repeat(201)}`, { key: store.read });
    expect(badId.status).toBe(400);
    const unknown = await send<ErrorBody>(app, 'GET', `${REQUESTS}/req_nothing_here`, { key: store.read });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'REQUEST_NOT_FOUND' });
  });
});

describe('retention and the writer', () => {
  it('the hourly job deletes requests older than 7 days in batches, and keeps the rest', async () => {
    const s = await app.createStore('Old Store');
    const recent = await call('GET', '/api/v1/vendor/me', s.readWrite);
    await logged([recent.id]);
    await rows(
      app.em(),
      sql`INSERT INTO request_log (store_id, livemode, request_id, method, path, status, duration_ms,
          credential_type, credential_id, created_at)
        SELECT ${s.id}, true, 'old_' || g, 'GET', '/api/v1/vendor/me', 200, 1, 'api_key', 0,
          now() - interval '8 days' - g * interval '1 second'
        FROM generate_series(1, 7) g`,
    );
    expect(await pruneRequestLog(app.em(), { batch: 3 })).toBeGreaterThanOrEqual(7);
    const left = await rows<{ request_id: string }>(
      app.em(),
      sql`SELECT request_id FROM request_log WHERE store_id = ${s.id}`,
    );
    expect(left.map((r) => r.request_id)).toEqual([recent.id]);
    // The worker's task runs the same, from the crontab's payload.
    const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS)[JOBS.pruneRequestLog];
    await task?.({ _cron: { ts: new Date().toISOString(), backfilled: false } }, {
      logger: { info() {}, debug() {}, warn() {}, error() {} },
    } as never);
    expect((await all('', s.read)).map((r) => r.id)).toContain(recent.id);
  });

  it('a full buffer drops the oldest, counts them in a warning, and never fails a request', async () => {
    const warnings: object[] = [];
    const log = { warn: (o: object) => warnings.push(o), error: () => {} };
    const { RequestRecorder } = await import('../../src/request-log/recorder.ts');
    const recorder = new RequestRecorder({ em: () => app.em(), log, capacity: 3, flushMs: 60_000 });
    const s = await app.createStore('Overflow Store');
    for (let i = 1; i <= 5; i++) {
      recorder.record(meRequest(s.id, `overflow_${i}`, Date.now() + i));
    }
    expect(recorder.pending).toBe(3);
    await recorder.close();
    const kept = await rows<{ request_id: string }>(
      app.em(),
      sql`SELECT request_id FROM request_log WHERE store_id = ${s.id} ORDER BY request_id`,
    );
    expect(kept.map((r) => r.request_id)).toEqual(['overflow_3', 'overflow_4', 'overflow_5']);
    expect(warnings).toEqual([expect.objectContaining({ dropped: 2 })]);
  });

  it('a buffer past capacity many times over keeps exactly the newest rows, in order (the ring wraps)', async () => {
    const warnings: { dropped?: number }[] = [];
    const log = { warn: (o: object) => warnings.push(o), error: () => {} };
    const { RequestRecorder } = await import('../../src/request-log/recorder.ts');
    // A batch larger than the buffer: nothing is written until close, as when the database is away.
    const recorder = new RequestRecorder({
      em: () => app.em(),
      log,
      capacity: 1000,
      batchRows: 5000,
      flushMs: 60_000,
    });
    const s = await app.createStore('Ring Store');
    const base = Date.now();
    for (let i = 1; i <= 25_000; i++) {
      recorder.record(meRequest(s.id, `ring_${String(i).padStart(5, '0')}`, base + i));
    }
    expect(recorder.pending).toBe(1000);
    await recorder.close();
    const kept = await rows<{ request_id: string }>(
      app.em(),
      sql`SELECT request_id FROM request_log WHERE store_id = ${s.id} ORDER BY created_at, id`,
    );
    const expected = Array.from({ length: 1000 }, (_, k) => `ring_${String(24_001 + k).padStart(5, '0')}`);
    expect(kept.map((r) => r.request_id)).toEqual(expected);
    expect(warnings.reduce((n, w) => n + (w.dropped ?? 0), 0)).toBe(24_000);
  });

  it('shutdown writes what the buffer holds: requests recorded under a long interval are there after close', async () => {
    const lazy = await startTestApp({}, { requestLog: { flushMs: 600_000 } });
    try {
      const s = await lazy.createStore('Shutdown Store');
      const r = await send(lazy, 'GET', '/api/v1/vendor/me', { key: s.readWrite });
      await sleep(50);
      expect(lazy.requestLog?.pending).toBe(1);
      const [before] = await rows<{ n: number }>(
        lazy.em(),
        sql`SELECT count(*)::integer AS n FROM request_log`,
      );
      expect(before?.n).toBe(0);
      await lazy.requestLog?.close();
      const logged = await rows<{ request_id: string }>(lazy.em(), sql`SELECT request_id FROM request_log`);
      expect(logged.map((x) => x.request_id)).toEqual([r.headers.get('x-request-id')]);
    } finally {
      await lazy.close();
    }
  });
});
