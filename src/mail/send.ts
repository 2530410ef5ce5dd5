import type { EntityManager } from '@mikro-orm/postgresql';
import { createTransport, type Transporter } from 'nodemailer';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { rows, sql } from '../db/sql.ts';
import type { Merchant } from '../settings.ts';

export interface MailSettings {
  smtpUrl: string | undefined;
  from: string;
  merchant: Merchant;
}

/** A file attached to a message. */
export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

/**
 * What a queued message carries besides its text, by its kind, read in the sending transaction.
 * Given by the caller (the worker passes the invoice PDF, `invoiceAttachments` in
 * src/orders/invoice.ts), so mail knows nothing of the domains that queue it.
 */
export type MailAttachments = (
  tx: EntityManager,
  mail: { kind: string; order_id: number | null },
) => Promise<MailAttachment[]>;

const noAttachments: MailAttachments = async () => [];

interface Queued {
  id: number;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  order_id: number | null;
}

let transport: { url: string; t: Transporter } | undefined;
function transporter(url: string): Transporter {
  if (transport?.url !== url) transport = { url, t: createTransport(url) };
  return transport.t;
}

const MAX_ATTEMPTS = 10;
/** Wait after the n-th failed attempt (the last value repeats): about four days in all. */
const BACKOFF_MINUTES = [1, 5, 30, 120, 720, 1440];

/** An SMTP 5xx answer is final (no such user, message refused): retrying cannot help. */
function isPermanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * Sends the mail that is due, one message per transaction (locked, so workers never send one
 * twice). Without SMTP configured, messages are marked `held`: kept in mail_outbox for an operator
 * (`npm run cli -- mail:list`). A failure is recorded on its message (`attempts`, `last_error`) and
 * the message backs off on its own (1m, 5m, 30m, 2h, 12h, then daily); the run moves on, so one bad
 * message never holds up the rest. A permanent refusal (SMTP 5xx) or the tenth failure marks it
 * `failed`. When messages wait for a retry, the sender schedules itself for the earliest one.
 */
export async function sendQueuedMail(
  em: EntityManager,
  settings: MailSettings,
  attachmentsOf: MailAttachments = noAttachments,
): Promise<{ sent: number; held: number; failed: number; retrying: number }> {
  const counts = { sent: 0, held: 0, failed: 0, retrying: 0 };
  const tried: number[] = [];
  for (;;) {
    const done = await em.transactional(async (tx) => {
      const [mail] = await rows<Queued & { attempts: number }>(
        tx,
        sql`SELECT id, kind, to_address, subject, text_body, order_id, attempts FROM mail_outbox
          WHERE status = 'queued' AND next_attempt_at <= now() AND NOT (id = ANY(${tried}::integer[]))
          ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      if (!mail) return 'empty' as const;
      tried.push(mail.id);
      if (!settings.smtpUrl) {
        await rows(tx, sql`UPDATE mail_outbox SET status = 'held' WHERE id = ${mail.id}`);
        return 'held' as const;
      }
      try {
        const attachments = await attachmentsOf(tx, mail);
        await transporter(settings.smtpUrl).sendMail({
          from: settings.from,
          to: mail.to_address,
          subject: mail.subject,
          text: mail.text_body,
          attachments,
        });
      } catch (err) {
        const final = isPermanent(err) || mail.attempts + 1 >= MAX_ATTEMPTS;
        const wait = BACKOFF_MINUTES[Math.min(mail.attempts, BACKOFF_MINUTES.length - 1)] ?? 1440;
        const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
        await rows(
          tx,
          sql`UPDATE mail_outbox SET attempts = attempts + 1, last_error = ${message},
              status = ${final ? 'failed' : 'queued'}, next_attempt_at = now() + ${wait} * interval '1 minute'
            WHERE id = ${mail.id}`,
        );
        return final ? ('failed' as const) : ('retrying' as const);
      }
      await rows(
        tx,
        sql`UPDATE mail_outbox SET status = 'sent', sent_at = now(), attempts = attempts + 1 WHERE id = ${mail.id}`,
      );
      return 'sent' as const;
    });
    if (done === 'empty') break;
    counts[done]++;
  }
  await scheduleRetry(em);
  return counts;
}

/** Wakes the sender when the earliest backed-off message is due ('preserve_run_at' keeps any sooner run). */
async function scheduleRetry(em: EntityManager): Promise<void> {
  await rows(
    em,
    sql`SELECT ${keyedJob(JOBS.sendMail, { key: JOBS.sendMail, mode: 'preserve_run_at', runAt: sql`next` })}
      FROM (SELECT min(next_attempt_at) AS next FROM mail_outbox WHERE status = 'queued') m
      WHERE m.next IS NOT NULL`,
  );
}
