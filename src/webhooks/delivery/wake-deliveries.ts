import type { EntityManager } from '@mikro-orm/postgresql';
import { JOBS, keyedJob } from '../../db/jobs.ts';
import { rows, sql } from '../../db/sql.ts';

/**
 * Wakes the delivery job in the caller's transaction, so it runs once the deliveries it will send
 * have committed. A running job keeps its key until it ends, so a wake-up during a run queues another.
 */
export async function wakeDeliveries(tx: EntityManager): Promise<void> {
  await rows(
    tx,
    sql`SELECT ${keyedJob(JOBS.deliverWebhooks, { key: JOBS.deliverWebhooks, mode: 'replace', maxAttempts: 25 })}`,
  );
}
