import { db } from '../db/kysely.ts';
import { isoTime, run } from '../db/sql.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { ListMailInput } from './schemas.ts';

/** The mail outbox for operators: where messages are kept when no SMTP server is configured. */
export function listMail(ctx: UseCaseContext, { status }: ListMailInput) {
  const mail = db(ctx.em)
    .selectFrom('mail_outbox')
    .select((eb) => [
      'id',
      'kind',
      eb.ref('to_address').as('to'),
      'subject',
      'status',
      'order_id',
      isoTime(eb.ref('created_at')).as('created_at'),
    ]);
  return run((status ? mail.where('status', '=', status) : mail).orderBy('id', 'desc').limit(100));
}
