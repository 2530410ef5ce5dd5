import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Owner, STORE_TABLES, type StoreTable } from '../../src/db/owned-by.ts';
import { type CompiledStatement, observeStatements } from '../../src/db/sql.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { internal, mintAppToken } from '../helpers/oauth.ts';

/**
 * Ownership by construction (src/db/owned-by.ts): every statement a partner's request runs that reads
 * or changes a store table (one with a `store_id`) says whose rows with `ownedBy`, bound to the
 * caller's own store and, where the table has one, mode. Every partner operation of openapi.json is
 * driven over HTTP with live and test keys and an app token, and every statement the app runs through
 * src/db/sql.ts is read.
 */

/**
 * Reads of a store table that say the owner otherwise, each with why. Kept short: a new entry needs a
 * reason a reviewer accepts, and matches one statement shape only.
 */
const ALLOWED: { table: StoreTable; shape: RegExp; why: string }[] = [
  {
    table: 'api_keys',
    shape:
      /from "api_keys" where "token_hash" = \$1|^update "api_keys" set "last_used_at" = now\(\) where "id" = \$1$/,
    why: "the credential's own lookup by its secret's hash, and its last use (src/auth/credentials.ts): no actor yet",
  },
  {
    table: 'oauth_grants',
    shape: /"oauth_tokens" as "t"/,
    why: "an app token's lookup by its hash, joined to its grant (src/auth/credentials.ts): no actor exists yet",
  },
  {
    table: 'orders',
    shape: /^update "orders" set "status" = \$1, .* where "id" = \$\d+$/,
    why: 'an order moved by its id once locked for its owner in the same transaction (src/orders/advance-order.ts)',
  },
  {
    table: 'orders',
    shape: /\) page\s+JOIN orders o ON o\.id = page\.id\s/,
    why: "the orders list's page read back whole by the ids the same statement chose from owned orders (list-orders.ts)",
  },
  {
    table: 'webhook_events',
    shape: /FROM page JOIN webhook_events e ON e\.id = page\.id\s/,
    why: "the event log's page read back whole by the ids the same statement chose from owned events (event-log/queries.ts)",
  },
  {
    table: 'webhook_subscriptions',
    shape: /JOIN webhook_subscriptions s ON s\.store_id = ids\.store_id AND s\.livemode = ids\.livemode/,
    why: "the fan-out of new events (src/webhooks/fanout.ts): each event row's own store and mode, not one owner's",
  },
];

/** The entries of ALLOWED some statement of the walks needed: an entry none needs is stale. */
const used = new Set<(typeof ALLOWED)[number]>();

/** SQL words that may follow a table name where an alias would stand. */
const NOT_ALIAS = new Set(
  'where on set join inner left right full cross order group limit for using union returning natural lateral'.split(
    ' ',
  ),
);

