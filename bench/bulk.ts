import pg from 'pg';
import { round } from './lib.ts';

/**
 * Bulk add in filter mode through the API (HTTP, validation, the INSERT … SELECT and its events,
 * one transaction) against the same INSERT … SELECT of the listings run raw, on the same database
 * and filter. The store's listings and events are cleared before every run.
 */
export async function benchBulkAdd(opts: {
  databaseUrl: string;
  apiUrl: string;
  storeId: number;
  key: string;
  runs?: number;
}) {
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  try {
    // A retail floor at the median price matches half the catalogue: ~100,000 of 200,000 products.
    const { rows } = await client.query<{ floor: number }>(
      'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY retail_price_cents) AS floor FROM products WHERE active',
    );
    const floor = rows[0]?.floor ?? 0;
    const reset = async () => {
      await client.query('DELETE FROM listings WHERE store_id = $1', [opts.storeId]);
      await client.query('DELETE FROM domain_events WHERE store_id = $1', [opts.storeId]);
      await client.query('VACUUM listings');
    };
    const api: number[] = [];
    const raw: number[] = [];
    let matched = 0;
    for (let i = 0; i < (opts.runs ?? 3); i++) {
      await reset();
      let t = performance.now();
      const res = await fetch(`${opts.apiUrl}/api/v1/my-products/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'filter', filters: { price_min_cents: floor } }),
      });
      const body = (await res.json()) as { added: number };
      if (res.status !== 200) throw new Error(`bulk add failed: ${res.status} ${JSON.stringify(body)}`);
      api.push(performance.now() - t);
      matched = body.added;

      await reset();
      t = performance.now();
      const r = await client.query(
        `INSERT INTO listings (store_id, product_id)
         SELECT $1, p.id FROM products p
         WHERE p.active AND (p.owner_store_id IS NULL OR p.owner_store_id = $1) AND p.retail_price_cents >= $2
         ON CONFLICT DO NOTHING`,
        [opts.storeId, floor],
      );
      raw.push(performance.now() - t);
      if (r.rowCount !== matched) throw new Error(`raw inserted ${r.rowCount}, API added ${matched}`);
    }
    await reset();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const apiMs = median(api);
    const rawMs = median(raw);
    return {
      matched,
      api_ms: round(apiMs),
      raw_ms: round(rawMs),
      api_rows_per_s: Math.round(matched / (apiMs / 1000)),
      raw_rows_per_s: Math.round(matched / (rawMs / 1000)),
      speed_ratio: round(rawMs / apiMs),
    };
  } finally {
    await client.end();
  }
}
