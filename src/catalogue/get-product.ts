import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression, ExpressionBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import { db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, isoTime, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { loadCatalogueContext, type StoreCatalogueContext } from '../store/catalogue-context.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { EARN_PER_SALE, EFFECTIVE_PURCHASE_MODE, minimumPrice, visibility } from './filters.ts';
import { toCatalogueProduct } from './product-item.ts';
import type { ProductDetail, ProductIdInput } from './schemas.ts';

/** The answer's shape types what kysely cannot: the raw price rules, json columns, float casts. */
type Detail = ProductDetail;
type Dimension = NonNullable<Detail['assembled_dimensions']>['width_cm'];

/** Products with this store's live listing, if any (as filters.ts catalogueFrom), and their names. */
function detailFrom(em: EntityManager, ctx: StoreCatalogueContext) {
  return db(em)
    .selectFrom('products as p')
    .leftJoin('listings as l', (join) =>
      join
        .onRef('l.product_id', '=', 'p.id')
        .on(ownedBy(ctx, 'listings as l'))
        .on('l.deleted_at', 'is', null),
    )
    .leftJoin('categories as c', 'c.id', 'p.category_id')
    .leftJoin('brands as b', 'b.id', 'p.brand_id');
}
type Row =
  ReturnType<typeof detailFrom> extends SelectQueryBuilder<infer D, infer T, infer _>
    ? ExpressionBuilder<D, T>
    : never;

/**
 * The columns of a catalogue list item (product-item.ts productColumns reads the same for a page), at the
 * store's prices: its listing's, and the price and mode rules of filters.ts.
 */
const itemColumns = (ctx: StoreCatalogueContext) => (eb: Row) =>
  [
    'p.id',
    'p.name',
    'p.description',
    'p.sku',
    'p.wholesale_price_cents',
    'p.retail_price_cents',
    'l.custom_retail_price_cents',
    'p.image_url',
    'p.stock_quantity',
    eb.fn.coalesce('c.name', 'p.category_raw').as('category'),
    eb.cast<Detail['metadata']['weight_oz']>('p.weight_oz', 'float8').as('weight_oz'),
    EARN_PER_SALE.$castTo<Detail['earn_per_sale_cents']>().as('earn_per_sale_cents'),
    minimumPrice(ctx).$castTo<Detail['minimum_price_cents']>().as('minimum_price_cents'),
    eb.ref('b.name').as('brand'),
    'p.supplier_id',
    'p.pricing_type',
    EFFECTIVE_PURCHASE_MODE.$castTo<Detail['purchase_mode']>().as('purchase_mode'),
    eb('l.id', 'is not', null).$castTo<Detail['in_store']>().as('in_store'),
    isoTime(eb.ref('p.created_at')).as('created_at'),
    isoTime(eb.ref('p.updated_at')).as('updated_at'),
  ] as const;

/** A product's rows as a JSON array in their order; `[]` where json_agg of no rows gives NULL. */
const jsonList = <T>(eb: Row, rows: Expression<Record<string, T[]>>) =>
  eb.fn.coalesce(rows, sql`'[]'`).$castTo<T[]>();

/** The product's images, options, live variants and drawings, each in its own order. */
const detailColumns = (eb: Row) =>
  [
    eb.ref('p.hidden_channels').$castTo<Detail['hidden_channels']>().as('hidden_channels'),
    eb.cast<Dimension>('p.width_cm', 'float8').as('width_cm'),
    eb.cast<Dimension>('p.depth_cm', 'float8').as('depth_cm'),
    eb.cast<Dimension>('p.height_cm', 'float8').as('height_cm'),
    jsonList(
      eb,
      eb
        .selectFrom('product_images as i')
        .select((eb) =>
          eb.fn
            .jsonAgg(
              jsonBuildObject({ url: eb.ref('i.url'), alt: eb.ref('i.alt'), position: eb.ref('i.position') }),
            )
            .orderBy('i.position')
            .orderBy('i.id')
            .as('images'),
        )
        .whereRef('i.product_id', '=', 'p.id'),
    ).as('images'),
    jsonList(
      eb,
      eb
        .selectFrom('product_options as o')
        .select((eb) =>
          eb.fn
            .jsonAgg(jsonBuildObject({ name: eb.ref('o.name'), values: eb.ref('o.values') }))
            .orderBy('o.position')
            .orderBy('o.id')
            .as('options'),
        )
        .whereRef('o.product_id', '=', 'p.id'),
    ).as('options'),
    jsonList(eb, variants(eb)).as('variants'),
    jsonList(
      eb,
      eb
        .selectFrom('product_drawings as d')
        .select((eb) =>
          eb.fn
            .jsonAgg(jsonBuildObject({ url: eb.ref('d.url'), title: eb.ref('d.title') }))
            .orderBy('d.position')
            .orderBy('d.id')
            .as('drawings'),
        )
        .whereRef('d.product_id', '=', 'p.id'),
    ).as('drawings'),
  ] as const;

/** The product's live variants; each one's option values are the object its product's options name. */
const variants = (eb: Row) =>
  eb
    .selectFrom('product_variants as v')
    .select((eb) =>
      eb.fn
        .jsonAgg(
          jsonBuildObject({
            id: eb.ref('v.id'),
            sku: eb.ref('v.sku'),
            title: eb.ref('v.title'),
            option_values: eb.ref('v.option_values').$castTo<Detail['variants'][number]['option_values']>(),
            wholesale_price_cents: eb.ref('v.wholesale_price_cents'),
            retail_price_cents: eb.ref('v.retail_price_cents'),
            stock_quantity: eb.ref('v.stock_quantity'),
          }),
        )
        .orderBy('v.position')
        .orderBy('v.id')
        .as('variants'),
    )
    .whereRef('v.product_id', '=', 'p.id')
    .where('v.retired_at', 'is', null);

/** One catalogue product with its images, options, variants and drawings, in a single round trip. */
export async function getProduct(ctx: PartnerContext, { id }: ProductIdInput) {
  const store = await loadCatalogueContext(ctx.em, ctx.actor.storeId);
  const row = await first(
    detailFrom(ctx.em, store)
      .select(itemColumns(store))
      .select(detailColumns)
      .where('p.id', '=', id)
      .where(visibility(store).$castTo<SqlBool>()),
  );
  if (!row) throw notFound(`No catalogue product with id ${id}`, 'PRODUCT_NOT_FOUND');
  const hasDimensions = row.width_cm !== null || row.depth_cm !== null || row.height_cm !== null;
  // The variants' own sum: the product's stored total follows them through the stock fan-out job
  // (Migration20261128060000_stock_total_by_fanout), a read by id shows them as they are now.
  const stock = row.variants.reduce((n, v) => n + v.stock_quantity, 0);
  const product: Detail = {
    ...toCatalogueProduct({ ...row, stock_quantity: stock }),
    images: row.images,
    options: row.options,
    variants: row.variants.map((v) => ({ ...v, in_stock: v.stock_quantity > 0 })),
    assembled_dimensions: hasDimensions
      ? { width_cm: row.width_cm, depth_cm: row.depth_cm, height_cm: row.height_cm }
      : null,
    drawings: row.drawings,
    hidden_channels: row.hidden_channels,
  };
  return { product };
}
