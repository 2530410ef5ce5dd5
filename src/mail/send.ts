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

/**
 * Sends queued mail, one message per transaction (locked, so workers never send one twice).
 * Without SMTP configured, messages are marked `held`: kept in mail_outbox for an operator to read
 * (`npm run cli -- mail:list`). A failed send is recorded and thrown, so Graphile retries the job
 * with backoff; the message stays queued.
 */
export async function sendQueuedMail(
  em: EntityManager,
  settings: MailSettings,
): Promise<{ sent: number; held: number }> {
  let sent = 0;
  let held = 0;
  for (;;) {
    const done = await em.transactional(async (tx) => {
      const [mail] = await rows<Queued>(
        tx,
        sql`SELECT id, kind, to_address, subject, text_body, order_id FROM mail_outbox
          WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      if (!mail) return 'empty' as const;
      if (!settings.smtpUrl) {
        await rows(tx, sql`UPDATE mail_outbox SET status = 'held' WHERE id = ${mail.id}`);
        return 'held' as const;
      }
      const attachments = [];
      if (mail.kind === 'invoice' && mail.order_id !== null) {
        const invoice = await invoicePdf(tx, settings.merchant, mail.order_id);
        attachments.push({
          filename: `${invoice.invoiceNumber}.pdf`,
          content: invoice.pdf,
          contentType: 'application/pdf',
        });
      }
      try {
        await transporter(settings.smtpUrl).sendMail({
          from: settings.from,
          to: mail.to_address,
          subject: mail.subject,
          text: mail.text_body,
          attachments,
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await rows(
          tx,
          sql`UPDATE mail_outbox SET attempts = attempts + 1, last_error = ${message.slice(0, 500)} WHERE id = ${mail.id}`,
        );
        return { failed: err };
      }
      await rows(
        tx,
        sql`UPDATE mail_outbox SET status = 'sent', sent_at = now(), attempts = attempts + 1 WHERE id = ${mail.id}`,
      );
      return 'sent' as const;
    });
    // Thrown after the attempt is recorded, so the job is retried and the message stays queued.
    if (typeof done === 'object') throw done.failed;
    if (done === 'empty') return { sent, held };
    if (done === 'sent') sent++;
    else held++;
  }
}
