import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CreateWholesaleOrderResponse,
  ErrorBody,
  InventoryItem,
  ListInventoryResponse,
} from '../../client/src/index.ts';
import { createTaskList } from '../../jobs/tasks.ts';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/logger.ts';
import { type Orm, openOrm } from '../../server/orm.ts';
import type { Actor, AppScope } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { inventoryOutput } from '../../src/inventory/schemas.ts';
import { setStock } from '../../src/inventory/set-stock.ts';
import { createCaller } from '../../src/router.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import type { Context } from '../../src/trpc/context.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import {
  startTestApp,
  TEST_MAIL,
  TEST_SECRET_KEY,
  TEST_WEBHOOKS,
  type TestApp,
  testContext,
} from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { failure } from '../helpers/errors.ts';
import { fixtures, type ProductSpec } from '../helpers/fixtures.ts';
import { type Sent, send } from '../helpers/http.ts';

/**
 * GET /api/v1/inventory: the store's change feed. One item per product the store lists (or listed),
 * oldest change first, followed with `next_cursor`; stock changes reach every listing store through
 * the `inventory_fanout` job; a reader following the cursor never misses a change, even while
 * writers commit out of order.
 */

type Store = Awaited<ReturnType<TestApp['createStore']>>;

type Page = ListInventoryResponse;
type Item = InventoryItem;
const FEED = '/api/v1/inventory';
const MY = '/api/v1/my-products';
const OPERATOR_TOKEN = 'op_inventory_test_token_0123456789abcdef';
const _log = createLogger('silent');
const quiet = { logger: { debug() {}, info() {}, warn() {}, error() {} } } as unknown as JobHelpers;

const CUSTOMER = { email: 'inv@example.com', name: 'Ivy Inventory', phone: '+61 400 000 001' };
const SHIPPING = {
  address: '2 Pitt St',
  address2: '',
  city: 'Sydney',
  state: 'NSW',
  zip: '2000',
  country: 'au',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let app: TestApp;
let supplierId: number;

beforeAll(async () => {
  app = await startTestApp();
  supplierId = await fixtures(app.em()).supplier({ name: 'Feed Maker' });
});
afterAll(() => app.close());

// ---------------------------------------------------------------------------------------------------
// Helpers

function feedPath(q: { updated_since?: string; limit?: string | number } = {}): string {
  const params = new URLSearchParams();
  if (q.updated_since !== undefined) params.set('updated_since', q.updated_since);
  if (q.limit !== undefined) params.set('limit', String(q.limit));
  const s = params.toString();
  return s ? `${FEED}?${s}` : FEED;
}

/** One feed page, asserted 200. */
async function page(
  key: string,
  q: { updated_since?: string; limit?: string | number } = {},
  target: TestApp = app,
): Promise<Page> {
  const res = await target.get<Page>(feedPath(q), key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.next_cursor).toBe('string');
  expect(res.body.next_cursor.length).toBeGreaterThan(0);
  expect(typeof res.body.has_more).toBe('boolean');
  return res.body;
}

interface Walk {
  pages: Page[];
  items: Item[];
  cursor: string;
}

/**
 * Follows `next_cursor` from `from` until a page says `has_more: false`. Feed positions only become
 * readable once every older transaction of the PostgreSQL cluster has ended, so when `until` is given
 * the walk keeps polling (from its last cursor) until the items read satisfy it, or 15 s pass.
 */
async function walk(
  key: string,
  o: { from?: string; limit?: number; until?: (items: Item[]) => boolean; target?: TestApp } = {},
): Promise<Walk> {
  const pages: Page[] = [];
  const items: Item[] = [];
  let cursor = o.from;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const p = await page(key, { updated_since: cursor, limit: o.limit }, o.target);
    pages.push(p);
    items.push(...p.items);
    if (o.limit !== undefined) expect(p.items.length).toBeLessThanOrEqual(o.limit);
    if (p.has_more) expect(p.items.length).toBeGreaterThan(0);
    cursor = p.next_cursor;
    if (p.has_more) continue;
    if (!o.until || o.until(items) || Date.now() > deadline) break;
    await sleep(50);
  }
  return { pages, items, cursor: cursor as string };
}

/** Walks until every product of `ids` was read (the test then asserts exactly what came). */
function walkFor(key: string, ids: number[], o: { from?: string; limit?: number; target?: TestApp } = {}) {
  return walk(key, { ...o, until: (items) => ids.every((id) => items.some((i) => i.product_id === id)) });
}

const idsOf = (items: Item[]) => items.map((i) => i.product_id);

function product(p: Partial<ProductSpec> = {}, target: TestApp = app): Promise<number> {
  return fixtures(target.em()).product({ supplierId, ...p });
}

async function listFixture(storeId: number, productId: number, o: { deleted?: boolean } = {}) {
  await fixtures(app.em()).listing(storeId, productId, o);
}

const addListing = (s: Store, productId: number, body: Record<string, unknown> = {}) =>
  send(app, 'POST', MY, { key: s.readWrite, body: { product_id: productId, ...body } });
const reprice = (s: Store, productId: number, cents: number) =>
  send(app, 'PUT', `${MY}/${productId}/pricing`, {
    key: s.readWrite,
    body: { custom_retail_price_cents: cents },
  });
const removeListing = (s: Store, productId: number) =>
  send(app, 'DELETE', `${MY}/${productId}`, { key: s.readWrite });

interface VariantRow {
  id: number;
  sku: string;
  title: string;
  option_values: Record<string, string>;
  stock_quantity: number;
}
async function variantsOf(productId: number, target: TestApp = app): Promise<VariantRow[]> {
  return rows<VariantRow>(
    target.em(),
    sql`SELECT id, sku, title, option_values, stock_quantity FROM product_variants
      WHERE product_id = ${productId} ORDER BY position, id`,
  );
}

/** A context as each HTTP request gets, for in-process callers. */
function context(o: { actor?: Actor; authorization?: string; target?: TestApp } = {}): Context {
  return testContext(o.target ?? app, {
    actor: o.actor,
    authorization: o.authorization,
    operatorToken: OPERATOR_TOKEN,
    requestId: 'req_inventory',
  });
}

const internal = (target: TestApp = app) =>
  createCaller(context({ authorization: `Bearer ${OPERATOR_TOKEN}`, target })).internal;

function appActor(storeId: number, scopes: AppScope[]): Actor {
  return {
    storeId,
    kind: 'app',
    scope: 'read',
    appScopes: new Set(scopes),
    credentialId: 1,
    appId: 1,
    canReadCustomers: false,
    livemode: true,
  };
}

interface JobRow {
  id: string;
  key: string | null;
  payload: unknown;
}
async function fanoutJobs(target: TestApp = app): Promise<JobRow[]> {
  return rows<JobRow>(
    target.em(),
    sql`SELECT j.id::text AS id, j.key, p.payload FROM graphile_worker.jobs j
      JOIN graphile_worker._private_jobs p ON p.id = j.id
      WHERE j.task_identifier = 'inventory_fanout' ORDER BY j.id`,
  );
}

/** The job key the stock trigger queues a product's drain under (Migration20261128070000_inventory_fanout_versions). */
const fanoutKey = (productId: number) => `inventory_fanout:shard:${productId % 64}`;

async function pendingFanouts(products: number[], target: TestApp = app) {
  return rows<{ product_id: number; variant_id: number | null }>(
    target.em(),
    sql`SELECT product_id, variant_id FROM inventory_fanout_pending
      WHERE product_id = ANY(${products}::integer[]) ORDER BY product_id`,
  );
}

async function clearFanoutJobs(target: TestApp = app) {
  for (const j of await fanoutJobs(target)) {
    await rows(target.em(), sql`SELECT graphile_worker.complete_jobs(ARRAY[${j.id}::bigint])`);
  }
}

/** Runs the real task for one product, as the worker would; returns what it logged at debug. */
async function runFanout(productId: number, target: TestApp = app): Promise<string[]> {
  const logged: string[] = [];
  const helpers = {
    logger: {
      debug: (m: string) => logged.push(m),
      info() {},
      warn() {},
      error() {},
    },
  } as unknown as JobHelpers;
  const task = createTaskList(target.orm, TEST_MAIL, TEST_WEBHOOKS).inventory_fanout;
  if (!task) throw new Error('no inventory_fanout task');
  await task({ product_id: productId }, helpers);
  return logged;
}

