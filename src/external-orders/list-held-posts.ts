import { db } from '../db/kysely.ts';
import { isoTime, run, sql } from '../db/sql.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { StoreRef } from './schemas.ts';

/** Held marketplace posts of a store (needing attention): what the dashboard shows to resolve. */
export function listHeldPosts(ctx: UseCaseContext, { storeId }: StoreRef) {
  return run(
    db(ctx.em)
      .selectFrom('external_orders')
      .select((eb) => [
        'id',
        'marketplace',
        'external_order_id',
        eb.ref('hold_reason').as('reason'),
        eb.ref('hold_lines').as('lines'),
        'livemode',
        isoTime(eb.ref('updated_at')).as('updated_at'),
      ])
      .where('store_id', '=', storeId)
      // A literal: the held-posts partial index (status = 'held') serves this scan.
      .where('status', '=', sql.lit('held'))
      // The output column, as before: the ISO text, which sorts as the time it shows.
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc'),
  );
}
