import pg from 'pg';
import { Agent, request } from 'undici';
import { printTable, quantile, round } from './lib.ts';

/** Issue 27's soak targets: the last minute's rate against the first, and the p99 of every order. */
const TARGETS = { lastOverFirst: 0.9, p99: 50 };
const BUYER = {
  customer: { email: 'soak@example.com', name: 'Soak Buyer', phone: '0400000000' },
  shipping: { address: '1 Soak St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' },
};

export interface SoakMinute {
  side: 'api' | 'raw';
  minute: number;
  orders: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}
export type SoakResult = Awaited<ReturnType<typeof benchWholesaleSoak>>;

/**
 * Wholesale orders at `connections` for `minutes` against the API with its worker running (the
 * stock fan-out, the dispatcher), each order two lines of products no other order touched for the
 * last ~100,000 orders: the drift and the p99 of placing orders, not the queue on hot rows (the
 * wholesale part measures that). The raw replay of the same transaction runs `rawMinutes` before
 * and after, so a drift of the database's own state shows on both sides. Live orders: stock is taken.
 */
export async function benchWholesaleSoak(opts: {
  databaseUrl: string;
  apiUrl: string;
  rawUrl: string;
  key: string;
  minutes: number;
  rawMinutes: number;
  connections: number;
}) {
  const { minutes, rawMinutes, connections } = opts;
  const products = await soakProducts(opts.databaseUrl);
  let next = 0;
  const body = () => {
    const a = products[next++ % products.length];
    const b = products[next++ % products.length];
    return JSON.stringify({
      ...BUYER,
      items: [
        { product_id: a?.product_id, variant_id: a?.variant_id, quantity: 1 },
        { product_id: b?.product_id, variant_id: b?.variant_id, quantity: 1 },
      ],
    });
  };
  const dispatcher = new Agent({ connections });
  const run = async (side: 'api' | 'raw', base: string, forMinutes: number): Promise<SoakMinute[]> => {
    const start = performance.now();
    const end = start + forMinutes * 60_000;
    const done: { at: number; ms: number; ok: boolean }[] = [];
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const t = performance.now();
          let ok = false;
          try {
            const r = await request(`${base}/api/v1/orders`, {
              method: 'POST',
              dispatcher,
              headers: { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json' },
              body: body(),
            });
            await r.body.dump();
            ok = r.statusCode === 201;
          } catch {}
          done.push({ at: performance.now() - start, ms: performance.now() - t, ok });
        }
      }),
    );
    return Array.from({ length: forMinutes }, (_, m) => {
      const inMinute = done.filter((d) => d.at >= m * 60_000 && d.at < (m + 1) * 60_000);
      const ms = inMinute.filter((d) => d.ok).map((d) => d.ms);
      return {
        side,
        minute: m + 1,
        orders: ms.length,
        rps: round(ms.length / 60),
        p50: round(quantile(ms, 0.5)),
        p99: round(quantile(ms, 0.99)),
        errors: inMinute.length - ms.length,
      };
    });
  };
  const rawBefore = await run('raw', opts.rawUrl, rawMinutes);
  const api = await run('api', opts.apiUrl, minutes);
  const rawAfter = await run('raw', opts.rawUrl, rawMinutes);
  await dispatcher.close();
  const first = api[0]?.rps ?? 0;
  const last = api.at(-1)?.rps ?? 0;
  return {
    connections,
    products: products.length,
    minutes: [...rawBefore, ...api, ...rawAfter],
    last_over_first: round(first ? last / first : 0),
    worst_minute_p99: Math.max(...api.map((m) => m.p99)),
    errors: api.reduce((n, m) => n + m.errors, 0),
    raw_last_over_first: round(
      rawBefore.length && rawAfter.length ? (rawAfter.at(-1)?.rps ?? 0) / (rawBefore[0]?.rps || 1) : 0,
    ),
    targets: TARGETS,
  };
}

/** Catalogue products with a variant holding enough stock for the few orders that reach it again. */
async function soakProducts(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ product_id: number; variant_id: number }>(
      `SELECT DISTINCT ON (p.id) p.id AS product_id, v.id AS variant_id
       FROM products p JOIN product_variants v ON v.product_id = p.id
       WHERE p.active AND p.owner_store_id IS NULL AND p.image_url IS NOT NULL AND v.stock_quantity >= 20
       ORDER BY p.id DESC, v.id LIMIT 200000`,
    );
    // Shuffled (seeded by position) so consecutive orders do not walk one page of products.
    return rows
      .map((r, i) => ({ r, k: (i * 2654435761) % 4294967296 }))
      .sort((x, y) => x.k - y.k)
      .map((x) => x.r);
  } finally {
    await client.end();
  }
}

export function printSoak(r: SoakResult) {
  console.log(
    `\nWholesale soak: ${r.connections} connections, two lines on ${r.products} products in rotation, worker running`,
  );
  printTable(
    ['side', 'minute', 'orders', 'orders/s', 'p50 ms', 'p99 ms', 'errors'],
    r.minutes.map((m) => [
      m.side,
      `${m.minute}`,
      `${m.orders}`,
      `${m.rps}`,
      `${m.p50}`,
      `${m.p99}`,
      `${m.errors}`,
    ]),
  );
  const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(
    `API last minute / first: ${r.last_over_first} (target ≥ ${r.targets.lastOverFirst}: ${met(r.last_over_first >= r.targets.lastOverFirst)}); ` +
      `worst minute's p99 ${r.worst_minute_p99} ms (target ≤ ${r.targets.p99}: ${met(r.worst_minute_p99 <= r.targets.p99)}); ` +
      `errors ${r.errors}; raw after / raw before: ${r.raw_last_over_first}`,
  );
}