/** Each store table a statement reads or changes, with the name its columns are qualified by. */
function storeTablesOf(text: string): { table: StoreTable; alias: string | null }[] {
  const found: { table: StoreTable; alias: string | null }[] = [];
  // The alias is looked ahead at, not consumed: a keyword after a table (`FROM page JOIN …`) starts the next match.
  const re = /\b(?:from|join|update)\s+"?([a-z_]+)"?(?=(?:\s+(?:as\s+)?"?([a-z_]+)"?)?)/gi;
  for (const m of text.matchAll(re)) {
    const table = m[1]?.toLowerCase() ?? '';
    if (!(table in STORE_TABLES)) continue;
    const next = m[2]?.toLowerCase();
    found.push({ table: table as StoreTable, alias: next && !NOT_ALIAS.has(next) ? next : null });
  }
  return found;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The ownedBy fragments a statement holds for this table under this alias, each with its parameters. */
function fragmentsOf(s: CompiledStatement, table: StoreTable, alias: string | null) {
  const col = (c: string) => `${alias ? `"${esc(alias)}"\\.` : ''}"${c}"`;
  const byMode = STORE_TABLES[table] === 'mode';
  const forms = byMode
    ? [
        `\\(${col('store_id')}, ${col('livemode')}\\) = \\(\\$(\\d+), \\$(\\d+)\\)`,
        `${col('store_id')} >= \\$(\\d+) AND ${col('store_id')} <= \\$\\d+ AND ${col('livemode')} = \\$(\\d+)`,
      ]
    : [`\\(${col('store_id')}\\) = \\(\\$(\\d+)\\)`];
  const param = (i: string | undefined) => s.parameters[Number(i) - 1];
  return forms.flatMap((f) =>
    [...s.sql.matchAll(new RegExp(f, 'g'))].map((m) => ({
      storeId: param(m[1]),
      livemode: byMode ? param(m[2]) : undefined,
    })),
  );
}

/**
 * What is wrong with one statement for this owner: a store table read more often than ownedBy is said
 * for it (a subquery under the same alias needs its own), or ownedBy bound to another store or mode.
 */
function problemsOf(s: CompiledStatement, owner: Owner): string[] {
  const problems: string[] = [];
  const reads = new Map<string, { table: StoreTable; alias: string | null; n: number }>();
  for (const { table, alias } of storeTablesOf(s.sql)) {
    const allowed = ALLOWED.find((a) => a.table === table && a.shape.test(s.sql));
    if (allowed) {
      used.add(allowed);
      continue;
    }
    const key = `${table}${alias ? ` ${alias}` : ''}`;
    const read = reads.get(key) ?? { table, alias, n: 0 };
    reads.set(key, { ...read, n: read.n + 1 });
  }
  for (const [key, { table, alias, n }] of reads) {
    const said = fragmentsOf(s, table, alias);
    const byMode = STORE_TABLES[table] === 'mode';
    if (said.some((f) => f.storeId !== owner.storeId || (byMode && f.livemode !== owner.livemode)))
      problems.push(`${key} for another owner`);
    else if (said.length < n) problems.push(`${key} without ownedBy`);
  }
  return problems;
}

describe('the checker', () => {
  const owner = { storeId: 7, livemode: false };
  it('flags a store table read without ownedBy, or with another store or mode', () => {
    const bare = { sql: 'select "id" from "orders" as "o" where "o"."store_id" = $1', parameters: [7] };
    expect(problemsOf(bare, owner)).toEqual(['orders o without ownedBy']);
    const live = {
      sql: 'SELECT 1 FROM orders o WHERE ("o"."store_id", "o"."livemode") = ($1, $2)',
      parameters: [7, true],
    };
    expect(problemsOf(live, owner)).toEqual(['orders o for another owner']);
    const other = { sql: 'SELECT 1 FROM listings l WHERE ("l"."store_id") = ($1)', parameters: [8] };
    expect(problemsOf(other, owner)).toEqual(['listings l for another owner']);
  });
  it('passes a statement that says ownedBy for the owner', () => {
    const ok = {
      sql: 'SELECT 1 FROM listings l JOIN webhook_events e ON ("e"."store_id", "e"."livemode") = ($2, $3) WHERE ("l"."store_id") = ($1)',
      parameters: [7, 7, false],
    };
    expect(problemsOf(ok, owner)).toEqual([]);
  });
  it('wants ownedBy again for a subquery under the same alias', () => {
    const owned = '("l"."store_id") = ($1)';
    const once = {
      sql: `SELECT 1 FROM listings l WHERE ${owned} AND l.id IN (SELECT l.id FROM listings l)`,
      parameters: [7],
    };
    expect(problemsOf(once, owner)).toEqual(['listings l without ownedBy']);
    const twice = { sql: `${once.sql.slice(0, -1)} WHERE ${owned})`, parameters: [7] };
    expect(problemsOf(twice, owner)).toEqual([]);
  });
});

const ROOT = new URL('../../', import.meta.url);
const contract = JSON.parse(readFileSync(new URL('openapi.json', ROOT), 'utf8')) as {
  paths: Record<string, Record<string, { security?: unknown[] }>>;
};
/** Every partner operation that takes a credential, as `METHOD /path`. */
const OPERATIONS = Object.entries(contract.paths)
  .filter(([path]) => path.startsWith('/api/v1/'))
  .flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m, op]) => ['get', 'put', 'post', 'delete', 'patch'].includes(m) && op.security?.length !== 0)
      .map(([m]) => `${m.toUpperCase()} ${path}`),
  );

