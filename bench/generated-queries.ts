import type pg from 'pg';
import { request } from 'undici';
import { buildOpenApiDocument } from '../server/contract/document.ts';
import { PRICE_BANDS } from '../src/catalogue/cells.ts';
import { CHANNELS } from '../src/catalogue/channels.ts';
import { EVENT_NAMES } from '../src/events/vocabulary/index.ts';
import { seeded } from './lib.ts';

/**
 * The requests no bench names: parameter combinations drawn from the contract's own parameter
 * schemas (the OpenAPI document the routers generate), so a filter, sort or value nobody thought of
 * is measured like the rest. Each query parameter is present or not at random; its value comes from
 * its schema (every enum value, booleans, integers across their range with prices at arbitrary
 * cents and deep pages) or, for free strings, from what the database holds (the catalogue's own
 * words, its brands, categories and raw categories, the store's orders, cursors of real pages) with
 * a share of values that match nothing. Seeded: a run draws the same combinations.
 */

export const GENERATED_ENDPOINTS = [
  '/api/v1/products',
  '/api/v1/products/facets',
  '/api/v1/my-products',
  '/api/v1/orders',
  '/api/v1/inventory',
  '/api/v1/events',
  '/api/v1/requests',
  '/api/v1/exports',
] as const;
export type Endpoint = (typeof GENERATED_ENDPOINTS)[number];

export interface Drawn {
  endpoint: Endpoint;
  url: string;
}

interface ParamSchema {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  format?: string;
}
interface Param {
  name: string;
  in: string;
  schema?: ParamSchema;
}

/** What a partner could plausibly put in a free string, read from the bench database. */
export interface Domain {
  commonWords: string[];
  rareWords: string[];
  brands: string[];
  categories: string[];
  rawCategories: string[];
  storeTypes: string[];
  suppliers: number[];
  orderTerms: string[];
  orderDays: [from: number, to: number];
  eventTimes: [from: number, to: number];
  inventoryCursors: string[];
  eventCursors: string[];
  /** The request log's span, its operations, credentials (key prefixes, app client ids) and keys. */
  requestTimes: [from: number, to: number];
  operations: string[];
  requestCredentials: string[];
  idempotencyKeys: string[];
}

/**
 * A cursor of the request log or the export list reads on only under the filters it was issued with:
 * the draw marks it, and `resolveWalks` walks the combination's own pages to get a real one.
 */
export const WALK = '__walk__';

