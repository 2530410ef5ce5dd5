import type { EntityManager } from '@mikro-orm/postgresql';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { rows, sql } from '../db/sql.ts';

export interface QueuedMail {
  storeId: number | null;
  kind: 'invoice' | 'webhook_dead_letter' | 'webhook_disabled';
  to: string;
  subject: string;
  text: string;
  orderId?: number;
}

/**
 * Queues a message in the caller's transaction and wakes the sender; a message exists only if the
 * change that caused it committed, and is sent at least once after.
 */
export async function queueMail(tx: EntityManager, mail: QueuedMail): Promise<void> {
  await rows(
    tx,
    sql`INSERT INTO mail_outbox (store_id, kind, to_address, subject, text_body, order_id)
      VALUES (${mail.storeId}, ${mail.kind}, ${mail.to}, ${mail.subject}, ${mail.text}, ${mail.orderId ?? null})`,
  );
  await rows(
    tx,
    // 'replace': a pending sender scheduled later (a retry) is brought forward to now.
    sql`SELECT ${keyedJob(JOBS.sendMail, { key: JOBS.sendMail, mode: 'replace' })}`,
  );
}
