import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetStoreResponse } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

type Store = Awaited<ReturnType<TestApp['createStore']>>;

let app: TestApp;
let first: Store;
let second: Store;
let firstSlug: string;
let secondSlug: string;
let before: number;
let after: number;

const ZERO_STATS = {
  orders_total: 0,
  orders_by_status: { pending: 0, processing: 0, fulfilled: 0, shipped: 0, delivered: 0, cancelled: 0 },
  revenue_cents: 0,
  last_order_at: null,
};

async function slugOf(id: number): Promise<string> {
  const [row] = await rows<{ slug: string }>(app.em(), sql`SELECT slug FROM stores WHERE id = ${id}`);
  if (!row) throw new Error(`no store ${id}`);
  return row.slug;
}

beforeAll(async () => {
  app = await startTestApp();
  before = Date.now();
  first = await app.createStore('First Store');
  second = await app.createStore('Second Störe & Co');
  after = Date.now();
  firstSlug = await slugOf(first.id);
  secondSlug = await slugOf(second.id);
});
afterAll(() => app.close());

const ME = '/api/v1/vendor/me';

describe('GET /api/v1/vendor/me', () => {
  it('answers the store the key belongs to, with zeroed order statistics', async () => {
    const res = await app.get<GetStoreResponse>(ME, first.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      store: {
        id: first.id,
        name: 'First Store',
        slug: firstSlug,
        currency: 'AUD',
        created_at: expect.any(String),
        has_own_suppliers: false,
        stats: ZERO_STATS,
      },
    });
    expect(Object.keys(res.body.store.stats.orders_by_status)).toEqual([
      'pending',
      'processing',
      'fulfilled',
      'shipped',
      'delivered',
      'cancelled',
    ]);
  });

  it('answers created_at as an ISO 8601 UTC timestamp of the creation', async () => {
    const res = await app.get<GetStoreResponse>(ME, first.read);
    const createdAt: string = res.body.store.created_at;
    expect(createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(new Date(createdAt).toISOString()).toBe(createdAt);
    const ms = Date.parse(createdAt);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
    const [row] = await rows<{ ms: string }>(
      app.em(),
      sql`SELECT floor(extract(epoch FROM created_at) * 1000)::bigint::text AS ms FROM stores WHERE id = ${first.id}`,
    );
    expect(ms).toBe(Number(row?.ms));
  });

  it('shows each key its own store', async () => {
    const a = await app.get<GetStoreResponse>(ME, first.readWrite);
    const b = await app.get<GetStoreResponse>(ME, second.read);
    const b2 = await app.get(ME, second.readWrite);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.store).toMatchObject({ id: first.id, name: 'First Store', slug: firstSlug });
    expect(b.body.store).toMatchObject({
      id: second.id,
      name: 'Second Störe & Co',
      slug: secondSlug,
      currency: 'AUD',
      has_own_suppliers: false,
      stats: ZERO_STATS,
    });
    expect(b2.body).toEqual(b.body);
    expect(second.id).not.toBe(first.id);
    expect(secondSlug).not.toBe(firstSlug);
  });

  it('sets has_own_suppliers only once the store owns a supplier', async () => {
    const fx = fixtures(app.em());
    // A platform supplier, a maker the store follows, and another store's own supplier change nothing.
    const platform = await fx.supplier({ name: 'Platform Supplier' });
    await fx.maker(first.id, platform);
    await fx.supplier({ name: 'Second Own', ownerStoreId: second.id });
    expect((await app.get<GetStoreResponse>(ME, first.read)).body.store.has_own_suppliers).toBe(false);
    expect((await app.get<GetStoreResponse>(ME, second.read)).body.store.has_own_suppliers).toBe(true);

    await fx.supplier({ name: 'First Own', ownerStoreId: first.id });
    const res = await app.get<GetStoreResponse>(ME, first.read);
    expect(res.status).toBe(200);
    expect(res.body.store.has_own_suppliers).toBe(true);
    expect(res.body.store.stats).toEqual(ZERO_STATS);
  });

  it('answers 401 without a key, with an unknown, malformed or revoked key', async () => {
    const none = await app.get<ErrorBody>(ME);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIAL' });
    expect(none.body.request_id).toBe(none.headers.get('x-request-id'));
    expect(none.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
    );
    expect(JSON.stringify(none.body)).not.toContain('First Store');

    for (const key of [`sl_live_${'a'.repeat(40)}`, 'nope', `${first.read}x`]) {
      const res = await app.get<ErrorBody>(ME, key);
      expect(res.status, key).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
    const wrongScheme = await app.request(ME, { headers: { authorization: `Basic ${first.read}` } });
    expect(wrongScheme.status).toBe(401);

    const revoked = await app.createStore('Revoked Store');
    expect((await app.get(ME, revoked.read)).status).toBe(200);
    await rows(app.em(), sql`UPDATE api_keys SET revoked_at = now() WHERE store_id = ${revoked.id}`);
    expect((await app.get(ME, revoked.read)).status).toBe(401);
    expect((await app.get(ME, revoked.readWrite)).status).toBe(401);
  });

  it('serves HEAD like GET', async () => {
    const get = await app.request(ME, { key: first.read });
    const head = await app.request(ME, { key: first.read, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
    const headNoKey = await app.request(ME, { method: 'HEAD' });
    expect(headNoKey.status).toBe(401);
  });
});