let app: TestApp;
const keys = { live: '', read: '', test: '', app: '' };
const ids = { store: 0, product: 0, own: '', order: 0, shipped: 0 };

beforeAll(async () => {
  app = await startTestApp();
  const store = await app.createStore('Ownership Store');
  ids.store = store.id;
  keys.live = store.readWrite;
  keys.read = store.read;
  keys.test = (
    await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read_write', mode: 'test' })
  ).key;
  const everything = ['read_products', 'write_products', 'read_inventory', 'read_orders', 'read_customers'];
  keys.app = (await mintAppToken(app, store.id, [...everything, 'write_external_orders'])).access_token;
  const f = fixtures(app.em());
  const supplier = await f.supplier();
  ids.product = await f.product({ supplierId: supplier, stock: [50] });
  await f.listing(store.id, ids.product);
  for (const n of [1, 2])
    await f.listing(store.id, await f.product({ supplierId: supplier, stock: [5 * n] }));
  await internal(app).listings.createOwnGoods({
    storeId: store.id,
    sku: 'OWN-OWNED-BY',
    name: 'Handmade',
    priceCents: 4500,
    costCents: 1200,
    stock: 10,
  });
  ids.own = 'OWN-OWNED-BY';
  const placed = await app.request('/api/v1/orders', { method: 'POST', key: keys.live, body: wholesale() });
  ids.shipped = ((await placed.json()) as { order: { id: number } }).order.id;
  for (const status of ['processing', 'fulfilled', 'shipped'] as const) {
    await internal(app).orders.advance({ orderId: ids.shipped, status, tracking: 'TRACK-1' });
  }
});
afterAll(() => app.close());