/** Draws from a seeded stream (lib.ts): integers, picks, log-uniform integers and chances. */
function random(seed: number) {
  const next = seeded(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  /** Log-uniform over [lo, hi]: small values as often as large ones, by order of magnitude. */
  const logInt = (lo: number, hi: number) => Math.floor(Math.exp(Math.log(lo) + next() * Math.log(hi / lo)));
  return { next, int, pick, logInt, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

/**
 * Words of the catalogue's names and descriptions with how often they occur, from a 1% sample:
 * the most frequent half are "common" (at 2M products each is in thousands of products), the
 * rarest tenth "rare".
 */
async function vocabulary(client: pg.Client): Promise<{ common: string[]; rare: string[] }> {
  const { rows } = await client.query<{ w: string; n: number }>(
    `SELECT w, count(*)::integer AS n FROM (
       SELECT regexp_split_to_table(lower(name || ' ' || coalesce(description, '')), '[^a-z0-9-]+') AS w
       FROM products TABLESAMPLE SYSTEM (1) REPEATABLE (7)) s
     WHERE length(w) >= 2 GROUP BY w ORDER BY n DESC, w`,
  );
  const words = rows.map((r) => r.w);
  return {
    common: words.slice(0, Math.max(1, Math.ceil(words.length / 2))),
    rare: words.slice(Math.floor(words.length * 0.9)),
  };
}

/** The domain: values from the database, and cursors from real pages of the running API. */
export async function readDomain(
  client: pg.Client,
  storeId: number,
  apiUrl: string,
  headers: Record<string, string>,
): Promise<Domain> {
  const list = async <T>(text: string, params: unknown[] = []) =>
    (await client.query<{ v: T }>(text, params)).rows.map((r) => r.v);
  const { common, rare } = await vocabulary(client);
  const range = async (text: string): Promise<[number, number]> => {
    const [row] = (await client.query<{ lo: Date | null; hi: Date | null }>(text, [storeId])).rows;
    const now = Date.now();
    return [row?.lo?.getTime() ?? now - 86_400_000 * 30, row?.hi?.getTime() ?? now];
  };
  return {
    commonWords: common,
    rareWords: rare,
    brands: await list<string>(
      `SELECT v FROM (SELECT name AS v FROM brands UNION SELECT slug FROM brands) b`,
    ),
    categories: await list<string>(
      `SELECT v FROM (SELECT slug AS v FROM categories UNION SELECT name FROM categories) c`,
    ),
    rawCategories: await list<string>(
      `SELECT DISTINCT category_raw AS v FROM products TABLESAMPLE SYSTEM (0.2) REPEATABLE (7)
       WHERE category_raw IS NOT NULL`,
    ),
    storeTypes: [...(await list<string>('SELECT slug AS v FROM store_types')), '_other'],
    suppliers: await list<number>('SELECT id AS v FROM suppliers ORDER BY id'),
    orderTerms: await list<string>(
      `SELECT v FROM (SELECT unnest(ARRAY[order_number, split_part(customer_name, ' ', 1),
         customer_name, customer_email]) AS v FROM orders WHERE store_id = $1 LIMIT 200) o`,
      [storeId],
    ),
    orderDays: await range(
      'SELECT min(created_at) AS lo, max(created_at) AS hi FROM orders WHERE store_id = $1',
    ),
    eventTimes: await range(
      'SELECT min(created_at) AS lo, max(created_at) AS hi FROM webhook_events WHERE store_id = $1',
    ),
    requestTimes: await range(
      'SELECT min(created_at) AS lo, max(created_at) AS hi FROM request_log WHERE store_id = $1',
    ),
    operations: await list<string>(
      'SELECT DISTINCT operation AS v FROM request_log WHERE store_id = $1 AND operation IS NOT NULL',
      [storeId],
    ),
    requestCredentials: await list<string>(
      `SELECT DISTINCT coalesce(credential_prefix, app_client_id) AS v FROM (
         SELECT credential_prefix, app_client_id FROM request_log WHERE store_id = $1 LIMIT 5000) r
       WHERE coalesce(credential_prefix, app_client_id) IS NOT NULL`,
      [storeId],
    ),
    idempotencyKeys: await list<string>(
      `SELECT idempotency_key AS v FROM request_log WHERE store_id = $1 AND idempotency_key IS NOT NULL
       ORDER BY created_at DESC LIMIT 200`,
      [storeId],
    ),
    inventoryCursors: await cursors(`${apiUrl}/api/v1/inventory?limit=500`, 'updated_since', headers),
    eventCursors: [
      ...(await cursors(`${apiUrl}/api/v1/events?limit=100`, 'cursor', headers)),
      ...(await cursors(`${apiUrl}/api/v1/events?limit=100&order=asc`, 'cursor', headers)),
    ],
  };
}

/** Cursors of the first pages of a walk, and of pages far into it. */
async function cursors(first: string, param: string, headers: Record<string, string>): Promise<string[]> {
  const out: string[] = [];
  let url = first;
  for (let page = 0; page < 40; page++) {
    const res = await request(url, { headers });
    const body = (await res.body.json()) as { next_cursor?: string | null };
    if (res.statusCode !== 200 || !body.next_cursor) break;
    if (page < 3 || page % 10 === 9) out.push(body.next_cursor);
    url = `${first}&${param}=${encodeURIComponent(body.next_cursor)}`;
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

/** A search term: common words, two-word phrases, rare words, misspellings, SKU fragments, noise. */
function searchTerm(r: Random, d: Domain, sku: boolean): string {
  const roll = r.next();
  if (roll < 0.35) return r.pick(d.commonWords);
  if (roll < 0.55) return `${r.pick(d.commonWords)} ${r.pick(d.commonWords)}`;
  if (roll < 0.7) return r.pick(d.rareWords);
  if (roll < 0.82) {
    // A letter dropped: full text finds nothing and the substring fallback runs.
    const w = r.pick(d.commonWords.filter((x) => x.length >= 5));
    const at = r.int(1, w.length - 2);
    return w.slice(0, at) + w.slice(at + 1);
  }
  if (roll < 0.92 && sku) return `SL-${String(r.int(1, 2_000_000)).padStart(7, '0')}`.slice(0, r.int(5, 10));
  return r.pick(['"oak table"', 'oak -table', 'oak or pine', '%_%', "o'brien", 'x', 'zzzz', '日本']);
}

/** A price at arbitrary cents: mostly inside the catalogue's range, some on band edges, some far off. */
function cents(r: Random): number {
  const roll = r.next();
  if (roll < 0.7) return r.int(0, 150_000);
  if (roll < 0.85) return r.pick(PRICE_BANDS);
  return r.logInt(1, 100_000_000);
}

/** A value for one query parameter, or undefined to leave it out of this combination. */
function valueFor(r: Random, d: Domain, endpoint: Endpoint, p: Param): string | undefined {
  const s = p.schema ?? {};
  const name = p.name;
  // A long poll waits by design; the platform-day part times it. Here every page answers at once.
  if (name === 'wait') return undefined;
  if (endpoint === '/api/v1/requests' || endpoint === '/api/v1/exports') {
    const value = logValue(r, d, name);
    if (value !== null) return value;
  }
  if (s.enum) return r.pick(s.enum);
  if (s.type === 'boolean') return String(r.chance(0.5));
  if (s.type === 'integer') {
    const max = Math.min(s.maximum ?? 1_000_000, 2_147_483_647);
    if (name.startsWith('price_')) return String(cents(r));
    if (name === 'supplier_id') return String(r.chance(0.9) ? r.pick(d.suppliers) : r.int(1, max));
    // Deep pages as well as the first ones: page 1 half the time, else anywhere up to 10,000.
    if (name === 'page') return String(r.chance(0.5) ? 1 : r.logInt(2, 10_000));
    if (name === 'limit') return String(r.chance(0.6) ? r.pick([1, 10, 20, 50, 100]) : max);
    return String(r.int(s.minimum ?? 0, Math.min(max, 1000)));
  }
  if (s.format === 'date-time') {
    const [lo, hi] = endpoint === '/api/v1/requests' ? d.requestTimes : d.eventTimes;
    return iso(r.int(lo - 86_400_000, hi + 3_600_000));
  }
  switch (name) {
    case 'search':
      return endpoint === '/api/v1/orders' ? r.pick(d.orderTerms) : searchTerm(r, d, true);
    case 'brand':
      return r.chance(0.9) ? r.pick(d.brands) : 'No Such Brand';
    case 'category': {
      const roll = r.next();
      if (roll < 0.6) return r.pick(d.categories);
      if (roll < 0.85) return r.pick(d.rawCategories);
      return r.chance(0.5) ? r.pick(d.storeTypes) : 'no-such-category';
    }
    case 'store_type':
      return r.chance(0.9) ? r.pick(d.storeTypes) : 'no-such-type';
    case 'complete_for':
      return r.chance(0.9) ? r.pick(CHANNELS) : 'fax';
    case 'missing':
      return r.pick(['weight', 'dimensions', 'either']);
    case 'include':
      return 'variants';
    case 'start_date':
    case 'end_date':
      return day(r.int(d.orderDays[0], d.orderDays[1]));
    case 'updated_since':
      return d.inventoryCursors.length ? r.pick(d.inventoryCursors) : undefined;
    case 'cursor':
      return d.eventCursors.length ? r.pick(d.eventCursors) : undefined;
    case 'type': {
      const groups = [...new Set(EVENT_NAMES.map((e) => `${e.split('.')[0]}.*`))];
      const n = r.int(1, 3);
      return Array.from({ length: n }, () => (r.chance(0.5) ? r.pick(EVENT_NAMES) : r.pick(groups))).join(
        ',',
      );
    }
    default:
      return searchTerm(r, d, false).slice(0, s.maxLength ?? 100);
  }
}

/**
 * The request log's own free strings: operations as the log names them (and ones it never saw), the
 * store's credentials and Idempotency-Keys, with a share matching nothing; null for the shared cases.
 */
function logValue(r: Random, d: Domain, name: string): string | undefined | null {
  switch (name) {
    case 'cursor':
      return WALK;
    case 'status':
      return String(r.chance(0.8) ? r.pick([200, 201, 400, 404, 409, 429, 500]) : r.int(100, 599));
    case 'operation':
      return r.chance(0.85) && d.operations.length ? r.pick(d.operations) : 'noSuchOperation';
    case 'credential':
      return r.chance(0.85) && d.requestCredentials.length ? r.pick(d.requestCredentials) : 'sl_live_nobody';
    case 'idempotency_key':
      return r.chance(0.7) && d.idempotencyKeys.length ? r.pick(d.idempotencyKeys) : 'no-such-key';
    default:
      return null;
  }
}

/** The GET operations' query parameters, as the contract documents them. */
export function contractParameters(): Record<Endpoint, Param[]> {
  const doc = buildOpenApiDocument();
  const out = {} as Record<Endpoint, Param[]>;
  for (const endpoint of GENERATED_ENDPOINTS) {
    const op = doc.paths?.[endpoint]?.get;
    if (!op) throw new Error(`the contract has no GET ${endpoint}`);
    out[endpoint] = ((op.parameters ?? []) as Param[]).filter((p) => p.in === 'query');
  }
  return out;
}

/**
 * `count` combinations, the endpoints in turn; each parameter present with a probability of 0.35
 * (so a combination carries a few filters at once, sometimes many), drawn as above.
 */
export function drawQueries(domain: Domain, count: number, seed = 27): Drawn[] {
  const r = random(seed);
  const params = contractParameters();
  const out: Drawn[] = [];
  for (let i = 0; i < count; i++) {
    const endpoint = GENERATED_ENDPOINTS[i % GENERATED_ENDPOINTS.length] as Endpoint;
    const query = new URLSearchParams();
    for (const p of params[endpoint]) {
      if (!r.chance(0.35)) continue;
      const value = valueFor(r, domain, endpoint, p);
      if (value !== undefined) query.set(p.name, value);
    }
    const q = query.toString();
    out.push({ endpoint, url: q ? `${endpoint}?${q}` : endpoint });
  }
  return out;
}

/**
 * Replaces each drawn `cursor=WALK` with a real cursor of the same combination: its pages walked from
 * the first, 1 to 10 pages deep (by the draw's position, so a run resolves the same way). A
 * combination with no page that deep is asked without a cursor.
 */
export async function resolveWalks(
  drawn: Drawn[],
  apiUrl: string,
  headers: Record<string, string>,
): Promise<Drawn[]> {
  const depths = [1, 2, 3, 10];
  const out: Drawn[] = [];
  // One at a time, as the timed passes ask: a walk is untimed, but must not crowd the others.
  for (const [i, d] of drawn.entries()) out.push(await resolveWalk(d, depths[i % depths.length] as number));
  return out;

  async function resolveWalk(d: Drawn, depth: number): Promise<Drawn> {
    const [path, q = ''] = d.url.split('?');
    const query = new URLSearchParams(q);
    if (query.get('cursor') !== WALK) return d;
    query.delete('cursor');
    const base = query.toString() ? `${path}?${query}` : `${path}`;
    let cursor: string | undefined;
    for (let page = 0; page < depth; page++) {
      const url = cursor
        ? `${base}${base.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`
        : base;
      const res = await request(apiUrl + url, { headers });
      const body = (await res.body.json()) as { next_cursor?: string | null };
      if (res.statusCode !== 200 || !body.next_cursor) break;
      cursor = body.next_cursor;
    }
    if (cursor) query.set('cursor', cursor);
    const q2 = query.toString();
    return { endpoint: d.endpoint, url: q2 ? `${path}?${q2}` : `${path}` };
  }
}
