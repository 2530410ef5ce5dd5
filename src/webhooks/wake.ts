import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';

/**
 * Wakes the delivery job in the caller's transaction, so it runs once the deliveries it will send
 * have committed. A running job keeps its key until it ends, so a wake-up during a run queues another.
 */
export async function wakeDeliveries(tx: EntityManager): Promise<void> {
  await rows(
    tx,
    sql`SELECT add_keyed_job('deliver_webhooks', '{}'::json, 'deliver_webhooks', 'replace', max_attempts => 25)`,
  );
}
