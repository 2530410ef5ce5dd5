import type { EntityManager } from '@mikro-orm/postgresql';
import { createTransport, type Transporter } from 'nodemailer';
import { rows, sql } from '../db/sql.ts';
import { invoicePdf } from '../orders/invoice.ts';
import type { Merchant } from '../orders/invoice-pdf.ts';

export interface MailSettings {
  smtpUrl: string | undefined;
  from: string;
  merchant: Merchant;
}

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

/** An SMTP 5xx answer is final (no such user, message refused): retrying cannot help. */
function isPermanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * Sends queued mail, one message per transaction (locked, so workers never send one twice).
 * Without SMTP configured, messages are marked `held`: kept in mail_outbox for an operator to read
 * (`npm run cli -- mail:list`). A failure is recorded on its message (`attempts`, `last_error`) and
 * the run moves on to the others, so one bad message never holds up the rest. A permanent refusal
 * (SMTP 5xx) or the tenth failure marks the message `failed`; otherwise it stays queued and the run
 * ends by throwing, so Graphile retries the job with backoff.
 */
export async function sendQueuedMail(
  em: EntityManager,
  settings: MailSettings,
): Promise<{ sent: number; held: number; failed: number }> {
  let sent = 0;
  let held = 0;
  let failed = 0;
  const tried: number[] = [];
  let retryLater: unknown;
  for (;;) {
    const done = await em.transactional(async (tx) => {
      const [mail] = await rows<Queued & { attempts: number }>(
        tx,
        sql`SELECT id, kind, to_address, subject, text_body, order_id, attempts FROM mail_outbox
          WHERE status = 'queued' AND NOT (id = ANY(${tried}::integer[]))
          ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      if (!mail) return 'empty' as const;
      tried.push(mail.id);
      if (!settings.smtpUrl) {
        await rows(tx, sql`UPDATE mail_outbox SET status = 'held' WHERE id = ${mail.id}`);
        return 'held' as const;
      }
      try {
        const attachments = [];
        if (mail.kind === 'invoice' && mail.order_id !== null) {
          const invoice = await invoicePdf(tx, settings.merchant, mail.order_id);
          attachments.push({
            filename: `${invoice.invoiceNumber}.pdf`,
            content: invoice.pdf,
            contentType: 'application/pdf',
          });
        }
        await transporter(settings.smtpUrl).sendMail({
          from: settings.from,
          to: mail.to_address,
          subject: mail.subject,
          text: mail.text_body,
          attachments,
        });
      } catch (err) {
        const final = isPermanent(err) || mail.attempts + 1 >= MAX_ATTEMPTS;
        const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
        await rows(
          tx,
          sql`UPDATE mail_outbox SET attempts = attempts + 1, last_error = ${message},
              status = ${final ? 'failed' : 'queued'} WHERE id = ${mail.id}`,
        );
        if (!final) retryLater ??= err;
        return 'failed' as const;
      }
      await rows(
        tx,
        sql`UPDATE mail_outbox SET status = 'sent', sent_at = now(), attempts = attempts + 1 WHERE id = ${mail.id}`,
      );
      return 'sent' as const;
    });
    if (done === 'empty') break;
    if (done === 'sent') sent++;
    else if (done === 'held') held++;
    else failed++;
  }
  // Thrown after every message had its turn, so Graphile retries the ones that may yet succeed.
  if (retryLater) throw retryLater;
  return { sent, held, failed };
}
