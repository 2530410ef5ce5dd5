import autocannon from 'autocannon';
import pg from 'pg';
import { request } from 'undici';
import { round, SECONDS } from './lib.ts';

/** Gives the bench store `count` orders (set-based, deterministic), once; later runs reuse them. */
export async function seedOrders(databaseUrl: string, storeId: number, count: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::integer AS n FROM orders WHERE store_id = $1',
      [storeId],
    );
    const missing = count - (rows[0]?.n ?? 0);
    if (missing <= 0) return;
    const names = [
      'Ann Smith',
      'Bo Chen',
      'Cara Nguyen',
      'Dev Patel',
      'Eli Jones',
      'Fay Wilson',
      'Gus Brown',
    ];
    const channels = [
      'facebook_instagram',
      'google',
      'vendor_link',
      'email',
      'other_referral',
      'direct',
      'unknown',
    ];
    const statuses = ['pending', 'processing', 'fulfilled', 'shipped', 'delivered', 'cancelled'];
    await client.query(
      `INSERT INTO orders (store_id, order_number, status, order_type, channel, customer_name, customer_email,
         ship_address, ship_city, ship_state, ship_zip, ship_country, subtotal_cents, total_cents, tracking_number,
         needs_attention, created_at, updated_at)
       SELECT $1, 'SL-' || nextval('order_number_seq'), ($4::text[])[1 + g % 6], 'storefront', ($3::text[])[1 + g % 7],
         ($2::text[])[1 + g % 7] || ' ' || g, 'buyer' || g || '@example.com', g || ' Bench Street', 'Sydney', 'NSW',
         '2000', 'AU', 1000 + g % 50000, 1000 + g % 50000,
         CASE WHEN g % 6 IN (3, 4) THEN 'TRK' || g END, g % 97 = 0,
         timestamptz '2026-01-01' + g * interval '2 minutes', timestamptz '2026-01-01' + g * interval '2 minutes'
       FROM generate_series(1, $5::integer) g`,
      [storeId, names, channels, statuses, missing],
    );
    await client.query(
      `INSERT INTO order_lines (order_id, product_id, variant_id, sku, name, quantity, price_cents)
       SELECT o.id, v.product_id, v.id, v.sku, 'Bench line', 1 + o.id % 3, o.total_cents
       FROM orders o JOIN product_variants v ON v.id = 1 + o.id % 1000
       WHERE o.store_id = $1 AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id)`,
      [storeId],
    );
    await client.query('VACUUM ANALYZE orders');
    await client.query('VACUUM ANALYZE order_lines');
  } finally {
    await client.end();
  }
}

/**
 * The platform stores' listings: store k lists 100 to 2,000 products (most near the low end, a
 * skewed draw), spread over the catalogue, a third of them re-priced. 500 stores per statement, so
 * no transaction runs long; skipped when the stores already list.
 */
export async function seedPlatformListings(databaseUrl: string, stores: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ lo: number | null; hi: number | null }>(
      "SELECT min(id) AS lo, max(id) AS hi FROM stores WHERE slug LIKE 'platform-%'",
    );
    const { lo, hi } = rows[0] ?? { lo: null, hi: null };
    if (lo === null || hi === null || hi - lo + 1 < stores) return;
    const { rows: last } = await client.query('SELECT 1 FROM listings WHERE store_id = $1 LIMIT 1', [hi]);
    if (last.length) return;
    const { rows: span } = await client.query<{ n: number }>('SELECT max(id) AS n FROM products');
    const products = span[0]?.n ?? 0;
    for (let from = lo; from <= hi; from += 500) {
      await client.query(
        `INSERT INTO listings (store_id, product_id, custom_retail_price_cents)
         SELECT s.id, p.id, CASE WHEN (hashint4(s.id * 7919 + i) & 3) = 0 THEN p.retail_price_cents + 1000 END
         FROM generate_series($1::integer, $2::integer) s (id)
         CROSS JOIN LATERAL generate_series(1,
           100 + floor(1900 * power((hashint4(s.id) & 2147483647) / 2147483648.0, 3))::integer) i
         JOIN products p ON p.id = 1 + (hashint4(s.id * 100003 + i) & 2147483647) % $3
         WHERE p.active AND p.owner_store_id IS NULL
         ON CONFLICT (store_id, product_id) DO NOTHING`,
        [from, Math.min(hi, from + 499), products],
      );
    }
    for (const table of ['listings', 'inventory_feed', 'store_cells'])
      await client.query(`VACUUM ANALYZE ${table}`);
  } finally {
    await client.end();
  }
}

/**
 * The rest of the platform: `stores` other stores (slugs `platform-N`) sharing `orders` orders, a
 * few dozen to a few hundred each, so the orders table holds a platform's worth beside the bench
 * store's. Set-based, and skipped when already there.
 */
export async function seedPlatformOrders(databaseUrl: string, stores: number, orders: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::integer AS n FROM orders o JOIN stores s ON s.id = o.store_id WHERE s.slug LIKE 'platform-%'",
    );
    if ((rows[0]?.n ?? 0) >= orders) return;
    await client.query(
      `INSERT INTO stores (name, slug) SELECT 'Platform store ' || g, 'platform-' || g
       FROM generate_series(1, $1::integer) g ON CONFLICT (slug) DO NOTHING`,
      [stores],
    );
    // Order g goes to a store drawn with a skew (the square of a uniform draw), so a few stores hold
    // many orders and most hold a few dozen.
    await client.query(
      `INSERT INTO orders (store_id, order_number, status, order_type, channel, customer_name, customer_email,
         ship_address, ship_city, ship_state, ship_zip, ship_country, subtotal_cents, total_cents,
         tracking_number, needs_attention, created_at, updated_at)
       SELECT s.id, 'SL-' || nextval('order_number_seq'),
         (ARRAY['pending','processing','fulfilled','shipped','delivered','cancelled'])[1 + g % 6], 'storefront',
         (ARRAY['facebook_instagram','google','vendor_link','email','other_referral','direct','unknown'])[1 + g % 7],
         'Buyer ' || g, 'buyer' || g || '@example.com', g || ' Platform Street', 'Melbourne', 'VIC', '3000', 'AU',
         1000 + g % 40000, 1000 + g % 40000, CASE WHEN g % 6 IN (3, 4) THEN 'TRK' || g END, g % 89 = 0,
         timestamptz '2025-06-01' + g * interval '30 seconds', timestamptz '2025-06-01' + g * interval '30 seconds'
       FROM generate_series(1, $2::integer) g
       JOIN stores s ON s.slug = 'platform-' || (1 + floor(power((hashint4(g) & 2147483647) / 2147483648.0, 2) * $1))::integer`,
      [stores, orders],
    );
    await client.query('VACUUM ANALYZE orders');
  } finally {
    await client.end();
  }
}

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
  const api = await run(`${urls.api}/api/v1/orders`);
  const raw = await run(`${urls.raw}/api/v1/orders`);
  return { api, raw, throughput_ratio: round(api.rps / raw.rps) };
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