const CUSTOMER = { email: 'bea@example.com', name: 'Bea Buyer', phone: '+61 400 000 000' };
const SHIPPING = { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' };
const wholesale = () => ({
  customer: CUSTOMER,
  shipping: SHIPPING,
  items: [{ product_id: ids.product, quantity: 1 }],
});
let posts = 0;
const external = () => ({
  marketplace: 'etsy',
  external_order_id: `EXT-${++posts}`,
  placed_at: '2026-11-20T09:30:00+11:00',
  currency: 'AUD',
  customer: CUSTOMER,
  shipping: SHIPPING,
  items: [{ sku: ids.own, quantity: 1, price_cents: 4500 }],
  total_cents: 4500,
});

/** What a walk has made so far, for the paths of the steps after. */
interface Made {
  order?: number;
  hook?: number;
  delivery?: number;
  event?: string;
  external?: number;
  toCancel?: number;
  export?: string;
}
type Json = Record<string, { id?: number | string } & Record<string, unknown>> & {
  events?: { id: string }[];
};

interface Step {
  op: string;
  path?: (m: Made) => string;
  body?: () => unknown;
  headers?: Record<string, string>;
  save?: (body: Json, m: Made) => void;
}

const listing = () => `/api/v1/my-products/${ids.product}`;
const hook = (m: Made) => `/api/v1/vendor/webhooks/${m.hook}`;
const HOOK = { url: 'https://127.0.0.1:9/hook', events: ['order.created'] };

/** One walk over every partner operation, in an order where each finds what it needs. */
const STEPS: Step[] = [
  { op: 'GET /api/v1/products' },
  {
    op: 'GET /api/v1/products',
    path: () => '/api/v1/products?exclude_in_store=true&scope=store&sort_by=margin&price_min_cents=100',
  },
  { op: 'GET /api/v1/products/facets' },
  { op: 'GET /api/v1/products/{id}', path: () => `/api/v1/products/${ids.product}` },
  { op: 'GET /api/v1/vendor/me' },
  { op: 'GET /api/v1/my-products' },
  { op: 'GET /api/v1/my-products', path: () => '/api/v1/my-products?search=product&include=variants' },
  { op: 'GET /api/v1/my-products/{productId}', path: listing },
  {
    op: 'PUT /api/v1/my-products/{productId}/pricing',
    path: () => `${listing()}/pricing`,
    body: () => ({ custom_retail_price_cents: 3000 }),
  },
  {
    op: 'PATCH /api/v1/my-products/{productId}/enquiry-mode',
    path: () => `${listing()}/enquiry-mode`,
    body: () => ({ purchase_mode: 'buy_now' }),
  },
  {
    op: 'PATCH /api/v1/my-products/{productId}/vendor-fulfilled',
    path: () => `${listing()}/vendor-fulfilled`,
    body: () => ({ vendor_fulfilled: true }),
  },
  { op: 'DELETE /api/v1/my-products/{productId}', path: listing },
  {
    op: 'POST /api/v1/my-products',
    body: () => ({ product_id: ids.product }),
    headers: { 'Idempotency-Key': `owned-${Math.random()}` },
  },
  { op: 'POST /api/v1/my-products/bulk-remove', body: () => ({ mode: 'ids', product_ids: [ids.product] }) },
  { op: 'POST /api/v1/my-products/bulk', body: () => ({ mode: 'ids', product_ids: [ids.product] }) },
  { op: 'POST /api/v1/my-products/bulk-remove', body: () => ({ mode: 'filter', filters: {} }) },
  { op: 'POST /api/v1/my-products/bulk', body: () => ({ mode: 'filter', filters: {} }) },
  {
    op: 'POST /api/v1/orders',
    body: wholesale,
    save: (b, m) => {
      m.order = Number(b.order?.id);
    },
  },
  // Test mode only: the test key moves its own order (live credentials are refused before any read).
  {
    op: 'POST /api/v1/test_helpers/orders/{id}/advance',
    path: (m) => `/api/v1/test_helpers/orders/${m.order}/advance`,
    body: () => ({ to: 'delivered' }),
  },
  {
    op: 'POST /api/v1/orders',
    body: wholesale,
    save: (b, m) => {
      m.toCancel = Number(b.order?.id);
    },
  },
  {
    op: 'POST /api/v1/test_helpers/orders/{id}/cancel',
    path: (m) => `/api/v1/test_helpers/orders/${m.toCancel}/cancel`,
  },
  { op: 'GET /api/v1/orders' },
  { op: 'GET /api/v1/orders', path: () => '/api/v1/orders?sort_by=id&status=pending' },
  { op: 'GET /api/v1/orders', path: () => '/api/v1/orders?search=bea' },
  { op: 'GET /api/v1/orders/{id}', path: (m) => `/api/v1/orders/${m.order ?? ids.shipped}` },
  { op: 'GET /api/v1/orders/{id}/invoice', path: () => `/api/v1/orders/${ids.shipped}/invoice` },
  { op: 'GET /api/v1/inventory' },
  {
    op: 'POST /api/v1/orders/external',
    body: external,
    save: (b, m) => {
      m.external = Number(b.order?.id);
    },
  },
  {
    op: 'POST /api/v1/orders/external/{id}/cancel',
    path: (m) => `/api/v1/orders/external/${m.external}/cancel`,
    body: () => ({ note: 'buyer cancelled' }),
  },
  { op: 'GET /api/v1/vendor/webhooks' },
  {
    op: 'POST /api/v1/vendor/webhooks',
    body: () => HOOK,
    save: (b, m) => {
      m.hook = Number(b.webhook?.id);
    },
  },
  { op: 'GET /api/v1/vendor/webhooks/{id}', path: hook },
  { op: 'PUT /api/v1/vendor/webhooks/{id}', path: hook, body: () => ({ ...HOOK, active: true }) },
  { op: 'POST /api/v1/vendor/webhooks/{id}/rotate-secret', path: (m) => `${hook(m)}/rotate-secret` },
  {
    op: 'POST /api/v1/vendor/webhooks/{id}/test',
    path: (m) => `${hook(m)}/test`,
    save: (b, m) => {
      m.delivery = Number(b.delivery?.id);
    },
  },
  { op: 'GET /api/v1/vendor/webhooks/{id}/deliveries', path: (m) => `${hook(m)}/deliveries` },
  {
    op: 'POST /api/v1/vendor/webhooks/{id}/deliveries/{deliveryId}/resend',
    path: (m) => `${hook(m)}/deliveries/${m.delivery}/resend`,
  },
  {
    op: 'GET /api/v1/events',
    save: (b, m) => {
      m.event = b.events?.[0]?.id;
    },
  },
  { op: 'GET /api/v1/events/{id}', path: (m) => `/api/v1/events/${m.event ?? 'evt_1'}` },
  { op: 'GET /api/v1/requests', path: () => '/api/v1/requests?status_class=2xx&operation=getStore' },
  // This app records no request log (test/request-log/ does): the lookup runs, and answers 404.
  { op: 'GET /api/v1/requests/{request_id}', path: () => '/api/v1/requests/req_walked' },
  {
    op: 'POST /api/v1/exports',
    body: () => ({ type: 'orders', filters: { status: 'pending' } }),
    save: (b, m) => {
      m.export = String(b.export?.id);
    },
  },
  { op: 'GET /api/v1/exports' },
  { op: 'GET /api/v1/exports/{id}', path: (m) => `/api/v1/exports/${m.export ?? 'exp_1'}` },
  { op: 'DELETE /api/v1/vendor/webhooks/{id}', path: hook },
];

/** Walks every step with one credential; answers each step's status and statements. */
async function walk(key: string) {
  const made: Made = {};
  const seen: { step: string; status: number; statements: CompiledStatement[] }[] = [];
  for (const step of STEPS) {
    const [method = '', template = ''] = step.op.split(' ');
    const statements: CompiledStatement[] = [];
    observeStatements((s) => {
      statements.push(s);
      return () => {};
    });
    try {
      const res = await app.request(step.path?.(made) ?? template, {
        method,
        key,
        body: step.body?.(),
        headers: step.headers,
      });
      const text = await res.text();
      if (res.ok && text.startsWith('{')) step.save?.(JSON.parse(text) as Json, made);
      seen.push({ step: `${method} ${step.path?.(made) ?? template}`, status: res.status, statements });
    } finally {
      observeStatements(undefined);
    }
  }
  return seen;
}

describe('every partner operation', () => {
  it('is walked', () => {
    expect([...new Set(STEPS.map((s) => s.op))].sort()).toEqual([...new Set(OPERATIONS)].sort());
  });

  const CREDENTIALS = [
    ['a live read_write key', 'live', true],
    ['a test read_write key', 'test', false],
    ['a read key', 'read', true],
    ['an app token', 'app', true],
  ] as const;
  it.each(CREDENTIALS)('with %s reads store tables only through ownedBy', async (_, which, livemode) => {
    const seen = await walk(keys[which]);
    const owner = { storeId: ids.store, livemode };
    const problems = seen.flatMap((s) =>
      s.statements.flatMap((st) => problemsOf(st, owner).map((p) => `${s.step}: ${p}\n  ${st.sql}`)),
    );
    expect(problems).toEqual([]);
    // The walk did its work: the statements of a refused or failed request prove nothing.
    const reading = seen.filter((s) => s.statements.some((st) => storeTablesOf(st.sql).length > 0));
    expect(reading.length).toBeGreaterThan(which === 'live' || which === 'test' ? 30 : 10);
    if (which === 'live') {
      const failed = seen
        // The test helpers refuse a live key (TEST_MODE_ONLY) before reading anything.
        .filter(
          (s) =>
            s.status >= 400 &&
            !s.step.startsWith('GET /api/v1/events/') &&
            !s.step.startsWith('GET /api/v1/requests/') &&
            !s.step.startsWith('POST /api/v1/test_helpers/'),
        )
        .map((s) => `${s.step}: ${s.status}`);
      expect(failed).toEqual([]);
    }
    if (which === 'test') {
      const helpers = seen.filter((s) => s.step.startsWith('POST /api/v1/test_helpers/'));
      expect(helpers.map((s) => s.status)).toEqual([200, 200]);
    }
    expect(seen.filter((s) => s.status >= 500).map((s) => s.step)).toEqual([]);
  });

  it('needed every entry of the allowlist', () => {
    expect(ALLOWED.filter((a) => !used.has(a)).map((a) => a.why)).toEqual([]);
  });
});
