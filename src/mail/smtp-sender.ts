import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { createTransport, type Transporter } from 'nodemailer';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { type DB, db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
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
 * src/orders/tax-invoice.ts), so mail knows nothing of the domains that queue it.
 */
export type MailAttachments = (
  tx: EntityManager,
  mail: { kind: string; order_id: number | null },
) => Promise<MailAttachment[]>;

const noAttachments: MailAttachments = async () => [];

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

/** The next message due that this run has not tried, locked: a concurrent run skips it. */
function nextDue(tx: EntityManager, tried: number[]) {
  return first(
    db(tx)
      .selectFrom('mail_outbox')
      .select(['id', 'kind', 'to_address', 'subject', 'text_body', 'order_id', 'attempts'])
      // A literal: the queued-mail partial index (status = 'queued') serves this scan.
      .where('status', '=', sql.lit('queued'))
      .where('next_attempt_at', '<=', sql<string>`now()`)
      .where((eb) => eb.not(eb('id', '=', eb.fn.any(sql<number[]>`${tried}::integer[]`))))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(1)
      .forUpdate()
      .skipLocked(),
  );
}

/** A failed attempt: the message backs off, or fails for good (a permanent refusal, the last attempt). */
async function recordFailure(
  tx: EntityManager,
  mail: Pick<Selectable<DB['mail_outbox']>, 'id' | 'attempts'>,
  err: unknown,
) {
  const final = isPermanent(err) || mail.attempts + 1 >= MAX_ATTEMPTS;
  const wait = BACKOFF_MINUTES[Math.min(mail.attempts, BACKOFF_MINUTES.length - 1)] ?? 1440;
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  await run(
    db(tx)
      .updateTable('mail_outbox')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_error: message,
        status: final ? 'failed' : 'queued',
        next_attempt_at: sql`now() + ${wait} * interval '1 minute'`,
      }))
      .where('id', '=', mail.id),
  );
  return final ? ('failed' as const) : ('retrying' as const);
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
      const mail = await nextDue(tx, tried);
      if (!mail) return 'empty' as const;
      tried.push(mail.id);
      if (!settings.smtpUrl) {
        await run(db(tx).updateTable('mail_outbox').set({ status: 'held' }).where('id', '=', mail.id));
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
        return recordFailure(tx, mail, err);
      }
      await run(
        db(tx)
          .updateTable('mail_outbox')
          .set((eb) => ({ status: 'sent', sent_at: sql`now()`, attempts: eb('attempts', '+', 1) }))
          .where('id', '=', mail.id),
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
  await run(
    db(em)
      .selectFrom((eb) =>
        eb
          .selectFrom('mail_outbox')
          .select((eb) => eb.fn.min('next_attempt_at').as('next'))
          .where('status', '=', sql.lit('queued'))
          .as('m'),
      )
      .select(
        keyedJob(JOBS.sendMail, { key: JOBS.sendMail, mode: 'preserve_run_at', runAt: sql.ref('m.next') }).as(
          'job',
        ),
      )
      .where('m.next', 'is not', null),
  );
}
