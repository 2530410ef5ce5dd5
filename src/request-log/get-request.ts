import { rows } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { requestQuery, toLoggedRequest } from './queries.ts';
import type { GetRequestInput } from './schemas.ts';

/** One request of the store's log by its id; another store's, the other mode's or another app's is 404. */
export async function getRequest(ctx: PartnerContext, input: GetRequestInput) {
  const [row] = await rows(ctx.em, requestQuery(ctx.actor, input.request_id));
  if (!row) throw notFound(`No logged request with id ${input.request_id}`, 'REQUEST_NOT_FOUND');
  return { request: toLoggedRequest(row) };
}
