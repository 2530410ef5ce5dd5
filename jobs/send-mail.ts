import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { type MailSettings, sendQueuedMail } from '../src/mail/smtp-sender.ts';
import { invoiceAttachments } from '../src/orders/tax-invoice.ts';

/** `send_mail` (no payload): sends what is due in the mail outbox, invoices with their PDF. */
export function sendMailTask(orm: Orm, mail: MailSettings): Task {
  return async (payload, helpers) => {
    parseJobPayload(JOBS.sendMail, payload);
    const c = await sendQueuedMail(orm.em.fork(), mail, invoiceAttachments(mail.merchant));
    if (c.sent + c.held + c.failed + c.retrying) {
      helpers.logger.info(
        `mail: ${c.sent} sent, ${c.held} held (no SMTP), ${c.failed} failed, ${c.retrying} to retry`,
      );
    }
  };
}
