import type { EntityManager } from '@mikro-orm/postgresql';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { db } from '../db/kysely.ts';
import { rows, run, sql } from '../db/sql.ts';

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
  await run(
    db(tx)
      .insertInto('mail_outbox')
      .values({
        store_id: mail.storeId,
        kind: mail.kind,
        to_address: mail.to,
        subject: mail.subject,
        text_body: mail.text,
        order_id: mail.orderId ?? null,
      }),
  );
  await rows(
    tx,
    // 'replace': a pending sender scheduled later (a retry) is brought forward to now.
    sql`SELECT ${keyedJob(JOBS.sendMail, { key: JOBS.sendMail, mode: 'replace' })}`,
  );
}
