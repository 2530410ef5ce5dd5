import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import pg from 'pg';
import { request } from 'undici';
import type { Position } from '../src/inventory/cursor.ts';
import { FEED_START, type FeedRow, feedPage } from '../src/inventory/queries.ts';
import { round } from './lib.ts';

const PAGE = 500;
/** Requests per page latency sample (p50). */
const SAMPLES = 25;

/** Compiles statements only (kysely needs a dialect for that); the raw walk sends them with bare pg. */
const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const p50 = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0);

/**
 * A full sync: follow `next_cursor` through the whole feed in pages of 500 through the API, and the
 * same keyset walk raw: the API's own feed statement (`feedPage`, page + 1 rows to know whether there
 * is more), sent with a bare pg client, rows parsed by pg and nothing else. Same rows, same columns,
 * same keyset. Each side uses its plainest client: pg for the raw walk, undici's `request` for the
 * API (autocannon's kind of client, as in the other scenarios; `fetch` adds its WHATWG streams layer,
 * ~1 ms a 250 KB page here, to the API's figure). Both sides get untimed pages first, so neither pays
 * the first-request warm-up in its figure. Then the first page and the last full page are each
 * requested SAMPLES times and their p50 compared: a keyset read must not slow down with depth.
 */
export async function benchInventorySync(databaseUrl: string, apiUrl: string, key: string, storeId: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // The run makes ~460 requests against the store's limit of 600 a minute: start with a whole
    // allowance so runs in a row are not refused (every request still pays the limiter's upsert).
    await client.query('DELETE FROM rate_limits WHERE key = $1', [`inventory:store:${storeId}`]);

    const get = async (cursor: string | undefined) => {
      const url = `${apiUrl}/api/v1/inventory?limit=${PAGE}${cursor ? `&updated_since=${encodeURIComponent(cursor)}` : ''}`;
      const res = await request(url, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.body.json()) as { items: unknown[]; next_cursor: string; has_more: boolean };
      if (res.statusCode !== 200)
        throw new Error(`inventory sync: ${res.statusCode} ${JSON.stringify(body)}`);
      return body;
    };
    const raw = async (from: Position) => {
      const { sql, parameters } = feedPage(storeId, from, PAGE + 1).compile(compiler);
      const { rows } = await client.query<FeedRow>(sql, parameters as unknown[]);
      const last = rows[Math.min(rows.length, PAGE) - 1];
      return { count: Math.min(rows.length, PAGE), next: last ?? from, more: rows.length > PAGE };
    };

    // Warm-up, untimed.
    let warm: string | undefined;
    let warmFrom = FEED_START;
    for (let i = 0; i < 20; i++) {
      warm = (await get(warm)).next_cursor;
      warmFrom = (await raw(warmFrom)).next;
    }

    // Both walks run page by page in turn (API first on even pages, raw first on odd ones), each
    // following its own cursor, and each side's time is the sum of its pages: load from elsewhere on
    // the machine then falls on both alike instead of on whichever walk it happened to overlap.
    // `cursors[i]` and `positions[i]` fetched page i: kept to request the last full page again below.
    const cursors: (string | undefined)[] = [];
    const positions: Position[] = [];
    let cursor: string | undefined;
    let from = FEED_START;
    let apiMore = true;
    let rawMore = true;
    let items = 0;
    let rawItems = 0;
    let apiMs = 0;
    let rawMs = 0;
    const apiStep = async () => {
      cursors.push(cursor);
      const t = performance.now();
      const body = await get(cursor);
      apiMs += performance.now() - t;
      items += body.items.length;
      cursor = body.next_cursor;
      apiMore = body.has_more;
    };
    const rawStep = async () => {
      positions.push(from);
      const t = performance.now();
      const page = await raw(from);
      rawMs += performance.now() - t;
      rawItems += page.count;
      from = page.next;
      rawMore = page.more;
    };
    for (let page = 0; apiMore || rawMore; page++) {
      if (page % 2 === 0) {
        if (apiMore) await apiStep();
        if (rawMore) await rawStep();
      } else {
        if (rawMore) await rawStep();
        if (apiMore) await apiStep();
      }
    }

    // The last page is usually short: the last full one is the one before it. First and last are
    // requested in turn, so both see the same conditions.
    const lastFull = Math.max(0, cursors.length - 2);
    const times = {
      first: [] as number[],
      last: [] as number[],
      rawFirst: [] as number[],
      rawLast: [] as number[],
    };
    const time = async (into: number[], fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      into.push(performance.now() - t);
    };
    for (let i = 0; i < SAMPLES; i++) {
      await time(times.first, () => get(undefined));
      await time(times.last, () => get(cursors[lastFull]));
      await time(times.rawFirst, () => raw(FEED_START));
      await time(times.rawLast, () => raw(positions[lastFull] ?? FEED_START));
    }
    const first = p50(times.first);
    const lastPage = p50(times.last);
    return {
      items,
      raw_items: rawItems,
      pages: cursors.length,
      api_ms: round(apiMs),
      raw_ms: round(rawMs),
      api_rows_per_s: Math.round(items / (apiMs / 1000)),
      raw_rows_per_s: Math.round(rawItems / (rawMs / 1000)),
      throughput_ratio: round(items / apiMs / (rawItems / rawMs)),
      first_page_p50_ms: first,
      last_full_page_p50_ms: lastPage,
      last_vs_first: round(lastPage / first),
      raw_first_page_p50_ms: p50(times.rawFirst),
      raw_last_full_page_p50_ms: p50(times.rawLast),
    };
  } finally {
    await client.end();
  }
}
