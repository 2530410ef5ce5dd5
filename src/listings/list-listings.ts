import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { first, likePattern, pageOffset, pagination, run, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { availableForSale, base, type Item, type Listed, live, variantsOf } from './queries.ts';
import type { ListListingsInput } from './schemas.ts';

type Filter = (eb: Listed) => Expression<SqlBool>;

function filters(input: ListListingsInput): Filter[] {
  const conds: Filter[] = [];
  if (input.search) {
    const pattern = likePattern(input.search);
    conds.push((eb) => eb.or([eb('p.name', 'ilike', pattern), eb('p.sku', 'ilike', pattern)]));
  }
  const noWeight: Filter = (eb) => eb('p.weight_oz', 'is', null);
  const noDims: Filter = (eb) =>
    eb.or([eb('p.width_cm', 'is', null), eb('p.depth_cm', 'is', null), eb('p.height_cm', 'is', null)]);
  if (input.missing === 'weight') conds.push(noWeight);
  if (input.missing === 'dimensions') conds.push(noDims);
  if (input.missing === 'either') conds.push((eb) => eb.or([noWeight(eb), noDims(eb)]));
  if (input.own_goods) conds.push((eb) => eb('p.owner_store_id', '=', eb.ref('l.store_id')));
  return conds;
}

/** How many listings the filters match. */
function counted(em: EntityManager, storeId: number, conds: Filter[]) {
  const total = (eb: ExpressionBuilder<DB & { l: DB['listings'] }, 'l'>) =>
    eb.cast<number>(eb.fn.countAll(), 'integer').as('total');
  // Unfiltered, the total is the store's live listings alone (each has its product: a foreign key),
  // an index-only count; joining products cost a lookup per listing (0.7 s for 50,000).
  if (!conds.length) {
    return first(
      db(em)
        .selectFrom('listings as l')
        .select(total)
        .where('l.store_id', '=', storeId)
        .where('l.deleted_at', 'is', null),
    );
  }
  const joined = db(em)
    .selectFrom('listings as l')
    .innerJoin('products as p', 'p.id', 'l.product_id')
    .select(total)
    .where('l.store_id', '=', storeId)
    .where('l.deleted_at', 'is', null);
  return first(conds.reduce((q, cond) => q.where(cond), joined));
}

export async function listListings(ctx: PartnerContext, input: ListListingsInput) {
  const { em } = ctx;
  const { storeId } = ctx.actor;
  const conds = filters(input);
  const listed = conds.reduce((q, cond) => q.where(cond), live(em, storeId));
  const [count, page] = await Promise.all([
    counted(em, storeId, conds),
    run(
      listed
        .orderBy('l.created_at', 'desc')
        .orderBy('l.id', 'desc')
        .limit(input.limit)
        .offset(sql<number>`${pageOffset(input.page, input.limit)}`),
    ),
  ]);
  const extra =
    input.include && page.length
      ? await variantsOf(
          em,
          page.map((r) => r.product_id),
        )
      : undefined;
  const products: Item[] = page.map((r) => {
    if (!extra) return base(r);
    return {
      ...base(r),
      options: (extra.options.get(r.product_id) ?? []).map((o) => o.name),
      variants: (extra.variants.get(r.product_id) ?? []).map((v) => ({
        id: v.id,
        sku: v.sku,
        title: v.title,
        option_values: v.option_values,
        available_for_sale: availableForSale(r, v.stock_quantity),
        quantity_available: r.withdrawn_at ? 0 : v.stock_quantity,
      })),
    };
  });
  return {
    products,
    pagination: pagination(input.page, input.limit, count?.total ?? 0),
  };
}
