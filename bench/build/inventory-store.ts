import pg from 'pg';

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
      // 50,000 listings spread over the catalogue (the platform's largest store), or the whole
      // catalogue when it is smaller.
      await client.query(
        `INSERT INTO listings (store_id, product_id)
         SELECT $1, id FROM products
         WHERE active AND owner_store_id IS NULL
           AND id % GREATEST(1, (SELECT count(*) FROM products) / 50000) = 0
         ORDER BY id LIMIT 50000`,
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
