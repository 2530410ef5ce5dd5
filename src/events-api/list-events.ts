import { rows } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { decodeCursor, encodeCursor, LOG_START, type Position } from './cursor.ts';
import { type PageQuery, type PageRow, pageQuery } from './queries.ts';
import type { EventEnvelope, ListEventsInput } from './schemas.ts';
import { readableTypes, redacted } from './visibility.ts';
import { waitForEvents } from './wait.ts';

export const DEFAULT_LIMIT = 20;

function invalidParameter(path: string, message: string): AppError {
  return new AppError('bad_request', 'VALIDATION_FAILED', `Invalid request: ${path}: ${message}`, {
    extra: { details: [{ path, message }] },
  });
}

/**
 * A page of the store's event log, newest first or oldest first, each event as its webhooks deliver
 * it. Only events whose transaction is older than every transaction still running are read, so a
 * cursor never passes an event that commits later (see `pageQuery`). With `wait`, an empty page in
 * `asc` order is held until an event arrives or the time is up (a long poll).
 */
export async function listEvents(ctx: PartnerContext, input: ListEventsInput) {
  const { em, actor } = ctx;
  const wait = input.wait ?? 0;
  if (wait > 0 && input.order !== 'asc') throw invalidParameter('wait', 'only with order=asc');
  if (
    input.created_gte &&
    input.created_lt &&
    Date.parse(input.created_gte) >= Date.parse(input.created_lt)
  ) {
    throw invalidParameter('created_lt', 'must be after created_gte');
  }
  const types = readableTypes(actor, input.type);
  const from = input.cursor !== undefined ? await decodeCursor(em, actor.storeId, input.cursor) : null;
  const limit = input.limit ?? DEFAULT_LIMIT;
  const query: PageQuery = {
    storeId: actor.storeId,
    livemode: actor.livemode,
    types,
    from,
    order: input.order,
    limit: limit + 1,
    createdGte: input.created_gte,
    createdLt: input.created_lt,
  };
  let page = types.length > 0 ? await rows(em, pageQuery(query)) : [];
  if (page.length === 0 && wait > 0) page = await longPoll(ctx, query, Date.now() + wait * 1000);
  const shown = page.slice(0, limit);
  const last = shown.at(-1);
  // Always present: with nothing read, the position the caller already had (the start without one).
  const next: Position = last ? { xid: last.xid, id: last.id } : (from ?? LOG_START);
  return {
    events: shown.map((r) => redacted(actor, JSON.parse(r.body) as EventEnvelope)),
    next_cursor: await encodeCursor(em, actor.storeId, next),
    has_more: page.length > limit,
  };
}

/** Reads the page again each time the process's poll sees an event for it, until one shows or time is up. */
async function longPoll(ctx: PartnerContext, query: PageQuery, deadline: number): Promise<PageRow[]> {
  const waiting = { ...query, from: query.from ?? LOG_START };
  while (Date.now() < deadline) {
    if (query.types.length === 0 || !(await waitForEvents(ctx.em, waiting, deadline))) {
      // Nothing this credential may read can arrive: the wait runs its course, as an idle one would.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())));
      return [];
    }
    const page = await rows(ctx.em, pageQuery(query));
    if (page.length > 0) return page;
  }
  return [];
}
