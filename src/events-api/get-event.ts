import { rows } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { rowIdOf } from '../events/envelope.ts';
import { isEventName } from '../events/vocabulary/index.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { eventQuery } from './queries.ts';
import type { EventEnvelope, GetEventInput } from './schemas.ts';
import { canRead, redacted, refusal } from './visibility.ts';

/**
 * One event of the store, as its webhooks deliver it; another store's, one of the other mode (a test
 * key and a live event), or one past retention is 404.
 */
export async function getEvent(ctx: PartnerContext, input: GetEventInput) {
  const { em, actor } = ctx;
  const rowId = rowIdOf(input.id);
  const [row] = rowId === null ? [] : await rows(em, eventQuery(actor, rowId));
  if (!row || !isEventName(row.event)) throw notFound(`No event with id ${input.id}`, 'EVENT_NOT_FOUND');
  if (!canRead(actor, row.event)) throw refusal(row.event);
  return { event: redacted(actor, JSON.parse(row.body) as EventEnvelope) };
}