/** Takes every pending fan-out job (one statement per job, as a worker completes them) and runs it. */
async function runPendingFanouts(target: TestApp = app): Promise<number> {
  const jobs = await fanoutJobs(target);
  for (const j of jobs) {
    const [done] = await rows<{ n: number }>(
      target.em(),
      sql`SELECT count(*)::integer AS n FROM graphile_worker.complete_jobs(ARRAY[${j.id}::bigint])`,
    );
    if (!done?.n) continue;
    const task = createTaskList(target.orm, TEST_MAIL, TEST_WEBHOOKS).inventory_fanout;
    await task?.(j.payload, queueing(target));
  }
  return jobs.length;
}

/** Quiet helpers whose addJob queues as Graphile's does, so a drain that asks for another is run by the loop. */
function queueing(target: TestApp): JobHelpers {
  const addJob = async (
    name: string,
    payload: unknown,
    spec: { jobKey?: string; jobKeyMode?: string } = {},
  ) =>
    rows(
      target.em(),
      sql`SELECT graphile_worker.add_job(${name}, ${JSON.stringify(payload)}::json,
        job_key => ${spec.jobKey ?? null}::text, job_key_mode => ${spec.jobKeyMode ?? null}::text)`,
    );
  return { ...quiet, addJob } as unknown as JobHelpers;
}

async function lastEventId(target: TestApp = app): Promise<number> {
  const [row] = await rows<{ id: number }>(
    target.em(),
    sql`SELECT COALESCE(max(id), 0)::integer AS id FROM domain_events`,
  );
  return row?.id ?? 0;
}

async function eventsSince(since: number, target: TestApp = app) {
  return rows<{ store_id: number; event: string; entity_id: number; data: unknown }>(
    target.em(),
    sql`SELECT store_id, event, entity_id::integer AS entity_id, data FROM domain_events
      WHERE id > ${since} ORDER BY id`,
  );
}

const cli = runCli;

/** The item the feed must show for a product, computed from the tables. */
async function expectedItem(storeId: number, productId: number, target: TestApp = app): Promise<Item> {
  const [p] = await rows<{
    sku: string;
    name: string;
    stock_quantity: number;
    listed: boolean;
    sellable: boolean;
    updated_at: string;
  }>(
    target.em(),
    sql`SELECT p.sku, p.name, p.stock_quantity, (l.id IS NOT NULL AND l.deleted_at IS NULL) AS listed,
        (p.active AND l.id IS NOT NULL AND l.deleted_at IS NULL AND p.purchase_mode = 'buy_now'
          AND COALESCE(l.purchase_mode, 'buy_now') = 'buy_now') AS sellable,
        to_char(GREATEST(p.updated_at, l.updated_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
      FROM products p LEFT JOIN listings l ON l.product_id = p.id AND l.store_id = ${storeId}
      WHERE p.id = ${productId}`,
  );
  if (!p) throw new Error(`no product ${productId}`);
  const variants = await variantsOf(productId, target);
  return {
    product_id: productId,
    sku: p.sku,
    name: p.name,
    listed: p.listed,
    withdrawn_at: null,
    in_stock: p.stock_quantity > 0,
    stock_quantity: p.stock_quantity,
    variants: variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      title: v.title,
      option_values: v.option_values,
      quantity_available: v.stock_quantity,
      available_for_sale: p.sellable && v.stock_quantity > 0,
    })),
    updated_at: p.updated_at,
  };
}

/** A refusal's `items`, which must be absent: not a field of ErrorBody, so read through a narrow cast. */
const itemsOf = (res: Sent) => (res.body as { items?: unknown }).items;

function expectInvalidCursor(res: Sent, label: string) {
  expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body, label).toMatchObject({ error: 'bad_request', code: 'INVALID_CURSOR' });
  expect(itemsOf(res), label).toBeUndefined();
}

function expectBadLimit(res: Sent, label: string) {
  expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body, label).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
  expect(itemsOf(res), label).toBeUndefined();
}

// ---------------------------------------------------------------------------------------------------

