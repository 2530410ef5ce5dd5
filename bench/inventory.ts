import pg from 'pg';
import { round } from './lib.ts';

/** A store listing every active catalogue product (its feed holds them all), made once. */
export async function inventoryStore(databaseUrl: string, storeId: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::integer AS n FROM listings WHERE store_id = $1 AND deleted_at IS NULL',
      [storeId],
    );
    if ((rows[0]?.n ?? 0) === 0) {
      await client.query(
        `INSERT INTO listings (store_id, product_id)
         SELECT $1, id FROM products WHERE active AND owner_store_id IS NULL ORDER BY id`,
        [storeId],
      );
      // Fresh statistics, or the planner picks its join for an empty table.
      for (const table of ['inventory_feed', 'listings']) await client.query(`VACUUM ANALYZE ${table}`);
    }
    const count = await client.query<{ n: number }>(
      'SELECT count(*)::integer AS n FROM inventory_feed WHERE store_id = $1',
      [storeId],
    );
    return count.rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * A full sync: follow `next_cursor` through the whole feed in pages of 500, through the API, then
 * the same keyset walk raw (`(xid, seq) > last` ORDER BY xid, seq LIMIT 500 over the same join).
 */
export async function benchInventorySync(databaseUrl: string, apiUrl: string, key: string, storeId: number) {
  const pageLatencies: number[] = [];
  let cursor: string | undefined;
  let items = 0;
  const started = performance.now();
  for (;;) {
    const t = performance.now();
    const url = `${apiUrl}/api/v1/inventory?limit=500${cursor ? `&updated_since=${encodeURIComponent(cursor)}` : ''}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { items: unknown[]; next_cursor: string; has_more: boolean };
    if (res.status !== 200) throw new Error(`inventory sync: ${res.status} ${JSON.stringify(body)}`);
    pageLatencies.push(performance.now() - t);
    items += body.items.length;
    cursor = body.next_cursor;
    if (!body.has_more) break;
  }
  const apiMs = performance.now() - started;

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let rawItems = 0;
  const rawStarted = performance.now();
  try {
    let xid = '0';
    let seq = '0';
    for (;;) {
      const { rows } = await client.query(
        `SELECT f.product_id, f.xid::text AS xid, f.seq::text AS seq, p.sku, p.name, p.stock_quantity,
           (SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'stock_quantity', v.stock_quantity))
              FROM product_variants v WHERE v.product_id = p.id) AS variants
         FROM inventory_feed f JOIN products p ON p.id = f.product_id
         LEFT JOIN listings l ON l.store_id = f.store_id AND l.product_id = f.product_id
         WHERE f.store_id = $1 AND (f.xid, f.seq) > ($2::xid8, $3::bigint)
           AND f.xid < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY f.xid, f.seq LIMIT 500`,
        [storeId, xid, seq],
      );
      rawItems += rows.length;
      const last = rows.at(-1);
      if (!last || rows.length < 500) break;
      xid = last.xid;
      seq = last.seq;
    }
  } finally {
    await client.end();
  }
  const rawMs = performance.now() - rawStarted;
  const first = pageLatencies[0] ?? 0;
  const lastPage = pageLatencies.at(-2) ?? pageLatencies.at(-1) ?? 0;
  return {
    items,
    raw_items: rawItems,
    pages: pageLatencies.length,
    api_ms: round(apiMs),
    raw_ms: round(rawMs),
    api_rows_per_s: Math.round(items / (apiMs / 1000)),
    raw_rows_per_s: Math.round(rawItems / (rawMs / 1000)),
    throughput_ratio: round(rawMs / apiMs),
    first_page_ms: round(first),
    last_full_page_ms: round(lastPage),
    last_vs_first: round(lastPage / first),
  };
}
