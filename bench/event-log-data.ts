import type pg from 'pg';

/** Kinds as a busy store sees them: half stock changes, a third product changes, the rest orders. */
export const EVENT_MIX = [
  'inventory.updated',
  'inventory.updated',
  'inventory.updated',
  'product.updated',
  'product.updated',
  'order.created',
  'order.updated',
  'order.shipped',
  'invoice.issued',
  'product.created',
];

/**
 * Loads `n` events of `storeId` (live mode), one transaction per 50,000: bodies as the log stores
 * them, created over the last 30 days in id order. Thirty days written at once are stamped `in_order`
 * as the trigger stamped them when each was logged (within minutes of its `created_at`); the caller
 * runs `webhook_events_reclassify()` once every store is loaded, to judge them against the rest of
 * the log as the migration judged the log it found.
 */
export async function seedEventLog(pool: pg.Pool, storeId: number, n: number): Promise<void> {
  for (let done = 0; done < n; done += 50_000) {
    const batch = Math.min(50_000, n - done);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('ALTER TABLE webhook_events DISABLE TRIGGER webhook_events_in_order');
      await client.query(
        `INSERT INTO webhook_events (id, store_id, event, event_key, body, created_at, livemode, in_order) OVERRIDING SYSTEM VALUE
         SELECT n.id, $1, n.kind, n.kind || ':' || n.g, '{"id":"evt_' || n.id || '","event":"' || n.kind
           || '","event_key":"' || n.kind || ':' || n.g || '","created_at":"2026-11-01T00:00:00.000Z","livemode":true,'
           || '"data":{"product_id":' || n.g || '}}',
           now() - interval '30 days' + (($2::int + n.g) * (interval '30 days' / $3::int)), true, true
         FROM (SELECT nextval(pg_get_serial_sequence('webhook_events', 'id')) AS id, g,
                 ($5::text[])[1 + (g % $6::int)] AS kind
               FROM generate_series(1, $4::int) g) n`,
        [storeId, done, n, batch, EVENT_MIX, EVENT_MIX.length],
      );
      await client.query('ALTER TABLE webhook_events ENABLE TRIGGER webhook_events_in_order');
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  }
}
