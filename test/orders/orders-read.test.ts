import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ErrorBody,
  GetOrderResponse,
  GetStoreResponse,
  ListOrdersResponse,
} from '../../client/src/index.ts';
import { createLogger } from '../../server/logger.ts';
import type { Actor, AppScope } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { createCaller } from '../../src/router.ts';
import type { Context } from '../../src/trpc/context.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';
import { failure } from '../helpers/errors.ts';
import { fixtures } from '../helpers/fixtures.ts';

type Store = Awaited<ReturnType<TestApp['createStore']>>;
type Channel =
  | 'facebook_instagram'
  | 'google'
  | 'vendor_link'
  | 'email'
  | 'other_referral'
  | 'direct'
  | 'unknown';
type Status = 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';

const OPERATOR_TOKEN = 'op_orders_read_token_0123456789abcdefghij';
const _log = createLogger('silent');
const LIST = '/api/v1/orders';
const one = (id: number | string) => `/api/v1/orders/${id}`;
const ME = '/api/v1/vendor/me';

let app: TestApp;
let store: Store;
let other: Store;

/** Catalogue products and their variant ids. */
const P = { mug: 0, chair: 0, lamp: 0 };
const V: Record<keyof typeof P, number[]> = { mug: [], chair: [], lamp: [] };

/** The main store's orders, by letter; see `SETUP` for what each one is. */
const KEYS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'] as const;
type Key = (typeof KEYS)[number];
const O = {} as Record<Key, { id: number; order_number: string }>;
let otherOrder: { id: number; order_number: string };

const SHIPPING = {
  address: '1 Test Street',
  address2: 'Unit 2',
  city: 'Sydney',
  state: 'NSW',
  zip: '2000',
  country: 'au',
};
const updated = (second: number) => `2026-11-20T00:00:0${second}.000Z`;

interface Setup {
  channel: Channel;
  name: string;
  email: string;
  phone?: string;
  items: () => { product_id: number; variant_id?: number; quantity: number }[];
  total: number;
  lines: number;
  status: Status;
  tracking?: string;
  createdAt: string;
  updatedAt: string;
  attention?: boolean;
}

/**
 * The main store's orders. Prices: mug 2000 retail listed at a custom 2500, chair 5000 (two variants),
 * lamp 1234. created_at and updated_at are pinned so every order is exact.
 */
const SETUP: Record<Key, Setup> = {
  A: {
    channel: 'facebook_instagram',
    name: 'Alice Example',
    email: 'alice@example.com',
    phone: '+61 400 000 001',
    items: () => [{ product_id: P.mug, quantity: 2 }],
    total: 5000,
    lines: 1,
    status: 'pending',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: updated(3),
  },
  B: {
    channel: 'google',
    name: 'Bob Builder',
    email: 'bob@builder.test',
    items: () => [
      { product_id: P.chair, variant_id: V.chair[1], quantity: 1 },
      { product_id: P.lamp, quantity: 3 },
    ],
    total: 8702,
    lines: 2,
    status: 'processing',
    createdAt: '2026-11-01T23:59:59.999Z',
    updatedAt: updated(1),
  },
  C: {
    channel: 'vendor_link',
    name: 'Carol 100% Real',
    email: 'carol@example.net',
    items: () => [{ product_id: P.lamp, quantity: 1 }],
    total: 1234,
    lines: 1,
    status: 'fulfilled',
    createdAt: '2026-11-02T00:00:00.000Z',
    updatedAt: updated(5),
  },
  D: {
    channel: 'email',
    name: 'Dan Smith',
    email: 'dan_smith@example.org',
    items: () => [
      { product_id: P.chair, variant_id: V.chair[0], quantity: 1 },
      { product_id: P.mug, quantity: 1 },
    ],
    total: 7500,
    lines: 2,
    status: 'shipped',
    tracking: 'TRK-D-1',
    createdAt: '2026-11-02T12:00:00.000Z',
    updatedAt: updated(2),
  },
  E: {
    channel: 'other_referral',
    name: 'Ann Smith',
    email: 'ann@example.org',
    items: () => [{ product_id: P.mug, quantity: 1 }],
    total: 2500,
    lines: 1,
    status: 'delivered',
    tracking: 'TRK-E-1',
    createdAt: '2026-11-03T00:00:00.000Z',
    updatedAt: updated(7),
  },
  F: {
    channel: 'direct',
    name: 'Frank Cancel',
    email: 'frank@example.com',
    items: () => [{ product_id: P.lamp, quantity: 2 }],
    total: 2468,
    lines: 1,
    status: 'cancelled',
    createdAt: '2026-10-31T23:59:59.999Z',
    updatedAt: updated(4),
  },
  G: {
    channel: 'unknown',
    name: 'Grace Hopper',
    email: 'grace@example.com',
    items: () => [{ product_id: P.mug, quantity: 1 }],
    total: 2500,
    lines: 1,
    status: 'pending',
    createdAt: '2026-11-05T10:00:00.000Z',
    updatedAt: updated(6),
    attention: true,
  },
  // Same created_at and updated_at as G: the id breaks the tie.
  H: {
    channel: 'direct',
    name: 'Heidi Klum',
    email: 'heidi@example.com',
    items: () => [{ product_id: P.lamp, quantity: 1 }],
    total: 1234,
    lines: 1,
    status: 'pending',
    createdAt: '2026-11-05T10:00:00.000Z',
    updatedAt: updated(6),
  },
};

