import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { isoTime, run } from '../db/sql.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { OwnGoodsInput } from './schemas.ts';

/** The store's own goods (products of its own suppliers) with whether each is listed: for the dashboard. */
export async function listOwnGoods(ctx: UseCaseContext, { storeId }: OwnGoodsInput) {
  return run(
    db(ctx.em)
      .selectFrom('products as p')
      .select((eb) => [
        eb.ref('p.id').as('product_id'),
        'p.sku',
        'p.name',
        'p.stock_quantity',
        eb
          .exists(
            eb
              .selectFrom('listings as l')
              .select(eb.lit(1).as('one'))
              .where(ownedBy({ storeId }, 'listings as l'))
              .whereRef('l.product_id', '=', 'p.id')
              .where('l.deleted_at', 'is', null),
          )
          .$castTo<boolean>()
          .as('listed'),
        isoTime(eb.ref('p.created_at')).as('created_at'),
      ])
      .where('p.owner_store_id', '=', storeId)
      .orderBy('p.id'),
  );
}
