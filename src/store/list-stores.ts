import { db } from '../db/kysely.ts';
import { isoTime, run, sql } from '../db/sql.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { ListStoresInput } from './schemas.ts';

/** Every store, oldest first, with how many products it lists now (the CLI's `stores:list`). */
export async function listStores(ctx: Pick<UseCaseContext, 'em'>, _input: ListStoresInput) {
  const stores = await run(
    db(ctx.em)
      .selectFrom('stores as s')
      .select((eb) => [
        's.id',
        's.name',
        's.slug',
        sql<number>`(SELECT count(*)::integer FROM listings l
          WHERE l.store_id = ${eb.ref('s.id')} AND l.deleted_at IS NULL)`.as('listings_count'),
        isoTime(eb.ref('s.created_at')).as('created_at'),
      ])
      .orderBy('s.id'),
  );
  return { stores };
}
