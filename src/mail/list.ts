import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';

/** The mail outbox for operators: where messages are kept when no SMTP server is configured. */
export function listMail(em: EntityManager, status?: 'queued' | 'sent' | 'held' | 'failed') {
  return rows<{
    id: number;
    kind: string;
    to: string;
    subject: string;
    status: string;
    order_id: number | null;
    created_at: string;
  }>(
    em,
    sql`SELECT id, kind, to_address AS to, subject, status, order_id, ${isoTime(sql`created_at`)} AS created_at
      FROM mail_outbox ${status ? sql`WHERE status = ${status}` : sql``} ORDER BY id DESC LIMIT 100`,
  );
}