/** Default order: created_at desc, then id desc (H was created after G). */
const NEWEST_FIRST: Key[] = ['H', 'G', 'E', 'D', 'C', 'B', 'A', 'F'];
const PATH: Record<Status, Status[]> = {
  pending: [],
  processing: ['processing'],
  fulfilled: ['processing', 'fulfilled'],
  shipped: ['processing', 'fulfilled', 'shipped'],
  delivered: ['processing', 'fulfilled', 'shipped', 'delivered'],
  cancelled: ['processing', 'cancelled'],
};

/** A fresh context per call, as each HTTP request gets. */
function context(o: { actor?: Actor; authorization?: string } = {}): Context {
  return testContext(app, { ...o, operatorToken: OPERATOR_TOKEN, requestId: 'req_orders_read' });
}

const internal = () => createCaller(context({ authorization: `Bearer ${OPERATOR_TOKEN}` })).internal;

function appActor(storeId: number, scopes: AppScope[]): Actor {
  return {
    storeId,
    kind: 'app',
    scope: 'read',
    appScopes: new Set(scopes),
    credentialId: 1,
    appId: 1,
    canReadCustomers: scopes.includes('read_customers'),
    livemode: true,
  };
}
const asApp = (scopes: AppScope[]) => createCaller(context({ actor: appActor(store.id, scopes) })).orders;

async function checkout(
  storeId: number,
  o: Pick<Setup, 'channel' | 'name' | 'email' | 'phone'> & {
    items: { product_id: number; variant_id?: number; quantity: number }[];
  },
) {
  return internal().orders.checkoutStorefront({
    storeId,
    channel: o.channel,
    customer: { email: o.email, name: o.name, ...(o.phone === undefined ? {} : { phone: o.phone }) },
    shipping: SHIPPING,
    items: o.items,
  });
}

async function advance(orderId: number, statuses: Status[], tracking?: string) {
  for (const status of statuses) {
    await internal().orders.advance({
      orderId,
      status,
      ...(status === 'shipped' && tracking ? { tracking } : {}),
    });
  }
}

async function pin(orderId: number, createdAt: string, updatedAt: string, attention = false) {
  await rows(
    app.em(),
    sql`UPDATE orders SET created_at = ${createdAt}::timestamptz, updated_at = ${updatedAt}::timestamptz,
        needs_attention = ${attention} WHERE id = ${orderId}`,
  );
}

