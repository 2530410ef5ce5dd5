import { spawn } from 'node:child_process';
import pg from 'pg';
import { request } from 'undici';
import { quantile, round } from './lib.ts';

/** Buyers placing wholesale orders at once, one order after another each. */
const BUYERS = 2;
/** How often the feed is read: 240 a minute, inside the store's inventory limit of 600. */
const POLL_MS = 250;
const QUIET_MS = Number(process.env.BENCH_LOAD_QUIET_MS ?? 20_000);

interface Phase {
  orders: number;
  errors: number;
  order_p50_ms: number;
  order_p99_ms: number;
  /** Commit of an order (its answer) to its product's change read from the store's feed. */
  feed_lag_p50_ms: number;
  feed_lag_p99_ms: number;
  feed_unseen: number;
  ms: number;
}

/**
 * Wholesale orders and the inventory feed while a long write runs beside them. Two buyers place
 * one-line orders back to back for products the feed's store lists. A reader follows that store's
 * feed every 250 ms and times each order's product from the order's answer (its commit) to the
 * first feed read that returns it. This is measured quiet, then during a bulk add of ~100,000
 * products by filter into another store, then during the operator's readiness pass over the whole
 * catalogue. A worker process runs the fan-out that fills the feed, as in production.
 */
export async function benchUnderLoad(opts: {
  databaseUrl: string;
  apiUrl: string;
  /** read_write key of the buying store. */
  orderKey: string;
  /** read key of the store whose feed is followed, and its id. */
  feedKey: string;
  feedStoreId: number;
  /** read_write key and id of an empty store for the bulk add. */
  bulkKey: string;
  bulkStoreId: number;
  node: string;
}) {
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  const worker = spawn(opts.node, ['server/main.ts', 'worker'], {
    env: { ...process.env, DATABASE_URL: opts.databaseUrl, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  try {
    // Products the feed's store lists, each with one variant stocked far beyond the run. Orders take
    // them in turn, so a product comes round again only after 5,000 orders, when its last change is
    // long in the feed: a product read from the feed is the change of the order that took it last.
    const { rows: products } = await client.query<{ product_id: number; variant_id: number }>(
      `SELECT DISTINCT ON (p.id) p.id AS product_id, v.id AS variant_id
       FROM listings l JOIN products p ON p.id = l.product_id JOIN product_variants v ON v.product_id = p.id
       WHERE l.store_id = $1 AND l.deleted_at IS NULL AND p.active AND p.purchase_mode = 'buy_now'
         AND p.image_url IS NOT NULL
       ORDER BY p.id, v.id LIMIT 5000`,
      [opts.feedStoreId],
    );
    if (products.length === 0) throw new Error('under load: the feed store lists nothing to buy');
    await client.query(
      'UPDATE product_variants SET stock_quantity = 1000000000 WHERE id = ANY($1::integer[])',
      [products.map((p) => p.variant_id)],
    );
    const { rows: floor } = await client.query<{ floor: number }>(
      'SELECT percentile_disc(0.95) WITHIN GROUP (ORDER BY retail_price_cents) AS floor FROM products WHERE active',
    );

    const phase = async <T>(during: () => Promise<T>): Promise<{ phase: Phase; result: T }> => {
      await client.query('DELETE FROM rate_limits WHERE key LIKE $1', [`%:store:${opts.feedStoreId}`]);
      let cursor = await feedHead(opts.apiUrl, opts.feedKey);
      /** Orders not yet seen in the feed, by product: when sent, and when answered. */
      const pending = new Map<number, { sent: number; answered?: number }>();
      const lags: number[] = [];
      const latencies: number[] = [];
      let errors = 0;
      let done = false;
      let next = 0;
      const started = performance.now();
      const buyer = async () => {
        while (!done) {
          const p = products[next++ % products.length] as (typeof products)[number];
          const order = { sent: performance.now() } as { sent: number; answered?: number };
          pending.set(p.product_id, order);
          const res = await request(`${opts.apiUrl}/api/v1/orders`, {
            method: 'POST',
            headers: { authorization: `Bearer ${opts.orderKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              customer: { email: 'load@example.com', name: 'Load Buyer', phone: '0400000000' },
              items: [{ product_id: p.product_id, variant_id: p.variant_id, quantity: 1 }],
              shipping: { address: '1 Load St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' },
            }),
          });
          await res.body.text();
          order.answered = performance.now();
          if (res.statusCode !== 201) {
            errors++;
            pending.delete(p.product_id);
          } else latencies.push(order.answered - order.sent);
        }
      };
      const reader = async () => {
        while (!done || pending.size > 0) {
          const page = await feedSince(opts.apiUrl, opts.feedKey, cursor);
          const read = performance.now();
          cursor = page.next_cursor;
          for (const item of page.items) {
            const order = pending.get(item.product_id);
            if (!order || order.sent > read) continue;
            // A change can reach the feed before its answer reaches the buyer: no lag then.
            lags.push(Math.max(0, read - (order.answered ?? read)));
            pending.delete(item.product_id);
          }
          if (done && performance.now() - stopped > 10_000) break;
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      };
      let stopped = 0;
      const buyers = Array.from({ length: BUYERS }, buyer);
      const reading = reader();
      const result = await during();
      done = true;
      stopped = performance.now();
      await Promise.all(buyers);
      await reading;
      return {
        result,
        phase: {
          orders: latencies.length,
          errors,
          order_p50_ms: round(quantile(latencies, 0.5)),
          order_p99_ms: round(quantile(latencies, 0.99)),
          feed_lag_p50_ms: round(quantile(lags, 0.5)),
          feed_lag_p99_ms: round(quantile(lags, 0.99)),
          feed_unseen: pending.size,
          ms: round(stopped - started),
        },
      };
    };

    // Warm-up, not reported: the worker's start, the API's first orders and feed reads.
    await phase(() => new Promise((r) => setTimeout(r, 5_000)));
    const quiet = await phase(() => new Promise((r) => setTimeout(r, QUIET_MS)));

    await client.query('DELETE FROM listings WHERE store_id = $1', [opts.bulkStoreId]);
    await client.query('DELETE FROM domain_events WHERE store_id = $1', [opts.bulkStoreId]);
    const bulk = await phase(async (): Promise<{ added: number }> => {
      const res = await request(`${opts.apiUrl}/api/v1/my-products/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.bulkKey}`, 'content-type': 'application/json' },
        // The dearest twentieth of the catalogue: ~100,000 products at 2M.
        body: JSON.stringify({ mode: 'filter', filters: { price_min_cents: floor[0]?.floor ?? 0 } }),
      });
      const body = (await res.body.json()) as { added: number };
      if (res.statusCode !== 200) throw new Error(`bulk add: ${res.statusCode} ${JSON.stringify(body)}`);
      return body;
    });

    const readiness = await phase(
      () =>
        new Promise<unknown>((resolve, reject) => {
          const cli = spawn(opts.node, ['server/cli/main.ts', 'readiness:run', '--json'], {
            env: { ...process.env, DATABASE_URL: opts.databaseUrl, LOG_LEVEL: 'silent' },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          cli.stdout.on('data', (d) => {
            out += d;
          });
          cli.on('exit', (code) =>
            code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`readiness:run exited ${code}`)),
          );
        }),
    );
    return {
      quiet: quiet.phase,
      bulk_add: { ...bulk.phase, added: bulk.result.added },
      readiness: { ...readiness.phase, pass: readiness.result },
    };
  } finally {
    worker.kill();
    await client.end();
  }
}

type FeedPage = { items: { product_id: number }[]; next_cursor: string };

async function feedSince(apiUrl: string, key: string, cursor: string | undefined): Promise<FeedPage> {
  const url = `${apiUrl}/api/v1/inventory?limit=500${cursor ? `&updated_since=${encodeURIComponent(cursor)}` : ''}`;
  const res = await request(url, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.body.json()) as FeedPage;
  if (res.statusCode !== 200) throw new Error(`inventory feed: ${res.statusCode} ${JSON.stringify(body)}`);
  return body;
}

/** The cursor at the feed's current end: walked once, untimed. */
async function feedHead(apiUrl: string, key: string): Promise<string | undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await feedSince(apiUrl, key, cursor);
    cursor = page.next_cursor;
    if (page.items.length < 500) return cursor;
  }
}
