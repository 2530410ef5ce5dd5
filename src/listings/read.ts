import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression, ExpressionBuilder, InferResult, SqlBool } from 'kysely';
import type { z } from 'zod';
import { EFFECTIVE_PURCHASE_MODE, SELLABLE_STOCK } from '../catalogue/filters.ts';
import { type DB, db } from '../db/kysely.ts';
import { first, isoTime, likePattern, pageOffset, pagination, run, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { ListingListItem, ListListingsInput, listingDetail } from './schemas.ts';

type Item = ListingListItem;
type Variant = NonNullable<Item['variants']>[number];

/** A store's listings joined with their products; `l` and `p` as everywhere in the catalogue. */
type Listed = ExpressionBuilder<DB & { l: DB['listings']; p: DB['products'] }, 'l' | 'p'>;

/** The channels a listing is kept off: the supplier's and the store's own, sorted. */
export const HIDDEN_CHANNELS = sql<
  Item['hidden_channels']
>`ARRAY(SELECT DISTINCT c FROM unnest(p.hidden_channels || l.hidden_channels) c ORDER BY c)`;

const columns = (eb: Listed) =>
  [
    'l.id',
    eb.ref('p.id').as('product_id'),
    'p.name',
    'l.custom_title',
    'p.sku',
    'p.image_url',
    'p.wholesale_price_cents',
    'p.retail_price_cents',
    'l.custom_retail_price_cents',
    eb.fn.coalesce('l.custom_retail_price_cents', 'p.retail_price_cents').as('effective_retail_price_cents'),
    EFFECTIVE_PURCHASE_MODE.$castTo<Item['purchase_mode']>().as('purchase_mode'),
    'l.vendor_fulfilled',
    eb.fn
      .coalesce(eb('p.owner_store_id', '=', eb.ref('l.store_id')), eb.lit(false))
      .$castTo<Item['own_goods']>()
      .as('own_goods'),
    'p.active',
    SELLABLE_STOCK.$castTo<Item['stock_quantity']>().as('stock_quantity'),
    HIDDEN_CHANNELS.as('hidden_channels'),
    isoTime(eb.ref('p.withdrawn_at')).$castTo<Item['withdrawn_at']>().as('withdrawn_at'),
    isoTime(eb.ref('l.created_at')).as('created_at'),
    isoTime(eb.ref('l.updated_at')).as('updated_at'),
  ] as const;

/** The store's live listings with their products and the columns above. */
const live = (em: EntityManager, storeId: number) =>
  db(em)
    .selectFrom('listings as l')
    .innerJoin('products as p', 'p.id', 'l.product_id')
    .select(columns)
    .where('l.store_id', '=', storeId)
    .where('l.deleted_at', 'is', null);

type Row = InferResult<ReturnType<typeof live>>[number];

/**
 * A variant can be bought when its product is still in the catalogue, the listing sells by card
 * (not quote-only), and the variant has stock.
 */
function availableForSale(listing: Row, quantity: number): boolean {
  return listing.active && listing.purchase_mode === 'buy_now' && quantity > 0;
}

function base(r: Row) {
  const { active: _active, ...rest } = r;
  return { ...rest, in_stock: r.stock_quantity > 0 };
}

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

async function variantsOf(em: EntityManager, productIds: number[]) {
  const ids = sql<number[]>`${productIds}::integer[]`;
  const [variants, options] = await Promise.all([
    run(
      db(em)
        .selectFrom('product_variants')
        .select((eb) => [
          'product_id',
          'id',
          'sku',
          'title',
          eb.ref('option_values').$castTo<Variant['option_values']>().as('option_values'),
          'retail_price_cents',
          'stock_quantity',
        ])
        .where('product_id', '=', (eb) => eb.fn.any(ids))
        .where('retired_at', 'is', null)
        .orderBy('product_id')
        .orderBy('position')
        .orderBy('id'),
    ),
    run(
      db(em)
        .selectFrom('product_options')
        .select(['product_id', 'name', 'values'])
        .where('product_id', '=', (eb) => eb.fn.any(ids))
        .orderBy('product_id')
        .orderBy('position')
        .orderBy('id'),
    ),
  ]);
  const byProduct = <T extends { product_id: number }>(list: T[]) => {
    const map = new Map<number, T[]>();
    for (const item of list) map.set(item.product_id, [...(map.get(item.product_id) ?? []), item]);
    return map;
  };
  return { variants: byProduct(variants), options: byProduct(options) };
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

export async function listListings(em: EntityManager, storeId: number, input: ListListingsInput) {
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

export async function getListing(em: EntityManager, storeId: number, productId: number) {
  const row = await first(live(em, storeId).where('l.product_id', '=', productId));
  if (!row) throw notFound(`Product ${productId} is not in your store`, 'NOT_IN_STORE');
  const extra = await variantsOf(em, [productId]);
  const product: z.output<typeof listingDetail> = {
    ...base(row),
    options: (extra.options.get(productId) ?? []).map((o) => ({ name: o.name, values: o.values })),
    variants: (extra.variants.get(productId) ?? []).map((v) => ({
      id: v.id,
      sku: v.sku,
      title: v.title,
      option_values: v.option_values,
      price_cents: row.custom_retail_price_cents ?? v.retail_price_cents,
      available_for_sale: availableForSale(row, v.stock_quantity),
      quantity_available: row.withdrawn_at ? 0 : v.stock_quantity,
    })),
  };
  return { product };
}