async function variantIds(productId: number): Promise<number[]> {
  const found = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY position, id`,
  );
  return found.map((r) => r.id);
}

/** Month of "now" (UTC) as YYYYMM, for invoice numbers. */
const month = (ms: number) => new Date(ms).toISOString().slice(0, 7).replace('-', '');

const letters = (body: ListOrdersResponse): string[] =>
  body.orders.map((o) => KEYS.find((k) => O[k].id === o.id) ?? `?${o.id}`);

async function listed(query: string, key = store.read): Promise<string[]> {
  const res = await app.get<ListOrdersResponse>(`${LIST}${query}`, key);
  expect(res.status, query).toBe(200);
  return letters(res.body);
}

async function expect400(path: string) {
  const res = await app.get(path, store.read);
  expect(res.status, path).toBe(400);
  expect(res.body, path).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
}

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN });
  store = await app.createStore('Orders Store');
  other = await app.createStore('Other Orders Store');
  const fx = fixtures(app.em());
  const supplierId = await fx.supplier({ name: 'Order Maker' });
  P.mug = await fx.product({ name: 'Enamel Mug', sku: 'MUG-1', supplierId, retail: 2000, stock: [100] });
  P.chair = await fx.product({
    name: 'Office Chair',
    sku: 'CHAIR-1',
    supplierId,
    retail: 5000,
    stock: [100, 100],
  });
  P.lamp = await fx.product({ name: 'Desk Lamp', sku: 'LAMP-1', supplierId, retail: 1234, stock: [100] });
  for (const k of Object.keys(P) as (keyof typeof P)[]) V[k] = await variantIds(P[k]);
  await fx.listing(store.id, P.mug, { customRetail: 2500 });
  await fx.listing(store.id, P.chair);
  await fx.listing(store.id, P.lamp);
  await fx.listing(other.id, P.mug, { customRetail: 9999 });

  for (const k of KEYS) {
    const s = SETUP[k];
    const created = await checkout(store.id, { ...s, items: s.items() });
    O[k] = { id: created.id, order_number: created.order_number };
    await advance(created.id, PATH[s.status], s.tracking);
    await pin(created.id, s.createdAt, s.updatedAt, s.attention);
  }
  // Another store's order, with a buyer named like A's and on the same day.
  const theirs = await checkout(other.id, {
    channel: 'facebook_instagram',
    name: 'Alice Example',
    email: 'alice@example.com',
    items: [{ product_id: P.mug, quantity: 1 }],
  });
  otherOrder = { id: theirs.id, order_number: theirs.order_number };
  await pin(theirs.id, '2026-11-01T12:00:00.000Z', updated(8), true);
});
afterAll(() => app?.close());

describe('GET /api/v1/orders', () => {
  it('answers the store’s orders, newest first, with every list field', async () => {
    const res = await app.get<ListOrdersResponse>(LIST, store.read);
    expect(res.status).toBe(200);
    expect(letters(res.body)).toEqual(NEWEST_FIRST);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total_count: 8, total_pages: 1 });
    const a = res.body.orders.find((o) => o.id === O.A.id);
    expect(a).toEqual({
      id: O.A.id,
      order_number: O.A.order_number,
      status: 'pending',
      order_type: 'storefront',
      channel: 'facebook_instagram',
      total_cents: 5000,
      currency: 'AUD',
      customer: { email: 'alice@example.com', name: 'Alice Example', phone: '+61 400 000 001' },
      items_count: 1,
      needs_attention: false,
      tracking_number: null,
      invoice_number: null,
      livemode: true,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-20T00:00:03.000Z',
    });
  });

  it('answers every order as its setup made it: totals at the effective listing price, status, channel, counts', async () => {
    const res = await app.get<ListOrdersResponse>(LIST, store.read);
    for (const k of KEYS) {
      const s = SETUP[k];
      const item = res.body.orders.find((o) => o.id === O[k].id);
      expect(item, k).toMatchObject({
        order_number: O[k].order_number,
        status: s.status,
        order_type: 'storefront',
        channel: s.channel,
        total_cents: s.total,
        currency: 'AUD',
        customer: { email: s.email, name: s.name, phone: s.phone ?? '' },
        items_count: s.lines,
        needs_attention: s.attention ?? false,
        tracking_number: s.tracking ?? null,
        created_at: s.createdAt,
        updated_at: s.updatedAt,
      });
      const invoiced = s.status === 'shipped' || s.status === 'delivered';
      if (invoiced) expect(item?.invoice_number, k).toMatch(/^INV-\d{6}-\d{6}$/);
      else expect(item?.invoice_number, k).toBeNull();
    }
    const numbers = res.body.orders.map((o) => o.order_number);
    expect(new Set(numbers).size).toBe(8);
  });

  it('never shows another store’s orders', async () => {
    const mine = await app.get<ListOrdersResponse>(LIST, store.read);
    expect(mine.body.orders.map((o) => o.id)).not.toContain(otherOrder.id);
    const theirs = await app.get<ListOrdersResponse>(LIST, other.read);
    expect(theirs.status).toBe(200);
    expect(theirs.body.orders.map((o) => o.id)).toEqual([otherOrder.id]);
    expect(theirs.body.orders[0]).toMatchObject({ total_cents: 9999, needs_attention: true });
    expect(theirs.body.pagination).toEqual({ page: 1, limit: 20, total_count: 1, total_pages: 1 });
    // Filters that would match their order still answer only this store's.
    expect(await listed('?search=alice')).toEqual(['A']);
    expect(await listed('?attention=1')).toEqual(['G']);
    expect(await listed('?start_date=2026-11-01&end_date=2026-11-01')).toEqual(['B', 'A']);
  });

  it('filters by each status', async () => {
    const expected: Record<Status, Key[]> = {
      pending: ['H', 'G', 'A'],
      processing: ['B'],
      fulfilled: ['C'],
      shipped: ['D'],
      delivered: ['E'],
      cancelled: ['F'],
    };
    for (const [status, keys] of Object.entries(expected)) {
      const res = await app.get<ListOrdersResponse>(`${LIST}?status=${status}`, store.read);
      expect(res.status, status).toBe(200);
      expect(letters(res.body), status).toEqual(keys);
      expect(res.body.pagination.total_count, status).toBe(keys.length);
    }
    for (const bad of ['open', 'PENDING', 'pending,shipped', 'completed']) {
      await expect400(`${LIST}?status=${encodeURIComponent(bad)}`);
    }
  });

  it('filters by each channel', async () => {
    const expected: Record<Channel, Key[]> = {
      facebook_instagram: ['A'],
      google: ['B'],
      vendor_link: ['C'],
      email: ['D'],
      other_referral: ['E'],
      direct: ['H', 'F'],
      unknown: ['G'],
    };
    for (const [channel, keys] of Object.entries(expected)) {
      expect(await listed(`?channel=${channel}`), channel).toEqual(keys);
    }
    for (const bad of ['facebook', 'GOOGLE', 'instagram', 'referral']) {
      await expect400(`${LIST}?channel=${bad}`);
    }
  });

  it('filters orders needing attention with attention=1 and refuses other values', async () => {
    const res = await app.get<ListOrdersResponse>(`${LIST}?attention=1`, store.read);
    expect(letters(res.body)).toEqual(['G']);
    expect(res.body.orders[0]?.needs_attention).toBe(true);
    expect(res.body.pagination.total_count).toBe(1);
    expect(await listed('?attention=1&status=shipped')).toEqual([]);
    expect(await listed('?attention=1&status=pending')).toEqual(['G']);
    for (const bad of ['true', '0', 'yes', '2', 'false']) await expect400(`${LIST}?attention=${bad}`);
  });

  describe('date filters', () => {
    it('start_date as a bare date starts at 00:00 UTC that day, inclusive', async () => {
      expect(await listed('?start_date=2026-11-01')).toEqual(['H', 'G', 'E', 'D', 'C', 'B', 'A']);
      expect(await listed('?start_date=2026-11-02')).toEqual(['H', 'G', 'E', 'D', 'C']);
      expect(await listed('?start_date=2026-11-06')).toEqual([]);
    });

    it('end_date as a bare date includes that whole day (UTC)', async () => {
      expect(await listed('?end_date=2026-11-01')).toEqual(['B', 'A', 'F']);
      expect(await listed('?end_date=2026-10-31')).toEqual(['F']);
      expect(await listed('?end_date=2026-10-30')).toEqual([]);
      expect(await listed('?start_date=2026-11-01&end_date=2026-11-01')).toEqual(['B', 'A']);
      expect(await listed('?start_date=2026-11-02&end_date=2026-11-03')).toEqual(['E', 'D', 'C']);
    });

    it('takes date-times with an offset; both bounds inclusive', async () => {
      // 10:00 at +10:00 is midnight UTC: C was created exactly then.
      expect(await listed(`?start_date=${encodeURIComponent('2026-11-02T10:00:00+10:00')}`)).toEqual([
        'H',
        'G',
        'E',
        'D',
        'C',
      ]);
      expect(await listed('?start_date=2026-11-02T00:00:00.001Z')).toEqual(['H', 'G', 'E', 'D']);
      expect(await listed('?end_date=2026-11-02T00:00:00Z')).toEqual(['C', 'B', 'A', 'F']);
      expect(await listed(`?end_date=${encodeURIComponent('2026-11-02T01:00:00+01:00')}`)).toEqual([
        'C',
        'B',
        'A',
        'F',
      ]);
      expect(await listed('?end_date=2026-11-01T23:59:59.998Z')).toEqual(['A', 'F']);
      expect(await listed('?start_date=2026-11-01T00:00:00Z&end_date=2026-11-01T23:59:59.999Z')).toEqual([
        'B',
        'A',
      ]);
      expect(
        await listed(
          `?start_date=${encodeURIComponent('2026-11-05T20:00:00+10:00')}&end_date=${encodeURIComponent('2026-11-05T05:00:00-05:00')}`,
        ),
      ).toEqual(['H', 'G']);
    });

    it('combines dates with other filters and paging', async () => {
      const res = await app.get<ListOrdersResponse>(
        `${LIST}?start_date=2026-11-01&status=pending&limit=1&page=2`,
        store.read,
      );
      expect(res.status).toBe(200);
      expect(letters(res.body)).toEqual(['G']);
      expect(res.body.pagination).toEqual({ page: 2, limit: 1, total_count: 3, total_pages: 3 });
    });

    it('answers 400 for dates that are not ISO dates or date-times with a zone', async () => {
      for (const bad of [
        '2026-13-01',
        'yesterday',
        '2026-11-01T10:00:00',
        '2026-11-1',
        '2026/11/01',
        '01-11-2026',
        '2026-11-01T25:00:00Z',
        '1762000000',
      ]) {
        await expect400(`${LIST}?start_date=${encodeURIComponent(bad)}`);
        await expect400(`${LIST}?end_date=${encodeURIComponent(bad)}`);
      }
    });

    // Date.parse would roll these over (2026-02-30 → 2026-03-02); they must be refused instead.
    it('answers 400 for impossible calendar days (2026-02-30, 2026-11-31)', async () => {
      for (const bad of ['2026-02-30', '2026-11-31', '2026-04-31']) {
        await expect400(`${LIST}?start_date=${bad}`);
        await expect400(`${LIST}?end_date=${bad}`);
      }
    });

    it('answers an empty page when start_date is after end_date', async () => {
      const res = await app.get(`${LIST}?start_date=2026-11-03&end_date=2026-11-01`, store.read);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ orders: [], pagination: { total_count: 0, total_pages: 0 } });
    });

    // Dates at the edge of the calendar (year 9999, year 0000, which PostgreSQL lacks) are a 200 or a 400.
    it('never answers 500 for extreme but well-formed dates', async () => {
      for (const q of [
        'end_date=9999-12-31',
        'start_date=0000-01-01',
        'end_date=0000-01-01',
        'start_date=0000-01-01T00:00:00Z',
      ]) {
        const res = await app.get(`${LIST}?${q}`, store.read);
        expect([200, 400], q).toContain(res.status);
      }
      expect(await listed('?end_date=9999-12-31')).toEqual(NEWEST_FIRST);
    });
  });

  describe('search', () => {
    it('matches buyer name and email as a case-insensitive substring', async () => {
      expect(await listed('?search=ALICE')).toEqual(['A']);
      expect(await listed('?search=lice%20EXAMP')).toEqual(['A']);
      expect(await listed('?search=BUILDER.TEST')).toEqual(['B']);
      expect(await listed('?search=bob%40builder')).toEqual(['B']);
      expect(await listed('?search=smith')).toEqual(['E', 'D']);
      expect(await listed('?search=grace%20hopper')).toEqual(['G']);
      expect(await listed('?search=example.org')).toEqual(['E', 'D']);
      expect(await listed('?search=nobody-matches-this')).toEqual([]);
    });

    it('matches the order number, case-insensitive', async () => {
      for (const k of ['A', 'D', 'H'] as const) {
        const number = O[k].order_number;
        const expected = NEWEST_FIRST.filter((x) =>
          O[x].order_number.toLowerCase().includes(number.toLowerCase()),
        );
        expect(expected).toContain(k);
        expect(await listed(`?search=${encodeURIComponent(number.toLowerCase())}`), number).toEqual(expected);
        expect(await listed(`?search=${encodeURIComponent(number)}`), number).toEqual(expected);
      }
    });

    it('reads % and _ literally', async () => {
      expect(await listed(`?search=${encodeURIComponent('100%')}`)).toEqual(['C']);
      expect(await listed(`?search=${encodeURIComponent('%')}`)).toEqual(['C']);
      expect(await listed(`?search=${encodeURIComponent('0% r')}`)).toEqual(['C']);
      expect(await listed(`?search=${encodeURIComponent('%%')}`)).toEqual([]);
      // As a wildcard `_` would also match "n S" in "Ann Smith".
      expect(await listed(`?search=${encodeURIComponent('n_s')}`)).toEqual(['D']);
      expect(await listed(`?search=${encodeURIComponent('\\')}`)).toEqual([]);
    });

    it('treats a blank search as none, combines with filters, and refuses more than 100 characters', async () => {
      expect(await listed('?search=%20%20')).toEqual(NEWEST_FIRST);
      expect(await listed('?search=smith&status=shipped')).toEqual(['D']);
      expect(await listed('?search=smith&channel=google')).toEqual([]);
      expect(await listed(`?search=${'a'.repeat(100)}`)).toEqual([]);
      await expect400(`${LIST}?search=${'a'.repeat(101)}`);
    });
  });

  describe('paging and sorting', () => {
    it('pages with page and limit', async () => {
      const pages: string[][] = [];
      for (const page of [1, 2, 3, 4]) {
        const res = await app.get<ListOrdersResponse>(`${LIST}?limit=3&page=${page}`, store.read);
        expect(res.status).toBe(200);
        expect(res.body.pagination).toEqual({ page, limit: 3, total_count: 8, total_pages: 3 });
        pages.push(letters(res.body));
      }
      expect(pages).toEqual([['H', 'G', 'E'], ['D', 'C', 'B'], ['A', 'F'], []]);
      expect(letters((await app.get<ListOrdersResponse>(`${LIST}?limit=500`, store.read)).body)).toEqual(
        NEWEST_FIRST,
      );
      const far = await app.get<ListOrdersResponse>(`${LIST}?limit=500&page=9007199254740991`, store.read);
      expect(far.status).toBe(200);
      expect(far.body.orders).toEqual([]);
      expect(far.body.pagination.total_count).toBe(8);
    });

    it('refuses out-of-range or non-integer page and limit with 400', async () => {
      for (const q of [
        'page=0',
        'page=-1',
        'page=1.5',
        'page=abc',
        'page=9007199254740992',
        'limit=0',
        'limit=501',
        'limit=-5',
        'limit=2.5',
        'limit=1e2',
        'limit=',
      ]) {
        await expect400(`${LIST}?${q}`);
      }
    });

    it('sorts by created_at, updated_at or id, either way, with id breaking ties', async () => {
      expect(await listed('?sort_by=created_at&order=desc')).toEqual(NEWEST_FIRST);
      expect(await listed('?order=desc')).toEqual(NEWEST_FIRST);
      expect(await listed('?sort_by=created_at')).toEqual(NEWEST_FIRST);
      expect(await listed('?sort_by=created_at&order=asc')).toEqual(['F', 'A', 'B', 'C', 'D', 'E', 'G', 'H']);
      expect(await listed('?order=asc')).toEqual(['F', 'A', 'B', 'C', 'D', 'E', 'G', 'H']);
      expect(await listed('?sort_by=updated_at')).toEqual(['E', 'H', 'G', 'C', 'F', 'A', 'D', 'B']);
      expect(await listed('?sort_by=updated_at&order=asc')).toEqual(['B', 'D', 'A', 'F', 'C', 'G', 'H', 'E']);
      expect(await listed('?sort_by=id&order=asc')).toEqual([...KEYS]);
      expect(await listed('?sort_by=id')).toEqual([...KEYS].reverse());
      // The tie-break keeps pages stable: G and H share created_at and split across pages.
      expect(await listed('?limit=1&page=1')).toEqual(['H']);
      expect(await listed('?limit=1&page=2')).toEqual(['G']);
      expect(await listed('?order=asc&limit=1&page=7')).toEqual(['G']);
      expect(await listed('?order=asc&limit=1&page=8')).toEqual(['H']);
    });

    it('refuses unknown sort fields and directions with 400, and unknown query keys', async () => {
      for (const q of [
        'sort_by=total_cents',
        'sort_by=name',
        'sort_by=CREATED_AT',
        'order=up',
        'order=DESC',
      ]) {
        await expect400(`${LIST}?${q}`);
      }
      await expect400(`${LIST}?colour=red&customer=bob`);
    });
  });
});

describe('GET /api/v1/orders/{id}', () => {
  it('answers the full order: lines, shipping, money, invoice fields', async () => {
    const res = await app.get(one(O.B.id), store.read);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      order: {
        id: O.B.id,
        order_number: O.B.order_number,
        status: 'processing',
        order_type: 'storefront',
        channel: 'google',
        total_cents: 8702,
        currency: 'AUD',
        customer: { email: 'bob@builder.test', name: 'Bob Builder', phone: '' },
        items_count: 2,
        needs_attention: false,
        tracking_number: null,
        invoice_number: null,
        livemode: true,
        created_at: '2026-11-01T23:59:59.999Z',
        updated_at: '2026-11-20T00:00:01.000Z',
        source: null,
        subtotal_cents: 8702,
        shipping_cents: 0,
        gst_cents: 791,
        items: [
          {
            product_id: P.chair,
            variant_id: V.chair[1],
            sku: 'CHAIR-1-2',
            name: expect.stringContaining('Office Chair'),
            quantity: 1,
            price_cents: 5000,
            shipped_quantity: 0,
          },
          {
            product_id: P.lamp,
            variant_id: V.lamp[0],
            sku: 'LAMP-1',
            name: 'Desk Lamp',
            quantity: 3,
            price_cents: 1234,
            shipped_quantity: 0,
          },
        ],
        shipping: {
          address: '1 Test Street',
          address2: 'Unit 2',
          city: 'Sydney',
          state: 'NSW',
          zip: '2000',
          country: 'AU',
        },
        invoice_issued_at: null,
        cancel_reason: null,
      },
    });
  });

  it('carries the same list fields as the list item of the same order', async () => {
    const list = await app.get<ListOrdersResponse>(`${LIST}?limit=500`, store.read);
    for (const k of KEYS) {
      const res = await app.get<GetOrderResponse>(one(O[k].id), store.read);
      expect(res.status, k).toBe(200);
      const item = list.body.orders.find((o) => o.id === O[k].id);
      // Not found, toMatchObject throws on undefined: the cast keeps that.
      expect(res.body.order, k).toMatchObject(item as object);
      expect(res.body.order.items, k).toHaveLength(SETUP[k].lines);
    }
  });

  it('prices lines at the listing’s effective price (custom when set) and GST as one eleventh, rounded', async () => {
    const a = (await app.get<GetOrderResponse>(one(O.A.id), store.read)).body.order;
    expect(a.items).toEqual([
      {
        product_id: P.mug,
        variant_id: V.mug[0],
        sku: 'MUG-1',
        name: 'Enamel Mug',
        quantity: 2,
        price_cents: 2500,
        shipped_quantity: 0,
      },
    ]);
    expect(a).toMatchObject({ total_cents: 5000, subtotal_cents: 5000, shipping_cents: 0 });
    // 5000 / 11 = 454.55: rounded, not truncated.
    expect(a.gst_cents).toBe(455);
    for (const k of KEYS) {
      const order = (await app.get<GetOrderResponse>(one(O[k].id), store.read)).body.order;
      expect(order.gst_cents, k).toBe(Math.round(SETUP[k].total / 11));
      const sum = order.items.reduce(
        (n: number, l: { price_cents: number; quantity: number }) => n + l.price_cents * l.quantity,
        0,
      );
      expect(sum, k).toBe(SETUP[k].total);
    }
    const theirs = (await app.get<GetOrderResponse>(one(otherOrder.id), other.read)).body.order;
    expect(theirs.items[0]?.price_cents).toBe(9999);
    expect(theirs.total_cents).toBe(9999);
  });

  it('shows shipped orders with tracking, invoice and every line shipped', async () => {
    for (const k of ['D', 'E'] as const) {
      const order = (await app.get<GetOrderResponse>(one(O[k].id), store.read)).body.order;
      expect(order.tracking_number, k).toBe(SETUP[k].tracking);
      expect(order.invoice_number, k).toMatch(/^INV-\d{6}-\d{6}$/);
      expect(order.invoice_issued_at, k).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      for (const line of order.items) expect(line.shipped_quantity, k).toBe(line.quantity);
    }
    const d = (await app.get<GetOrderResponse>(one(O.D.id), store.read)).body.order;
    const e = (await app.get<GetOrderResponse>(one(O.E.id), store.read)).body.order;
    expect(d.invoice_number).not.toBe(e.invoice_number);
  });

  it('records the cancel reason of a cancelled order', async () => {
    const f = (await app.get<GetOrderResponse>(one(O.F.id), store.read)).body.order;
    expect(f).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'merchant',
      invoice_number: null,
      invoice_issued_at: null,
      tracking_number: null,
    });
    expect(f.items[0]?.shipped_quantity).toBe(0);
  });

  it('answers 404 ORDER_NOT_FOUND for another store’s order or an unknown id', async () => {
    for (const [id, key] of [
      [otherOrder.id, store.read],
      [O.A.id, other.read],
      [2147483647, store.read],
    ] as const) {
      const res = await app.get<ErrorBody>(one(id), key);
      expect(res.status, String(id)).toBe(404);
      expect(res.body, String(id)).toMatchObject({ error: 'not_found', code: 'ORDER_NOT_FOUND' });
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
      expect(JSON.stringify(res.body)).not.toContain('Alice');
    }
  });

  it('answers 400 VALIDATION_FAILED for ids that are not positive 32-bit integers', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '1e3', '0x10', '2147483648', '%20']) {
      await expect400(one(id));
    }
  });
});

describe('buyer redaction for app tokens', () => {
  const strip = <T extends object>(o: T, ...fields: string[]) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => !fields.includes(k)));

  it('leaves customer out of the list without read_customers', async () => {
    const http = await app.get<ListOrdersResponse>(LIST, store.read);
    for (const scopes of [['read_orders'], ['write_orders']] as AppScope[][]) {
      const res = await asApp(scopes).list({});
      expect(res.orders.map((o) => o.id)).toEqual(NEWEST_FIRST.map((k) => O[k].id));
      for (const order of res.orders) {
        expect('customer' in order, scopes.join()).toBe(false);
        expect(JSON.stringify(order)).not.toMatch(/@example|Alice|Bob Builder/);
      }
      expect(res.orders).toEqual(http.body.orders.map((o: Record<string, unknown>) => strip(o, 'customer')));
      expect(res.pagination).toEqual(http.body.pagination);
    }
  });

  it('leaves customer and shipping out of the detail without read_customers', async () => {
    const http = (await app.get<GetOrderResponse>(one(O.B.id), store.read)).body.order;
    for (const scopes of [['read_orders'], ['write_orders']] as AppScope[][]) {
      const res = await asApp(scopes).get({ id: O.B.id });
      expect('customer' in res.order).toBe(false);
      expect('shipping' in res.order).toBe(false);
      expect(JSON.stringify(res)).not.toMatch(/Bob|builder|Test Street|Sydney/);
      expect(res.order).toEqual(strip(http, 'customer', 'shipping'));
    }
  });

  it('includes customer and shipping with read_customers', async () => {
    const httpList = await app.get<ListOrdersResponse>(LIST, store.read);
    const httpOne = (await app.get<GetOrderResponse>(one(O.A.id), store.read)).body.order;
    for (const scopes of [
      ['read_orders', 'read_customers'],
      ['write_orders', 'read_customers'],
    ] as AppScope[][]) {
      const list = await asApp(scopes).list({});
      expect(list.orders).toEqual(httpList.body.orders);
      expect(list.orders.every((o) => o.customer !== undefined)).toBe(true);
      const got = await asApp(scopes).get({ id: O.A.id });
      expect(got.order).toEqual(httpOne);
      expect(got.order.customer).toEqual({
        email: 'alice@example.com',
        name: 'Alice Example',
        phone: '+61 400 000 001',
      });
      expect(got.order.shipping).toMatchObject({ city: 'Sydney', country: 'AU' });
    }
  });

  it('applies filters and store isolation to app callers too', async () => {
    const res = await asApp(['read_orders', 'read_customers']).list({ search: 'smith', order: 'asc' });
    expect(res.orders.map((o) => o.id)).toEqual([O.D.id, O.E.id]);
    // Without read_customers, search cannot probe buyer names or emails: order numbers only.
    expect((await asApp(['read_orders']).list({ search: 'smith' })).orders).toEqual([]);
    const byNumber = await asApp(['read_orders']).list({ search: O.D.order_number });
    expect(byNumber.orders.map((o) => o.id)).toEqual([O.D.id]);
    const err = await failure(asApp(['read_orders', 'read_customers']).get({ id: otherOrder.id }));
    expect(err.category).toBe('not_found');
    expect(err.appCode).toBe('ORDER_NOT_FOUND');
  });

  it('refuses an app without read_orders with INSUFFICIENT_SCOPE / read_orders', async () => {
    for (const scopes of [
      ['read_products'],
      ['read_customers'],
      ['read_products', 'write_products', 'read_inventory', 'read_customers', 'write_external_orders'],
      [],
    ] as AppScope[][]) {
      for (const call of [() => asApp(scopes).list({}), () => asApp(scopes).get({ id: O.A.id })]) {
        const err = await failure(call());
        expect(err.category, scopes.join()).toBe('forbidden');
        expect(err.appCode).toBe('INSUFFICIENT_SCOPE');
        expect(err.extra).toEqual({ required_scope: 'read_orders' });
        expect(shapeError(err)).toMatchObject({
          status: 403,
          body: { error: 'forbidden', code: 'INSUFFICIENT_SCOPE', required_scope: 'read_orders' },
        });
      }
    }
  });
});

describe('order lifecycle as read back', () => {
  let life: Store;

  beforeAll(async () => {
    life = await app.createStore('Lifecycle Store');
    const fx = fixtures(app.em());
    await fx.listing(life.id, P.chair, { customRetail: 6100 });
    await fx.listing(life.id, P.lamp);
  });

  it('fills tracking, invoice and shipped quantities once shipped, and keeps them after delivery', async () => {
    const created = await checkout(life.id, {
      channel: 'direct',
      name: 'Lena Life',
      email: 'lena@example.com',
      items: [
        { product_id: P.chair, variant_id: V.chair[0], quantity: 2 },
        { product_id: P.lamp, quantity: 1 },
      ],
    });
    expect(created).toMatchObject({ status: 'pending', order_type: 'storefront', total_cents: 13434 });
    const fresh = (await app.get<GetOrderResponse>(one(created.id), life.read)).body.order;
    expect(fresh).toMatchObject({
      status: 'pending',
      total_cents: 13434,
      subtotal_cents: 13434,
      gst_cents: 1221,
      tracking_number: null,
      invoice_number: null,
      invoice_issued_at: null,
      created_at: created.created_at,
    });
    expect(fresh.items.map((l) => l.shipped_quantity)).toEqual([0, 0]);
    expect(fresh.items.map((l) => l.price_cents)).toEqual([6100, 1234]);

    await advance(created.id, ['processing', 'fulfilled']);
    const monthBefore = month(Date.now());
    const before = Date.now();
    await advance(created.id, ['shipped'], 'TRACK-LIFE-1');
    const after = Date.now();
    const monthAfter = month(Date.now());

    const shipped = (await app.get<GetOrderResponse>(one(created.id), life.read)).body.order;
    expect(shipped.status).toBe('shipped');
    expect(shipped.tracking_number).toBe('TRACK-LIFE-1');
    const [, period] = /^INV-(\d{6})-\d{6}$/.exec(shipped.invoice_number ?? '') ?? [];
    expect([monthBefore, monthAfter]).toContain(period);
    const issued = Date.parse(shipped.invoice_issued_at ?? '');
    expect(issued).toBeGreaterThanOrEqual(before - 1000);
    expect(issued).toBeLessThanOrEqual(after + 1000);
    expect(Date.parse(shipped.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(shipped.items.map((l) => l.shipped_quantity)).toEqual([2, 1]);

    const [item] = (await app.get<ListOrdersResponse>(`${LIST}?status=shipped`, life.read)).body.orders;
    expect(item).toMatchObject({
      id: created.id,
      tracking_number: 'TRACK-LIFE-1',
      invoice_number: shipped.invoice_number,
      items_count: 2,
    });

    await advance(created.id, ['delivered']);
    const delivered = (await app.get<GetOrderResponse>(one(created.id), life.read)).body.order;
    expect(delivered).toMatchObject({
      status: 'delivered',
      tracking_number: 'TRACK-LIFE-1',
      invoice_number: shipped.invoice_number,
      invoice_issued_at: shipped.invoice_issued_at,
    });
    expect(await listedIn(life, '?status=delivered')).toEqual([created.id]);
    expect(await listedIn(life, '?status=shipped')).toEqual([]);
  });

  // created_at is stored to the microsecond but answered to the millisecond: an order whose
  // created_at reads `…00.000Z` (stored …00.000700) must be within end_date=`…00.000Z` (inclusive).
  it('includes an order when end_date equals its created_at as answered (sub-millisecond storage)', async () => {
    const created = await checkout(life.id, {
      channel: 'email',
      name: 'Micro Second',
      email: 'micro@example.com',
      items: [{ product_id: P.lamp, quantity: 1 }],
    });
    await rows(
      app.em(),
      sql`UPDATE orders SET created_at = '2026-11-10T08:00:00.000700Z'::timestamptz WHERE id = ${created.id}`,
    );
    const shown = (await app.get<GetOrderResponse>(one(created.id), life.read)).body.order.created_at;
    expect(shown).toMatch(/^2026-11-10T08:00:00\.00\dZ$/);
    expect(await listedIn(life, `?start_date=${shown}`)).toContain(created.id);
    expect(await listedIn(life, `?end_date=${shown}`)).toContain(created.id);
    expect(await listedIn(life, `?start_date=${shown}&end_date=${shown}`)).toEqual([created.id]);
  });

  async function listedIn(s: Store, query: string): Promise<number[]> {
    const res = await app.get<ListOrdersResponse>(`${LIST}${query}`, s.read);
    expect(res.status, query).toBe(200);
    return res.body.orders.map((o) => o.id);
  }
});

describe('GET /api/v1/vendor/me order statistics', () => {
  it('counts the store’s orders by status, revenue of orders not cancelled and the newest created_at', async () => {
    const res = await app.get<GetStoreResponse>(ME, store.read);
    expect(res.status).toBe(200);
    const revenue = KEYS.filter((k) => SETUP[k].status !== 'cancelled').reduce(
      (n, k) => n + SETUP[k].total,
      0,
    );
    expect(revenue).toBe(28670);
    expect(res.body.store.stats).toEqual({
      orders_total: 8,
      orders_by_status: { pending: 3, processing: 1, fulfilled: 1, shipped: 1, delivered: 1, cancelled: 1 },
      revenue_cents: 28670,
      last_order_at: '2026-11-05T10:00:00.000Z',
    });
    const theirs = await app.get<GetStoreResponse>(ME, other.read);
    expect(theirs.body.store.stats).toEqual({
      orders_total: 1,
      orders_by_status: { pending: 1, processing: 0, fulfilled: 0, shipped: 0, delivered: 0, cancelled: 0 },
      revenue_cents: 9999,
      last_order_at: '2026-11-01T12:00:00.000Z',
    });
  });

  it('follows new orders and cancellations', async () => {
    const s = await app.createStore('Stats Store');
    await fixtures(app.em()).listing(s.id, P.lamp, { customRetail: 1500 });
    const stats = async () => (await app.get<GetStoreResponse>(ME, s.read)).body.store.stats;
    expect(await stats()).toEqual({
      orders_total: 0,
      orders_by_status: { pending: 0, processing: 0, fulfilled: 0, shipped: 0, delivered: 0, cancelled: 0 },
      revenue_cents: 0,
      last_order_at: null,
    });
    const buy = (quantity: number) =>
      checkout(s.id, {
        channel: 'direct',
        name: 'Stat Buyer',
        email: 'stat@example.com',
        items: [{ product_id: P.lamp, quantity }],
      });
    const first = await buy(2);
    await pin(first.id, '2026-11-07T00:00:00.000Z', '2026-11-07T00:00:00.000Z');
    expect(await stats()).toEqual({
      orders_total: 1,
      orders_by_status: { pending: 1, processing: 0, fulfilled: 0, shipped: 0, delivered: 0, cancelled: 0 },
      revenue_cents: 3000,
      last_order_at: '2026-11-07T00:00:00.000Z',
    });
    const second = await buy(1);
    await advance(second.id, ['processing']);
    await pin(second.id, '2026-11-08T09:30:00.000Z', '2026-11-08T09:30:00.000Z');
    const third = await buy(3);
    await advance(third.id, ['cancelled']);
    await pin(third.id, '2026-11-09T00:00:00.000Z', '2026-11-09T00:00:00.000Z');
    expect(await stats()).toEqual({
      orders_total: 3,
      orders_by_status: { pending: 1, processing: 1, fulfilled: 0, shipped: 0, delivered: 0, cancelled: 1 },
      revenue_cents: 4500,
      last_order_at: '2026-11-09T00:00:00.000Z',
    });
    await advance(second.id, ['cancelled']);
    const after = await stats();
    expect(after.orders_by_status).toMatchObject({ processing: 0, cancelled: 2, pending: 1 });
    expect(after.revenue_cents).toBe(3000);
  });
});

describe('security and HTTP surface', () => {
  for (const [label, path] of [
    ['list', () => LIST],
    ['detail', () => one(O.A.id)],
  ] as const) {
    it(`${label}: 401 without a credential or with a bad one, 200 with read and read_write keys`, async () => {
      const none = await app.get(path());
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ error: 'unauthorized' });
      expect(none.headers.get('www-authenticate')).toBe(
        'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"',
      );
      expect(JSON.stringify(none.body)).not.toContain('Alice');
      expect((await app.get(path(), `sl_test_${'z'.repeat(40)}`)).status).toBe(401);
      expect((await app.get(path(), OPERATOR_TOKEN)).status).toBe(401);
      const read = await app.get(path(), store.read);
      const readWrite = await app.get(path(), store.readWrite);
      expect(read.status).toBe(200);
      expect(readWrite.status).toBe(200);
      expect(readWrite.body).toEqual(read.body);
    });

    it(`${label}: HEAD answers like GET with no body`, async () => {
      const get = await app.request(path(), { key: store.read });
      const head = await app.request(path(), { key: store.read, method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(await head.text()).toBe('');
      expect((await app.request(path(), { method: 'HEAD' })).status).toBe(401);
    });
  }

  it('checks the credential before validating: 401 for bad parameters without a key', async () => {
    expect((await app.get(`${LIST}?limit=0`)).status).toBe(401);
    expect((await app.get(`${LIST}?status=nope`)).status).toBe(401);
    expect((await app.get(one('abc'))).status).toBe(401);
  });

  it('HEAD on a missing order answers 404 with no body', async () => {
    const head = await app.request(one(otherOrder.id), { key: store.read, method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(await head.text()).toBe('');
    const bad = await app.request(`${LIST}?limit=0`, { key: store.read, method: 'HEAD' });
    expect(bad.status).toBe(400);
  });
});
