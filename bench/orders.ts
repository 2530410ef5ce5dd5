import autocannon from 'autocannon';
import pg from 'pg';
import { request } from 'undici';
import { alternatingRounds, round, SECONDS } from './lib.ts';

/**
 * Wholesale order placement: the same stream of orders (rotating over 20 products, plenty of stock)
 * against the API and against the raw SQL version of the same reservation.
 */
export async function benchWholesale(databaseUrl: string, urls: { api: string; raw: string }, key: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ product_id: number; variant_id: number }>(
    `SELECT DISTINCT ON (p.id) p.id AS product_id, v.id AS variant_id
     FROM products p JOIN product_variants v ON v.product_id = p.id
     WHERE p.active AND p.owner_store_id IS NULL AND p.image_url IS NOT NULL
     ORDER BY p.id, v.id LIMIT 20`,
  );
  await client.query(
    'UPDATE product_variants SET stock_quantity = 1000000000 WHERE id = ANY($1::integer[])',
    [rows.map((r) => r.variant_id)],
  );
  await client.end();
  const body = (i: number) => {
    const a = rows[i % rows.length];
    const b = rows[(i + 7) % rows.length];
    return JSON.stringify({
      customer: { email: 'bench@example.com', name: 'Bench Buyer', phone: '0400000000' },
      items: [
        { product_id: a?.product_id, variant_id: a?.variant_id, quantity: 1 },
        { product_id: b?.product_id, variant_id: b?.variant_id, quantity: 2 },
      ],
      shipping: { address: '1 Bench St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' },
    });
  };
  const run = async (url: string) => {
    let i = 0;
    const r = await autocannon({
      url,
      method: 'POST',
      connections: 10,
      duration: SECONDS,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: body(i++) }) }],
    });
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
  };
  return alternatingRounds(
    () => run(`${urls.api}/api/v1/orders`),
    () => run(`${urls.raw}/api/v1/orders`),
  );
}

/**
 * The contention round: 50 buyers at once for one variant holding 10 units, one unit each. Exactly
 * 10 orders must be placed and the rest refused with 400 `INSUFFICIENT_STOCK`, leaving 0 units; the
 * bench checks it and fails loudly otherwise.
 */
export async function contentionRound(databaseUrl: string, apiUrl: string, key: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ product_id: number; variant_id: number }>(
      `SELECT p.id AS product_id, v.id AS variant_id FROM products p JOIN product_variants v ON v.product_id = p.id
       WHERE p.active AND p.owner_store_id IS NULL AND p.purchase_mode = 'buy_now' AND p.image_url IS NOT NULL
         AND EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id)
       ORDER BY p.id DESC, v.id LIMIT 1`,
    );
    const target = rows[0];
    if (!target) throw new Error('contention round: no product to buy');
    await client.query('UPDATE product_variants SET stock_quantity = 10 WHERE id = $1', [target.variant_id]);
    const body = JSON.stringify({
      customer: { email: 'rush@example.com', name: 'Rush Buyer', phone: '0400000000' },
      items: [{ product_id: target.product_id, variant_id: target.variant_id, quantity: 1 }],
      shipping: { address: '1 Rush St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' },
    });
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await request(`${apiUrl}/api/v1/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        const text = await res.body.text();
        return {
          status: res.statusCode,
          code: res.statusCode === 201 ? undefined : (JSON.parse(text).code as string | undefined),
        };
      }),
    );
    const ms = round(performance.now() - started);
    const { rows: left } = await client.query<{ stock: number }>(
      'SELECT stock_quantity AS stock FROM product_variants WHERE id = $1',
      [target.variant_id],
    );
    const placed = answers.filter((a) => a.status === 201).length;
    const refused = answers.filter((a) => a.status === 400 && a.code === 'INSUFFICIENT_STOCK').length;
    const result = { buyers: 50, units: 10, placed, refused, stock_left: left[0]?.stock, ms };
    if (placed !== 10 || refused !== 40 || left[0]?.stock !== 0) {
      const answered = answers.map((a) => `${a.status} ${a.code ?? ''}`.trim());
      throw new Error(
        `contention round sold the wrong amount: ${JSON.stringify(result)}; answers: ${[...new Set(answered)].join(', ')}`,
      );
    }
    return result;
  } finally {
    await client.end();
  }
}
