import { availableParallelism } from 'node:os';
import pg from 'pg';

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
    const chunks: number[] = [];
    for (let from = lo; from <= hi; from += 500) chunks.push(from);
    // Stores are independent (a listing takes only a key-share lock on its product), so the chunks
    // load on every core at once. The last chunk, which holds the store that marks the load as done,
    // goes in alone after the others.
    const final = chunks.pop();
    const insert = (c: pg.Client, from: number) =>
      c.query(
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
    await Promise.all(
      Array.from({ length: Math.min(availableParallelism(), chunks.length) }, async () => {
        const worker = new pg.Client({ connectionString: databaseUrl });
        await worker.connect();
        try {
          for (let from = chunks.shift(); from !== undefined; from = chunks.shift())
            await insert(worker, from);
        } finally {
          await worker.end();
        }
      }),
    );
    if (final !== undefined) await insert(client, final);
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