describe('GET /api/v1/inventory: items and order', () => {
  it('answers one item per listed product with its variants nested, oldest change first', async () => {
    const store = await app.createStore('Feed Shape');
    const other = await app.createStore('Feed Shape Other');
    const stool = await product({ name: 'Walnut Stool', sku: 'INV-STOOL', stock: [3, 0, 7] });
    const empty = await product({ name: 'Empty Jar', sku: 'INV-JAR', stock: [0] });
    const enquiry = await product({ name: 'Brass Lamp', sku: 'INV-LAMP', stock: [4] });
    const withdrawn = await product({ name: 'Old Vase', sku: 'INV-VASE', stock: [2], active: false });
    const gone = await product({ name: 'Gone Rug', sku: 'INV-RUG', stock: [6] });
    const theirs = await product({ name: 'Their Chair', stock: [9] });

    expect((await addListing(store, stool)).status).toBe(201);
    await listFixture(store.id, empty);
    expect((await addListing(store, enquiry)).status).toBe(201);
    const moded = await send(app, 'PATCH', `${MY}/${enquiry}/enquiry-mode`, {
      key: store.readWrite,
      body: { purchase_mode: 'enquiry' },
    });
    expect(moded.status, JSON.stringify(moded.body)).toBe(200);
    await listFixture(store.id, withdrawn);
    await listFixture(store.id, gone, { deleted: true });
    await listFixture(other.id, theirs);

    const order = [stool, empty, enquiry, withdrawn, gone];
    const { items, pages, cursor } = await walkFor(store.read, order);
    expect(pages.at(-1)?.has_more).toBe(false);
    expect(idsOf(items)).toEqual(order);

    // The router does not re-run the response schema on every page (`documentedOnly`): each page sent,
    // and the empty one at the head, must already be exactly what the schema describes (parsing strips
    // unknown fields and refuses wrong types, so a page equal to its parse has neither).
    const head = await page(store.read, { updated_since: cursor });
    expect(head.items).toEqual([]);
    for (const p of [...pages, head]) expect(inventoryOutput.parse(p)).toStrictEqual(p);

    const [sv1, sv2, sv3] = await variantsOf(stool);
    expect(items[0]).toEqual({
      product_id: stool,
      sku: 'INV-STOOL',
      name: 'Walnut Stool',
      listed: true,
      withdrawn_at: null,
      in_stock: true,
      stock_quantity: 10,
      variants: [
        {
          id: sv1?.id,
          sku: 'INV-STOOL-1',
          title: 'Option 1',
          option_values: { Size: 'Option 1' },
          quantity_available: 3,
          available_for_sale: true,
        },
        {
          id: sv2?.id,
          sku: 'INV-STOOL-2',
          title: 'Option 2',
          option_values: { Size: 'Option 2' },
          quantity_available: 0,
          available_for_sale: false,
        },
        {
          id: sv3?.id,
          sku: 'INV-STOOL-3',
          title: 'Option 3',
          option_values: { Size: 'Option 3' },
          quantity_available: 7,
          available_for_sale: true,
        },
      ],
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(items[1]).toMatchObject({
      product_id: empty,
      listed: true,
      in_stock: false,
      stock_quantity: 0,
      variants: [{ sku: 'INV-JAR', title: 'Default', option_values: {}, quantity_available: 0 }],
    });
    expect(items[1]?.variants[0]?.available_for_sale).toBe(false);
    // Enquiry-only: stock is shown, but nothing is available for sale.
    expect(items[2]).toMatchObject({ product_id: enquiry, listed: true, in_stock: true, stock_quantity: 4 });
    expect(items[2]?.variants.map((v) => [v.quantity_available, v.available_for_sale])).toEqual([[4, false]]);
    // Withdrawn from the catalogue: still listed, not for sale.
    expect(items[3]).toMatchObject({ product_id: withdrawn, listed: true, stock_quantity: 2 });
    expect(items[3]?.variants.map((v) => v.available_for_sale)).toEqual([false]);
    // Removed: listed false.
    expect(items[4]).toMatchObject({ product_id: gone, listed: false, stock_quantity: 6 });
    expect(items[4]?.variants.map((v) => v.available_for_sale)).toEqual([false]);

    // Every item is exactly the product's current state.
    for (const item of items) expect(item).toEqual(await expectedItem(store.id, item.product_id));

    // The other store sees only its own listing; its read key and read_write key see the same page.
    const theirsWalk = await walkFor(other.read, [theirs]);
    expect(idsOf(theirsWalk.items)).toEqual([theirs]);
    expect((await app.get<Page>(FEED, other.readWrite)).body.items).toEqual(theirsWalk.items);
  });

  it('walks every item exactly once with limit and next_cursor; the last page has has_more false', async () => {
    const store = await app.createStore('Feed Pages');
    const order: number[] = [];
    for (let i = 0; i < 12; i++) {
      const p = await product({ name: `Paged ${i}`, stock: [i] });
      if (i % 2 === 0) expect((await addListing(store, p)).status).toBe(201);
      else await listFixture(store.id, p);
      order.push(p);
    }
    const all = await walkFor(store.read, order);
    expect(idsOf(all.items)).toEqual(order);

    const byFive = await walk(store.read, { limit: 5 });
    expect(byFive.pages.map((p) => [p.items.length, p.has_more])).toEqual([
      [5, true],
      [5, true],
      [2, false],
    ]);
    expect(idsOf(byFive.items)).toEqual(order);
    expect(new Set(byFive.pages.map((p) => p.next_cursor)).size).toBe(3);

    // A page size dividing the total: the last full page already says has_more false.
    const byFour = await walk(store.read, { limit: 4 });
    expect(byFour.pages.map((p) => [p.items.length, p.has_more])).toEqual([
      [4, true],
      [4, true],
      [4, false],
    ]);
    expect(idsOf(byFour.items)).toEqual(order);

    const byOne = await walk(store.read, { limit: 1 });
    expect(byOne.pages.length).toBe(12);
    expect(idsOf(byOne.items)).toEqual(order);

    // Every walk ends on the same position, and an empty page hands that cursor back unchanged.
    expect(byFour.cursor).toBe(byFive.cursor);
    expect(byOne.cursor).toBe(byFive.cursor);
    const after = await page(store.read, { updated_since: byFive.cursor });
    expect(after).toEqual({ items: [], next_cursor: byFive.cursor, has_more: false });
    const again = await page(store.read, { updated_since: after.next_cursor, limit: 3 });
    expect(again).toEqual({ items: [], next_cursor: byFive.cursor, has_more: false });
  });

  it('answers an empty feed with a cursor that later finds the first listing', async () => {
    const store = await app.createStore('Feed Empty');
    const first = await page(store.read);
    expect(first.items).toEqual([]);
    expect(first.has_more).toBe(false);
    const second = await page(store.read, { updated_since: first.next_cursor });
    expect(second).toEqual({ items: [], next_cursor: first.next_cursor, has_more: false });

    const p = await product({ stock: [2] });
    expect((await addListing(store, p)).status).toBe(201);
    const later = await walkFor(store.read, [p], { from: first.next_cursor });
    expect(idsOf(later.items)).toEqual([p]);
    expect(later.cursor).not.toBe(first.next_cursor);

    // The store's own goods, listed at creation, come into the feed the same way.
    const own = await internal().listings.createOwnGoods({
      storeId: store.id,
      sku: `OWN-INV-${randomBytes(3).toString('hex')}`,
      name: 'Own Candle',
      priceCents: 1500,
      stock: 4,
    });
    const withOwn = await walkFor(store.read, [own.product_id], { from: later.cursor });
    expect(idsOf(withOwn.items)).toEqual([own.product_id]);
    expect(withOwn.items[0]).toMatchObject({ name: 'Own Candle', listed: true, stock_quantity: 4 });
    expect(withOwn.items[0]?.variants.map((v) => [v.quantity_available, v.available_for_sale])).toEqual([
      [4, true],
    ]);
  });

  it('re-read with the last cursor returns only what changed: reprice, removal, restore', async () => {
    const store = await app.createStore('Feed Changes');
    const ps: number[] = [];
    for (let i = 0; i < 6; i++) {
      const p = await product({ name: `Changing ${i}`, stock: [5] });
      expect((await addListing(store, p)).status).toBe(201);
      ps.push(p);
    }
    const [p1, p2, p3, p4, p5, p6] = ps as [number, number, number, number, number, number];
    const start = await walkFor(store.read, ps);
    expect(idsOf(start.items)).toEqual(ps);
    const before2 = start.items.find((i) => i.product_id === p2) as Item;

    // Nothing changed: nothing new.
    expect(await page(store.read, { updated_since: start.cursor })).toEqual({
      items: [],
      next_cursor: start.cursor,
      has_more: false,
    });

    expect((await reprice(store, p2, 2600)).status).toBe(200);
    expect((await removeListing(store, p4)).status).toBe(200);
    const c1 = await walkFor(store.read, [p2, p4], { from: start.cursor });
    expect(idsOf(c1.items)).toEqual([p2, p4]);
    expect(c1.items[0]).toEqual(await expectedItem(store.id, p2));
    expect(c1.items[0]?.listed).toBe(true);
    expect(Date.parse(c1.items[0]?.updated_at as string)).toBeGreaterThan(Date.parse(before2.updated_at));
    expect(c1.items[1]).toMatchObject({ product_id: p4, listed: false });
    expect(c1.items[1]?.variants.every((v) => !v.available_for_sale)).toBe(true);

    // Restored: listed again, and only it.
    expect((await addListing(store, p4)).status).toBe(201);
    const c2 = await walkFor(store.read, [p4], { from: c1.cursor });
    expect(idsOf(c2.items)).toEqual([p4]);
    expect(c2.items[0]).toMatchObject({ product_id: p4, listed: true });
    expect(c2.items[0]?.variants.map((v) => v.available_for_sale)).toEqual([true]);

    // A walk from the start now: changed products moved to the end, each once.
    const whole = await walkFor(store.read, ps, { limit: 2 });
    expect(idsOf(whole.items)).toEqual([p1, p3, p5, p6, p2, p4]);

    // Several changes to one product within a change set: it appears once, at its last change.
    expect((await reprice(store, p1, 2500)).status).toBe(200);
    expect((await reprice(store, p3, 2500)).status).toBe(200);
    expect((await reprice(store, p1, 2700)).status).toBe(200);
    expect((await reprice(store, p1, 2800)).status).toBe(200);
    const c3 = await walkFor(store.read, [p1, p3], { from: c2.cursor, limit: 1 });
    expect(idsOf(c3.items)).toEqual([p3, p1]);
    const again = await walkFor(store.read, ps, { limit: 4 });
    expect(idsOf(again.items)).toEqual([p5, p6, p2, p4, p3, p1]);

    // A selling-mode change reaches the feed too.
    const moded = await send(app, 'PATCH', `${MY}/${p5}/enquiry-mode`, {
      key: store.readWrite,
      body: { purchase_mode: 'enquiry' },
    });
    expect(moded.status).toBe(200);
    const c4 = await walkFor(store.read, [p5], { from: c3.cursor });
    expect(idsOf(c4.items)).toEqual([p5]);
    expect(c4.items[0]?.variants.map((v) => v.available_for_sale)).toEqual([false]);
  });

  it('holds back a change that committed after an older transaction still running, then returns both', async () => {
    const store = await app.createStore('Feed Late Commit');
    const early = await product({ stock: [1] });
    const late = await product({ stock: [1] });
    await listFixture(store.id, early);
    await listFixture(store.id, late);
    const start = await walkFor(store.read, [early, late]);

    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let wrote: () => void = () => {};
    const written = new Promise<void>((r) => {
      wrote = r;
    });
    // The older transaction changes `early` first (taking the lower transaction id) and commits last.
    const older = app.em().transactional(async (tx) => {
      await rows(
        tx,
        sql`UPDATE listings SET custom_retail_price_cents = 2222, updated_at = now()
          WHERE store_id = ${store.id} AND product_id = ${early}`,
      );
      wrote();
      await gate;
    });
    try {
      await written;
      expect((await reprice(store, late, 2333)).status).toBe(200);
      // `late` committed, but returning it now would move the cursor past `early`'s pending change.
      const during = await page(store.read, { updated_since: start.cursor });
      expect(during).toEqual({ items: [], next_cursor: start.cursor, has_more: false });
    } finally {
      release();
      await older;
    }
    const after = await walkFor(store.read, [early, late], { from: start.cursor });
    expect(idsOf(after.items)).toEqual([early, late]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('stock changes fan out to every listing store', () => {
  it('setStock enqueues one coalesced inventory_fanout job; the task moves the product in each listing store', async () => {
    const a = await app.createStore('Fan A');
    const b = await app.createStore('Fan B');
    const removed = await app.createStore('Fan Removed');
    const none = await app.createStore('Fan None');
    const p = await product({ stock: [10] });
    const q = await product({ stock: [2, 3] });
    const filler = await product({ stock: [1] });
    await listFixture(a.id, p);
    await listFixture(a.id, q);
    await listFixture(a.id, filler);
    await listFixture(b.id, p);
    await listFixture(removed.id, p, { deleted: true });
    await listFixture(none.id, filler);
    const cursors = {
      a: (await walkFor(a.read, [p, q, filler])).cursor,
      b: (await walkFor(b.read, [p])).cursor,
      removed: (await walkFor(removed.read, [p])).cursor,
      none: (await walkFor(none.read, [filler])).cursor,
    };
    await clearFanoutJobs();
    const since = await lastEventId();

    const [pv] = await variantsOf(p);
    expect(await internal().inventory.setStock({ productId: p, quantity: 4 })).toEqual({
      product_id: p,
      variant_id: pv?.id,
      quantity: 4,
      product_stock: 4,
    });
    const jobs = await fanoutJobs();
    expect(jobs.map((j) => [j.key, j.payload])).toEqual([[fanoutKey(p), { product_id: p }]]);
    expect(await pendingFanouts([p])).toEqual([{ product_id: p, variant_id: pv?.id }]);
    // A second change before the job ran coalesces into the same job, whose payload does not grow.
    await internal().inventory.setStock({ productId: p, quantity: 6 });
    expect((await fanoutJobs()).map((j) => [j.key, j.payload])).toEqual([[fanoutKey(p), { product_id: p }]]);
    expect(await pendingFanouts([p])).toEqual([{ product_id: p, variant_id: pv?.id }]);
    // Setting the same quantity again is no change: still one job.
    await internal().inventory.setStock({ productId: p, quantity: 6 });
    expect((await fanoutJobs()).length).toBe(1);

    // Until the job runs, the feed has nothing new (the stock change itself is not a feed write).
    expect((await page(a.read, { updated_since: cursors.a })).items).toEqual([]);
    expect(await eventsSince(since)).toEqual([]);

    await clearFanoutJobs();
    const logged = await runFanout(p);
    expect(logged.join('\n')).toContain('reached 2 stores');

    const atA = await walkFor(a.read, [p], { from: cursors.a });
    expect(idsOf(atA.items)).toEqual([p]);
    expect(atA.items[0]).toEqual(await expectedItem(a.id, p));
    expect(atA.items[0]).toMatchObject({ product_id: p, listed: true, in_stock: true, stock_quantity: 6 });
    expect(atA.items[0]?.variants.map((v) => [v.id, v.quantity_available])).toEqual([[pv?.id, 6]]);
    // At the head of A's feed: a walk from the start ends with it.
    expect(idsOf((await walkFor(a.read, [p, q, filler])).items)).toEqual([q, filler, p]);
    const atB = await walkFor(b.read, [p], { from: cursors.b });
    expect(idsOf(atB.items)).toEqual([p]);
    expect(atB.items[0]?.stock_quantity).toBe(6);
    // A removed listing and a store not listing the product get nothing.
    expect((await page(removed.read, { updated_since: cursors.removed })).items).toEqual([]);
    expect((await page(none.read, { updated_since: cursors.none })).items).toEqual([]);

    const events = await eventsSince(since);
    expect(
      events
        .map((e) => [e.store_id, e.event, e.entity_id, e.data])
        .sort((x, y) => Number(x[0]) - Number(y[0])),
    ).toEqual([
      [a.id, 'inventory.updated', p, { product_id: p, variant_id: pv?.id }],
      [b.id, 'inventory.updated', p, { product_id: p, variant_id: pv?.id }],
    ]);
    expect(await pendingFanouts([p])).toEqual([]);
    const dispatch = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM graphile_worker.jobs WHERE task_identifier = 'dispatch_events'`,
    );
    expect(dispatch[0]?.n).toBeGreaterThan(0);
  });

  it('the task reaches no store for a product nobody lists, and refuses a payload without a product id', async () => {
    const lonely = await product({ stock: [1] });
    await rows(app.em(), sql`UPDATE product_variants SET stock_quantity = 2 WHERE product_id = ${lonely}`);
    const since = await lastEventId();
    const logged = await runFanout(lonely);
    expect(logged.join('\n')).toContain(`stock of product ${lonely} reached 0 stores`);
    expect(await eventsSince(since)).toEqual([]);
    const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS).inventory_fanout;
    for (const payload of [{}, { product_id: String(lonely) }, null]) {
      await expect(task?.(payload, quiet), JSON.stringify(payload)).rejects.toThrow(/product_id/);
    }
  });

  it('setStock names the variant of a product with several; refusals enqueue nothing', async () => {
    const a = await app.createStore('Fan Variants');
    const q = await product({ stock: [2, 3] });
    await listFixture(a.id, q);
    const start = await walkFor(a.read, [q]);
    await clearFanoutJobs();

    const required = await failure(internal().inventory.setStock({ productId: q, quantity: 1 }));
    expect(required.appCode).toBe('VARIANT_REQUIRED');
    const unknown = await failure(internal().inventory.setStock({ productId: 2_000_000_000, quantity: 1 }));
    expect(unknown.appCode).toBe('PRODUCT_NOT_FOUND');
    expect(await fanoutJobs()).toEqual([]);

    const [, v2] = await variantsOf(q);
    // The domain function directly, as the CLI's stock:set ends in it.
    const done = await setStock(testContext(app), { productId: q, quantity: 9, variantId: v2?.id });
    expect(done).toEqual({ product_id: q, variant_id: v2?.id, quantity: 9, product_stock: 11 });
    expect((await fanoutJobs()).map((j) => j.key)).toEqual([fanoutKey(q)]);
    await clearFanoutJobs();
    await runFanout(q);
    const after = await walkFor(a.read, [q], { from: start.cursor });
    expect(idsOf(after.items)).toEqual([q]);
    expect(after.items[0]).toEqual(await expectedItem(a.id, q));
    expect(after.items[0]?.stock_quantity).toBe(11);
    expect(after.items[0]?.variants.map((v) => v.quantity_available)).toEqual([2, 9]);
  });

  it('a stock whose product total would pass the integer is refused (STOCK_OUT_OF_RANGE), nothing written or queued', async () => {
    const q = await product({ stock: [2_000_000_000, 5] });
    const [v1, v2] = await variantsOf(q);
    await clearFanoutJobs();
    // Each variant fits the column; the product's sum would not.
    const over = await failure(
      internal().inventory.setStock({ productId: q, variantId: v2?.id, quantity: 200_000_000 }),
    );
    expect(over.appCode).toBe('STOCK_OUT_OF_RANGE');
    const received = await failure(
      internal().inventory.receiveStock({ productId: q, variantId: v1?.id, quantity: 147_483_648 }),
    );
    expect(received.appCode).toBe('STOCK_OUT_OF_RANGE');
    expect((await variantsOf(q)).map((v) => v.stock_quantity)).toEqual([2_000_000_000, 5]);
    expect(await fanoutJobs()).toEqual([]);
    expect(await pendingFanouts([q])).toEqual([]);
    // Up to the integer itself is taken.
    const done = await setStock(testContext(app), { productId: q, variantId: v2?.id, quantity: 147_483_647 });
    expect(done.product_stock).toBe(2_147_483_647);
  });

  it('a wholesale order reserving stock enqueues the fan-out too', async () => {
    const buyer = await app.createStore('Fan Buyer');
    const seller = await app.createStore('Fan Seller');
    const p = await product({ stock: [8] });
    await listFixture(buyer.id, p);
    await listFixture(seller.id, p);
    const cursor = (await walkFor(seller.read, [p])).cursor;
    await clearFanoutJobs();

    const placed = await send<CreateWholesaleOrderResponse>(app, 'POST', '/api/v1/orders', {
      key: buyer.readWrite,
      body: { customer: CUSTOMER, shipping: SHIPPING, items: [{ product_id: p, quantity: 3 }] },
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const [variant] = await variantsOf(p);
    expect((await fanoutJobs()).map((j) => [j.key, j.payload])).toEqual([[fanoutKey(p), { product_id: p }]]);
    expect(await pendingFanouts([p])).toEqual([{ product_id: p, variant_id: variant?.id }]);
    expect(await runPendingFanouts()).toBe(1);
    const after = await walkFor(seller.read, [p], { from: cursor });
    expect(idsOf(after.items)).toEqual([p]);
    expect(after.items[0]).toMatchObject({ stock_quantity: 5, in_stock: true });
    expect(after.items[0]?.variants.map((v) => v.quantity_available)).toEqual([5]);

    // Cancelling gives the stock back: fanned out as well.
    const cancelled = await internal().orders.advance({ orderId: placed.body.order.id, status: 'cancelled' });
    expect(cancelled).toBeTruthy();
    expect((await fanoutJobs()).map((j) => j.key)).toEqual([fanoutKey(p)]);
    expect(await runPendingFanouts()).toBe(1);
    const back = await walkFor(seller.read, [p], { from: after.cursor });
    expect(idsOf(back.items)).toEqual([p]);
    expect(back.items[0]?.stock_quantity).toBe(8);

    // A buyer's storefront checkout reserves stock the same way.
    await internal().orders.checkoutStorefront({
      storeId: seller.id,
      channel: 'direct',
      customer: { email: CUSTOMER.email, name: CUSTOMER.name },
      shipping: SHIPPING,
      items: [{ product_id: p, quantity: 2 }],
    });
    expect((await fanoutJobs()).map((j) => j.key)).toEqual([fanoutKey(p)]);
    expect(await runPendingFanouts()).toBe(1);
    const sold = await walkFor(seller.read, [p], { from: back.cursor });
    expect(idsOf(sold.items)).toEqual([p]);
    expect(sold.items[0]?.stock_quantity).toBe(6);
    const buyerFeed = await walkFor(buyer.read, [p]);
    expect(buyerFeed.items.find((i) => i.product_id === p)?.stock_quantity).toBe(6);
  });

  it('an item restored before its fan-out runs shows the total of the variants it shows', async () => {
    // The fan-out may be running when a listing is restored: it can miss that listing (its snapshot
    // predates the restore) while a reader reads the restore's position before the job's total
    // commits. The item must then be whole on its own: total and variants from one snapshot.
    const store = await app.createStore('Fan Restore');
    const p = await product({ stock: [4, 6] });
    expect((await addListing(store, p)).status).toBe(201);
    expect((await removeListing(store, p)).status).toBe(200);
    const cursor = (await walkFor(store.read, [p])).cursor;
    const [v1] = await variantsOf(p);
    await rows(app.em(), sql`UPDATE product_variants SET stock_quantity = 9 WHERE id = ${v1?.id}`);
    expect((await addListing(store, p)).status).toBe(201);

    const restored = await walkFor(store.read, [p], { from: cursor });
    expect(idsOf(restored.items)).toEqual([p]);
    expect(restored.items[0]?.variants.map((v) => v.quantity_available)).toEqual([9, 6]);
    expect(restored.items[0]).toMatchObject({ listed: true, stock_quantity: 15, in_stock: true });
    // The catalogue's column still waits for the job, which then sets it.
    const [column] = await rows<{ stock_quantity: number }>(
      app.em(),
      sql`SELECT stock_quantity FROM products WHERE id = ${p}`,
    );
    expect(column?.stock_quantity).toBe(10);
    await runPendingFanouts();
    const [after] = await rows<{ stock_quantity: number }>(
      app.em(),
      sql`SELECT stock_quantity FROM products WHERE id = ${p}`,
    );
    expect(after?.stock_quantity).toBe(15);
  });

  it('a job waiting behind 200 changes keeps its fixed payload; the variant it names merges to one or none', async () => {
    const store = await app.createStore('Fan Backlog');
    const p = await product({ stock: [500, 500] });
    await listFixture(store.id, p);
    const [v1, v2] = await variantsOf(p);
    await clearFanoutJobs();
    await rows(app.em(), sql`DELETE FROM inventory_fanout_pending WHERE product_id = ${p}`);
    // The worker is stopped: 200 reservations of one variant queue behind one job.
    for (let i = 0; i < 200; i++) {
      await rows(
        app.em(),
        sql`UPDATE product_variants SET stock_quantity = stock_quantity - 1 WHERE id = ${v1?.id}`,
      );
    }
    const [job] = await fanoutJobs();
    expect(job?.payload).toEqual({ product_id: p });
    const [stored] = await rows<{ bytes: number }>(
      app.em(),
      sql`SELECT length(payload::text)::integer AS bytes FROM graphile_worker._private_jobs WHERE key = ${fanoutKey(p)}`,
    );
    expect(stored?.bytes).toBeLessThan(40);
    expect(await pendingFanouts([p])).toEqual([{ product_id: p, variant_id: v1?.id }]);

    let since = await lastEventId();
    expect(await runPendingFanouts()).toBe(1);
    expect((await eventsSince(since)).map((e) => e.data)).toEqual([{ product_id: p, variant_id: v1?.id }]);
    expect(await pendingFanouts([p])).toEqual([]);

    // Another variant changes before the job runs: the fan-out names no variant.
    await rows(
      app.em(),
      sql`UPDATE product_variants SET stock_quantity = stock_quantity - 1 WHERE id = ${v1?.id}`,
    );
    await rows(
      app.em(),
      sql`UPDATE product_variants SET stock_quantity = stock_quantity - 1 WHERE id = ${v2?.id}`,
    );
    await rows(
      app.em(),
      sql`UPDATE product_variants SET stock_quantity = stock_quantity - 1 WHERE id = ${v1?.id}`,
    );
    expect(await pendingFanouts([p])).toEqual([{ product_id: p, variant_id: null }]);
    since = await lastEventId();
    expect(await runPendingFanouts()).toBe(1);
    expect((await eventsSince(since)).map((e) => e.data)).toEqual([{ product_id: p }]);

    // A run finding no waiting change (a drain took it) reaches nothing; an array payload queued
    // before the change still names its variant.
    since = await lastEventId();
    const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS).inventory_fanout;
    await task?.({ product_id: p }, quiet);
    expect(await eventsSince(since)).toEqual([]);
    await task?.([{ product_id: p, variant_ids: [v2?.id] }], quiet);
    expect((await eventsSince(since)).map((e) => e.data)).toEqual([{ product_id: p, variant_id: v2?.id }]);
    const moved = await walk(store.read);
    expect(moved.items.find((i) => i.product_id === p)?.variants.map((v) => v.quantity_available)).toEqual([
      298, 499,
    ]);
  });

  it('one run drains 450 waiting products in batches: totals, feeds and events for each, nothing left waiting', async () => {
    const store = await app.createStore('Fan Drain');
    const ids: number[] = [];
    for (let i = 0; i < 450; i++) ids.push(await product({ stock: [1 + (i % 5)] }));
    await rows(
      app.em(),
      sql`INSERT INTO listings (store_id, product_id) SELECT ${store.id}, unnest(${ids}::integer[])
        ON CONFLICT DO NOTHING`,
    );
    const since = await lastEventId();
    await rows(
      app.em(),
      sql`UPDATE product_variants SET stock_quantity = stock_quantity + 3 WHERE product_id = ANY(${ids}::integer[])`,
    );
    expect((await pendingFanouts(ids)).length).toBe(450);
    await clearFanoutJobs();
    const logged = await runFanout(ids[0] as number);
    expect(await pendingFanouts(ids)).toEqual([]);
    for (const id of ids) expect(logged).toContain(`stock of product ${id} reached 1 stores`);
    const events = await eventsSince(since);
    expect(
      events
        .filter((e) => e.store_id === store.id)
        .map((e) => e.entity_id)
        .sort(),
    ).toEqual([...ids].sort());
    const [off] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM products p
        WHERE p.id = ANY(${ids}::integer[])
          AND p.stock_quantity <> (SELECT sum(v.stock_quantity) FROM product_variants v WHERE v.product_id = p.id)`,
    );
    expect(off?.n).toBe(0);
  });

  it('a run that finds another drain running queues another behind it instead of waiting', async () => {
    const p = await product({ stock: [4] });
    await rows(app.em(), sql`UPDATE product_variants SET stock_quantity = 3 WHERE product_id = ${p}`);
    await clearFanoutJobs();
    const added: { key?: string; runAt?: Date }[] = [];
    const helpers = {
      ...quiet,
      addJob: async (_name: string, _payload: unknown, spec: { jobKey?: string; runAt?: Date }) => {
        added.push({ key: spec.jobKey, runAt: spec.runAt });
        return {};
      },
    } as unknown as JobHelpers;
    const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS).inventory_fanout;
    // Another drain's transaction holds the lock.
    await app.em().transactional(async (tx) => {
      await rows(tx, sql`SELECT pg_advisory_xact_lock(27050701)`);
      await task?.({ product_id: p }, helpers);
    });
    expect(added.map((a) => a.key)).toEqual(['inventory_fanout:recheck']);
    expect(await pendingFanouts([p])).toEqual([{ product_id: p, variant_id: expect.any(Number) }]);
    // The re-check, once the lock is free, drains it.
    await task?.({ product_id: p }, helpers);
    expect(await pendingFanouts([p])).toEqual([]);
  });

  it('reaches 2,500 listing stores in batches, each store getting the product at the head of its feed', async () => {
    const p = await product({ stock: [40] });
    const q = await product({ stock: [1] });
    const regular = await app.createStore('Fan Many Regular');
    await listFixture(regular.id, p);
    await listFixture(regular.id, q);
    const tag = randomBytes(4).toString('hex');
    // 2,750 stores in one statement; every eleventh listing removed (250), so 2,500 are live.
    const made = await rows<{ id: number; live: boolean }>(
      app.em(),
      sql`WITH s AS (
          INSERT INTO stores (name, slug)
          SELECT 'Fan ' || g, 'fan-' || ${tag} || '-' || g FROM generate_series(1, 2750) g
          RETURNING id
        ), n AS (SELECT id, row_number() OVER (ORDER BY id) AS k FROM s)
        INSERT INTO listings (store_id, product_id, deleted_at)
        SELECT id, ${p}::integer, CASE WHEN k % 11 = 0 THEN now() END FROM n
        RETURNING store_id AS id, deleted_at IS NULL AS live`,
    );
    expect(made.length).toBe(2750);
    const live = made.filter((m) => m.live).map((m) => m.id);
    const dead = made.filter((m) => !m.live).map((m) => m.id);
    expect(live.length).toBe(2500);
    // Two of them read through the API.
    const sampled = [live[0], live[1700]] as number[];
    const keys = new Map<number, string>();
    for (const id of sampled) {
      keys.set(id, (await createApiKey({ em: app.em() }, { storeId: id, scope: 'read', mode: 'test' })).key);
    }
    const starts = new Map<number, string>();
    for (const id of sampled) starts.set(id, (await walkFor(keys.get(id) as string, [p])).cursor);
    const regularStart = (await walkFor(regular.read, [p, q])).cursor;
    expect(idsOf((await walk(regular.read)).items)).toEqual([p, q]);

    const [before] = await rows<{ seq: string }>(
      app.em(),
      sql`SELECT COALESCE(max(seq), 0)::text AS seq FROM inventory_feed`,
    );
    const since = await lastEventId();
    await clearFanoutJobs();
    await internal().inventory.setStock({ productId: p, quantity: 39 });
    expect((await fanoutJobs()).map((j) => j.key)).toEqual([fanoutKey(p)]);
    await clearFanoutJobs();
    const logged = await runFanout(p);
    expect(logged.join('\n')).toContain('reached 2501 stores');

    const [moved] = await rows<{ stores: number; xids: number; dead: number; head: number }>(
      app.em(),
      sql`SELECT
          count(*) FILTER (WHERE l.deleted_at IS NULL AND f.seq > ${before?.seq}::bigint)::integer AS stores,
          count(DISTINCT f.xid::text) FILTER (WHERE l.deleted_at IS NULL AND f.seq > ${before?.seq}::bigint)::integer AS xids,
          count(*) FILTER (WHERE l.deleted_at IS NOT NULL AND f.seq > ${before?.seq}::bigint)::integer AS dead,
          count(*) FILTER (WHERE l.deleted_at IS NULL AND NOT EXISTS (
            SELECT 1 FROM inventory_feed g WHERE g.store_id = f.store_id AND (g.xid, g.seq) > (f.xid, f.seq)
          ))::integer AS head
        FROM inventory_feed f JOIN listings l ON l.store_id = f.store_id AND l.product_id = f.product_id
        WHERE f.product_id = ${p}`,
    );
    // 2,500 fan stores and the regular one; three batches of at most a thousand, each its own transaction.
    expect(moved).toEqual({ stores: 2501, xids: 3, dead: 0, head: 2501 });

    const events = await eventsSince(since);
    expect(events.every((e) => e.event === 'inventory.updated' && e.entity_id === p)).toBe(true);
    const eventStores = events.map((e) => e.store_id).sort((x, y) => x - y);
    expect(eventStores).toEqual([regular.id, ...live].sort((x, y) => x - y));
    expect(eventStores.some((id) => dead.includes(id))).toBe(false);

    for (const id of sampled) {
      const seen = await walkFor(keys.get(id) as string, [p], { from: starts.get(id) });
      expect(idsOf(seen.items)).toEqual([p]);
      expect(seen.items[0]).toMatchObject({ listed: true, stock_quantity: 39 });
    }
    const regularAfter = await walkFor(regular.read, [p], { from: regularStart });
    expect(idsOf(regularAfter.items)).toEqual([p]);
    expect(idsOf((await walk(regular.read)).items)).toEqual([q, p]);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------------

describe('a reader following next_cursor never misses a change under concurrent writers', () => {
  let capp: TestApp;
  let worm: Orm;
  let store: Store;
  let csupplier: number;
  const PRODUCTS = 40;
  const products: number[] = [];
  const variantIds = new Map<number, number[]>();

  beforeAll(async () => {
    // Its own database, and a rate limit the polling reader never reaches.
    capp = await startTestApp({ INVENTORY_RATE_LIMIT: '1000000' });
    store = await capp.createStore('Concurrent Store');
    const fx = fixtures(capp.em());
    csupplier = await fx.supplier({ name: 'Concurrent Maker' });
    for (let i = 0; i < PRODUCTS; i++) {
      const stock = Array.from({ length: 1 + (i % 3) }, () => 20);
      const p = await fx.product({ supplierId: csupplier, name: `Busy ${i}`, stock });
      await fx.listing(store.id, p);
      products.push(p);
      variantIds.set(
        p,
        (await variantsOf(p, capp)).map((v) => v.id),
      );
    }
    // The writers' own pool, as separate processes would have.
    worm = await openOrm(capp.databaseUrl, 10);
  });
  afterAll(async () => {
    await worm?.close(true);
    await capp?.close();
  });

  const rand = (n: number) => Math.floor(Math.random() * n);
  const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)] as T;

  async function sqlWriter(stats: { committed: number; failed: number }) {
    for (let t = 0; t < 50; t++) {
      const chosen = [
        ...new Set([pick(products), pick(products), pick(products)].slice(0, 1 + rand(3))),
      ].sort((x, y) => x - y);
      try {
        await worm.em.fork().transactional(async (tx) => {
          for (const p of chosen) {
            const op = pick(['stock', 'stock', 'toggle', 'toggle', 'reprice'] as const);
            if (op === 'stock') {
              const v = pick(variantIds.get(p) ?? []);
              await rows(tx, sql`UPDATE product_variants SET stock_quantity = ${rand(31)} WHERE id = ${v}`);
            } else if (op === 'toggle') {
              // Removed if listed, restored if removed.
              await rows(
                tx,
                sql`UPDATE listings SET deleted_at = CASE WHEN deleted_at IS NULL THEN now() END, updated_at = now()
                  WHERE store_id = ${store.id} AND product_id = ${p}`,
              );
            } else {
              await rows(
                tx,
                sql`UPDATE listings SET custom_retail_price_cents = ${2000 + rand(900)}, updated_at = now()
                  WHERE store_id = ${store.id} AND product_id = ${p}`,
              );
            }
            if (Math.random() < 0.3) await rows(tx, sql`SELECT pg_sleep(${(1 + rand(5)) / 1000})`);
          }
          // Held open after writing: later transactions commit first, out of transaction-id order.
          if (Math.random() < 0.6) await rows(tx, sql`SELECT pg_sleep(${(3 + rand(25)) / 1000})`);
        });
        stats.committed++;
      } catch {
        // A deadlock or serialization failure rolls the whole transaction back: nothing to see.
        stats.failed++;
      }
    }
  }

  async function httpWriter(stats: { committed: number; failed: number }) {
    for (let t = 0; t < 50; t++) {
      const p = pick(products);
      const op = pick(['reprice', 'remove', 'restore', 'order'] as const);
      let res: Sent;
      if (op === 'reprice') {
        res = await send(capp, 'PUT', `${MY}/${p}/pricing`, {
          key: store.readWrite,
          body: { custom_retail_price_cents: 2000 + rand(900) },
        });
      } else if (op === 'remove') {
        res = await send(capp, 'DELETE', `${MY}/${p}`, { key: store.readWrite });
      } else if (op === 'restore') {
        res = await send(capp, 'POST', MY, { key: store.readWrite, body: { product_id: p } });
      } else {
        res = await send(capp, 'POST', '/api/v1/orders', {
          key: store.readWrite,
          body: {
            customer: CUSTOMER,
            shipping: SHIPPING,
            items: [{ product_id: p, variant_id: pick(variantIds.get(p) ?? []), quantity: 1 }],
          },
        });
      }
      expect(res.status, `${op} ${p}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
      if (res.status < 300) stats.committed++;
      else stats.failed++;
    }
  }

  /**
   * What the reader must know of a product: whether it is listed and, while it is, its stock per
   * variant. Stock changes fan out to live listings only, so a removed listing's stock is not tracked
   * (restoring it moves it in the feed again, with the stock of that moment).
   */
  type View =
    | { listed: false; sellable: false }
    | { listed: true; in_stock: boolean; stock_quantity: number; variants: [number, number, boolean][] };
  const viewOf = (i: Item): View =>
    i.listed
      ? {
          listed: true,
          in_stock: i.in_stock,
          stock_quantity: i.stock_quantity,
          variants: i.variants.map((v) => [v.id, v.quantity_available, v.available_for_sale]),
        }
      : { listed: false, sellable: i.variants.some((v) => v.available_for_sale) as false };

  async function databaseView(): Promise<Record<number, View>> {
    const found = await rows<{ product_id: number; listed: boolean; stock_quantity: number }>(
      capp.em(),
      sql`SELECT l.product_id, l.deleted_at IS NULL AS listed, p.stock_quantity
        FROM listings l JOIN products p ON p.id = l.product_id
        WHERE l.store_id = ${store.id} ORDER BY l.product_id`,
    );
    const out: Record<number, View> = {};
    for (const r of found) {
      if (!r.listed) {
        out[r.product_id] = { listed: false, sellable: false };
        continue;
      }
      const vs = await variantsOf(r.product_id, capp);
      out[r.product_id] = {
        listed: true,
        in_stock: r.stock_quantity > 0,
        stock_quantity: r.stock_quantity,
        variants: vs.map((v) => [v.id, v.stock_quantity, v.stock_quantity > 0]),
      };
    }
    return out;
  }

  it('ends with the reader’s view equal to the database for every product of the store', async () => {
    const seen = new Map<number, Item>();
    let cursor: string | undefined;
    let reads = 0;
    let itemsRead = 0;
    let writing = true;

    const readOnce = async () => {
      const p = await page(store.read, { updated_since: cursor, limit: 7 }, capp);
      for (const item of p.items) seen.set(item.product_id, item);
      cursor = p.next_cursor;
      reads++;
      itemsRead += p.items.length;
      return p;
    };
    const reader = (async () => {
      while (writing) {
        const p = await readOnce();
        if (!p.has_more) await sleep(1);
      }
    })();
    const worker = (async () => {
      while (writing) {
        await runPendingFanouts(capp);
        await sleep(5);
      }
    })();

    const stats = { committed: 0, failed: 0 };
    try {
      await Promise.all([sqlWriter(stats), sqlWriter(stats), sqlWriter(stats), httpWriter(stats)]);
    } finally {
      writing = false;
      await Promise.all([reader, worker]);
    }
    // The jobs the writers left: run them all (a fan-out enqueues nothing).
    while ((await runPendingFanouts(capp)) > 0) {}
    expect(stats.committed).toBeGreaterThan(100);

    const expected = await databaseView();
    expect(Object.keys(expected).length).toBe(PRODUCTS);
    const current = () => Object.fromEntries([...seen].map(([id, item]) => [id, viewOf(item)]));
    const deadline = Date.now() + 20_000;
    for (;;) {
      let p = await readOnce();
      while (p.has_more) p = await readOnce();
      if (JSON.stringify(current()) === JSON.stringify(expected) || Date.now() > deadline) break;
      await sleep(100);
    }
    expect(current()).toEqual(expected);
    // The reader really raced the writers: it read many pages, and products more than once.
    expect(reads).toBeGreaterThan(20);
    expect(itemsRead).toBeGreaterThan(PRODUCTS);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------------

describe('bad input', () => {
  let store: Store;
  let other: Store;
  let cursor: string;
  let otherCursor: string;

  beforeAll(async () => {
    store = await app.createStore('Feed Errors');
    other = await app.createStore('Feed Errors Other');
    const p = await product({ stock: [1] });
    const q = await product({ stock: [1] });
    await listFixture(store.id, p);
    await listFixture(store.id, q);
    await listFixture(other.id, p);
    cursor = (await walkFor(store.read, [p, q], { limit: 1 })).pages[0]?.next_cursor as string;
    otherCursor = (await walkFor(other.read, [p])).cursor;
  });

  it('refuses malformed cursors with 400 INVALID_CURSOR, never restarting from the beginning', async () => {
    const b64 = (n: number) => randomBytes(n).toString('base64url');
    const cases: [string, string][] = [
      ['abc', 'abc'],
      ['x.y', 'x.y'],
      ['random base64', b64(32)],
      ['random base64 pair', `${b64(24)}.${b64(16)}`],
      ['three parts', `${cursor}.${b64(4)}`],
      ['missing mac', `${cursor.split('.')[0]}.`],
      ['missing payload', `.${cursor.split('.')[1]}`],
      ['padded payload', `${cursor.split('.')[0]}=.${cursor.split('.')[1]}`],
      ['spaces', ` ${cursor}`],
      ['unicode', 'üñí.çødé'],
    ];
    for (const [label, value] of cases) {
      const res = await app.get(feedPath({ updated_since: value }), store.read);
      expectInvalidCursor(res, label);
      // A rate-limited route sends its headers on every answer, refusals included.
      expect(res.headers.get('x-ratelimit-limit'), label).toBe('600');
      expect(res.headers.get('x-ratelimit-remaining'), label).toMatch(/^\d+$/);
    }
  });

  it('refuses an empty updated_since instead of reading it as absent', async () => {
    expectInvalidCursor(await app.get(`${FEED}?updated_since=`, store.read), 'updated_since=');
    expectInvalidCursor(
      await app.get(`${FEED}?updated_since=&limit=1`, store.read),
      'updated_since=&limit=1',
    );
  });

  it('refuses a cursor with any one character changed', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect((await app.get(feedPath({ updated_since: cursor }), store.read)).status).toBe(200);
    for (let i = 0; i < cursor.length; i++) {
      const c = cursor[i] as string;
      if (c === '.') continue;
      const swapped = alphabet[(alphabet.indexOf(c) + 1 + (i % 7)) % alphabet.length] as string;
      const tampered = cursor.slice(0, i) + swapped + cursor.slice(i + 1);
      expectInvalidCursor(
        await app.get(feedPath({ updated_since: tampered }), store.read),
        `position ${i}: ${tampered}`,
      );
    }
  });

  it('refuses a cursor from another store, and one re-signed for this store by anyone but the service', async () => {
    expectInvalidCursor(await app.get(feedPath({ updated_since: otherCursor }), store.read), 'other store');
    expectInvalidCursor(
      await app.get(feedPath({ updated_since: cursor }), other.readWrite),
      'this cursor at the other store',
    );
    // The other store's payload rewritten to name this store, its MAC kept.
    const [payload, mac] = otherCursor.split('.') as [string, string];
    const text = Buffer.from(payload, 'base64url').toString('utf8');
    expect(text).toMatch(/^1:\d+:\d+:\d+$/);
    const forged = text.replace(/^1:\d+:/, `1:${store.id}:`);
    expectInvalidCursor(
      await app.get(
        feedPath({ updated_since: `${Buffer.from(forged).toString('base64url')}.${mac}` }),
        store.read,
      ),
      'forged store id',
    );
    // A well-formed payload with a made-up MAC.
    expectInvalidCursor(
      await app.get(
        feedPath({
          updated_since: `${Buffer.from(`1:${store.id}:0:0`).toString('base64url')}.${randomBytes(16).toString('base64url')}`,
        }),
        store.read,
      ),
      'made-up mac',
    );
  });

  it('refuses a limit that is not a whole number from 1 to the page size', async () => {
    for (const limit of ['0', 'abc', '-1', '1.5', '1e2', '0x10', '+5', '', '501', '5001', '99999999999']) {
      expectBadLimit(await app.get(feedPath({ limit }), store.read), `limit=${limit}`);
    }
    const over = await app.get<ErrorBody>(feedPath({ limit: 501 }), store.read);
    expect(over.body.message).toContain('500');
    expect(over.body.details).toEqual([{ path: 'limit', message: expect.stringContaining('500') }]);
    expect(over.headers.get('x-ratelimit-limit')).toBe('600');
    for (const limit of ['1', '500']) {
      expect((await app.get(feedPath({ limit }), store.read)).status, `limit=${limit}`).toBe(200);
    }
    expect((await page(store.read, { limit: 1 })).items.length).toBe(1);
  });

  it('takes the page size from PAGE_SIZE_MAX: at most 50 per page, 50 by default', async () => {
    const small = await startTestApp({ PAGE_SIZE_MAX: '50' });
    try {
      const s = await small.createStore('Small Pages');
      const sup = await fixtures(small.em()).supplier({ name: 'Small Maker' });
      await rows(
        small.em(),
        sql`WITH p AS (
            INSERT INTO products (supplier_id, name, description, sku, wholesale_price_cents, retail_price_cents)
            SELECT ${sup}, 'Small ' || g, '', 'SMALL-' || g, 1000, 2000 FROM generate_series(1, 51) g
            RETURNING id
          )
          INSERT INTO listings (store_id, product_id) SELECT ${s.id}, id FROM p ORDER BY id`,
      );
      expectBadLimit(await small.get(feedPath({ limit: 51 }), s.read), 'limit=51');
      const first = await page(s.read, { limit: 50 }, small);
      expect(first.items.length).toBe(50);
      expect(first.has_more).toBe(true);
      const byDefault = await page(s.read, {}, small);
      expect(byDefault.items.length).toBe(50);
      expect(byDefault.has_more).toBe(true);
      expect(byDefault.next_cursor).toBe(first.next_cursor);
      const rest = await page(s.read, { updated_since: byDefault.next_cursor }, small);
      expect(rest.items.length).toBe(1);
      expect(rest.has_more).toBe(false);
    } finally {
      await small.close();
    }
  });

  it('answers 404 FEATURE_DISABLED while platform:set inventory_read is off, 200 once on again', async () => {
    const atHead = (await walkFor(store.read, [])).cursor;
    try {
      const off = await cli(app.databaseUrl, 'platform:set', 'inventory_read', 'off');
      expect(off.code, `${off.stdout}\n${off.stderr}`).toBe(0);
      const res = await app.get(FEED, store.read);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', code: 'FEATURE_DISABLED' });
      expect(itemsOf(res)).toBeUndefined();
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
      expect((await app.get(feedPath({ updated_since: cursor }), store.read)).status).toBe(404);
      // Whatever it asks: an empty page at the head, a refused limit or cursor are 404 too.
      for (const path of [
        feedPath({ updated_since: atHead }),
        feedPath({ limit: 'many' }),
        feedPath({ limit: 100_000 }),
        feedPath({ updated_since: 'garbage' }),
        feedPath({ updated_since: otherCursor }),
      ]) {
        const refused = await app.get(path, store.read);
        expect(refused.status, path).toBe(404);
        expect(refused.body, path).toMatchObject({ code: 'FEATURE_DISABLED' });
      }

      const on = await cli(app.databaseUrl, 'platform:set', 'inventory_read', 'on');
      expect(on.code, `${on.stdout}\n${on.stderr}`).toBe(0);
      expect((await app.get(FEED, store.read)).status).toBe(200);

      // The switch is the table row, whoever writes it.
      await rows(app.em(), sql`UPDATE platform_features SET enabled = false WHERE name = 'inventory_read'`);
      expect((await app.get(FEED, store.read)).body).toMatchObject({ code: 'FEATURE_DISABLED' });
    } finally {
      await rows(app.em(), sql`UPDATE platform_features SET enabled = true WHERE name = 'inventory_read'`);
    }
    expect((await app.get(FEED, store.read)).status).toBe(200);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------

describe('rate limit: the store’s catalogue-read limit, kept in PostgreSQL', () => {
  it('carries X-RateLimit headers counting down from the default 600', async () => {
    const store = await app.createStore('Feed Headers');
    const first = await app.get(FEED, store.read);
    const second = await app.get(FEED, store.readWrite);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('600');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('599');
    // GCRA earns one request back every 100 ms at 600 a minute, so a slow second request may find
    // 599 again; that both keys share the store's one limit is held exactly below, at 3 a minute.
    expect(['598', '599']).toContain(second.headers.get('x-ratelimit-remaining'));
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  });

  describe('with INVENTORY_RATE_LIMIT=3', () => {
    let limited: TestApp;
    let second: Server | undefined;
    let secondOrm: Orm | undefined;
    let secondUrl: string;

    beforeAll(async () => {
      limited = await startTestApp({ INVENTORY_RATE_LIMIT: '3' });
      // A second server process on the same database: its own pool and its own app.
      secondOrm = await openOrm(limited.databaseUrl, 2);
      const config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        PUBLIC_URL: 'http://stockless.test',
        DATABASE_URL: limited.databaseUrl,
        LOG_LEVEL: 'silent',
        INVENTORY_RATE_LIMIT: '3',
        SECRET_KEY: TEST_SECRET_KEY,
      });
      const server = createApp({ orm: secondOrm, config, log: createLogger('silent') });
      second = server;
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const address = server.address();
      secondUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(async () => {
      if (second) {
        const server = second;
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
      await secondOrm?.close(true);
      await limited?.close();
    });

    async function viaSecond(key: string): Promise<Sent> {
      const res = await fetch(`${secondUrl}${FEED}`, { headers: { authorization: `Bearer ${key}` } });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    }

    it('answers the 4th request in the minute 429 RATE_LIMITED with Retry-After; other stores unaffected', async () => {
      const store = await limited.createStore('Limited');
      const neighbour = await limited.createStore('Neighbour');
      const answers: Sent[] = [];
      for (let i = 0; i < 3; i++) answers.push(await limited.get(FEED, store.read));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.map((a) => a.headers.get('x-ratelimit-limit'))).toEqual(['3', '3', '3']);
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0']);

      const refused = await limited.get<ErrorBody>(FEED, store.read);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
      expect(itemsOf(refused)).toBeUndefined();
      // 3 a minute is one every 20 s: the next request is allowed in 20 s, the whole allowance is
      // back in 60 s (GCRA: no window to wait out).
      expect(refused.headers.get('retry-after')).toBe('20');
      expect(refused.body.retry_after).toBe(20);
      expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toBe('60');
      // The store's other key shares the limit.
      expect((await limited.get(FEED, store.readWrite)).status).toBe(429);

      // Another store has its own allowance.
      const theirs = await limited.get(FEED, neighbour.read);
      expect(theirs.status).toBe(200);
      expect(theirs.headers.get('x-ratelimit-remaining')).toBe('2');
    });

    it('is shared by two server processes on the same database', async () => {
      const store = await limited.createStore('Shared Limit');
      expect((await limited.get(FEED, store.read)).status).toBe(200);
      const b1 = await viaSecond(store.read);
      expect(b1.status).toBe(200);
      expect(b1.headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await limited.get(FEED, store.read)).headers.get('x-ratelimit-remaining')).toBe('0');
      const b2 = await viaSecond(store.read);
      expect(b2.status).toBe(429);
      expect(b2.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
      expect(b2.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await limited.get(FEED, store.read)).status).toBe(429);
    });

    it('refuses concurrent requests beyond the limit: exactly 3 of 12 at once succeed', async () => {
      const store = await limited.createStore('Burst');
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0 ? limited.get(FEED, store.read) : viaSecond(store.read),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 200).length).toBe(3);
      expect(statuses.filter((s) => s === 429).length).toBe(9);
    });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('security', () => {
  let store: Store;
  let p: number;

  beforeAll(async () => {
    store = await app.createStore('Feed Security');
    p = await product({ stock: [3] });
    await listFixture(store.id, p);
  });

  it('401 without a credential or with an unknown one; 200 with read and read_write keys', async () => {
    const none = await app.get(FEED);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'unauthorized' });
    expect(itemsOf(none)).toBeUndefined();
    expect((await app.get(FEED, `sl_test_${'z'.repeat(40)}`)).status).toBe(401);
    // 401 before validation.
    expect((await app.get(feedPath({ limit: 0, updated_since: 'abc' }))).status).toBe(401);
    const read = await walkFor(store.read, [p]);
    expect(idsOf(read.items)).toEqual([p]);
    const readWrite = await app.get<Page>(FEED, store.readWrite);
    expect(readWrite.status).toBe(200);
    expect(readWrite.body.items).toEqual(read.items);
  });

  it('an app token needs read_inventory (write_inventory includes it)', async () => {
    const http = await walkFor(store.read, [p]);
    for (const scopes of [['read_inventory'], ['write_inventory']] as AppScope[][]) {
      const answer = await createCaller(context({ actor: appActor(store.id, scopes) })).inventory.feed({});
      expect(answer.items, scopes.join()).toEqual(http.items);
      expect(answer.has_more).toBe(false);
    }
    for (const scopes of [
      [],
      ['read_products'],
      ['write_products'],
      ['read_orders', 'write_orders', 'read_customers'],
      ['write_external_orders'],
    ] as AppScope[][]) {
      const err = await failure(
        createCaller(context({ actor: appActor(store.id, scopes) })).inventory.feed({}),
      );
      expect(err.appCode, scopes.join()).toBe('INSUFFICIENT_SCOPE');
      expect(err.extra).toEqual({ required_scope: 'read_inventory' });
      expect(shapeError(err)).toMatchObject({
        status: 403,
        body: { error: 'forbidden', code: 'INSUFFICIENT_SCOPE', required_scope: 'read_inventory' },
      });
    }
  });
});
