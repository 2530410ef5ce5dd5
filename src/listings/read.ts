import type { EntityManager } from '@mikro-orm/postgresql';
import type { Channel } from '../catalogue/channels.ts';
import { EFFECTIVE_PURCHASE_MODE, SELLABLE_STOCK } from '../catalogue/filters.ts';
import { isoTime, likePattern, pageOffset, pagination, type RawBuilder, rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { ListingListItem, ListListingsInput } from './schemas.ts';

/** A store's live listing joined with its product; `l` and `p` as everywhere in the catalogue. */
const LIVE = (storeId: number) => sql`listings l JOIN products p ON p.id = l.product_id
  WHERE l.store_id = ${storeId} AND l.deleted_at IS NULL`;

/** The channels a listing is kept off: the supplier's and the store's own, sorted. */
export const HIDDEN_CHANNELS = sql`ARRAY(SELECT DISTINCT c FROM unnest(p.hidden_channels || l.hidden_channels) c ORDER BY c)`;

const COLUMNS = sql`l.id, p.id AS product_id, p.name, l.custom_title, p.sku,
  p.image_url, p.wholesale_price_cents, p.retail_price_cents, l.custom_retail_price_cents,
  COALESCE(l.custom_retail_price_cents, p.retail_price_cents) AS effective_retail_price_cents,
  ${EFFECTIVE_PURCHASE_MODE} AS purchase_mode, l.vendor_fulfilled,
  COALESCE(p.owner_store_id = l.store_id, false) AS own_goods, p.active, ${SELLABLE_STOCK} AS stock_quantity,
  ${HIDDEN_CHANNELS} AS hidden_channels, ${isoTime(sql`p.withdrawn_at`)} AS withdrawn_at,
  ${isoTime(sql`l.created_at`)} AS created_at, ${isoTime(sql`l.updated_at`)} AS updated_at`;

interface Row {
  id: number;
  product_id: number;
  name: string;
  custom_title: string | null;
  sku: string;
  image_url: string | null;
  wholesale_price_cents: number;
  retail_price_cents: number;
  custom_retail_price_cents: number | null;
  effective_retail_price_cents: number;
  purchase_mode: 'buy_now' | 'enquiry';
  vendor_fulfilled: boolean;
  own_goods: boolean;
  active: boolean;
  stock_quantity: number;
  hidden_channels: Channel[];
  withdrawn_at: string | null;
  created_at: string;
  updated_at: string;
}

interface VariantRow {
  product_id: number;
  id: number;
  sku: string;
  title: string;
  option_values: Record<string, string>;
  retail_price_cents: number;
  stock_quantity: number;
}

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

function filters(input: ListListingsInput): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [];
  if (input.search) {
    const pattern = likePattern(input.search);
    conds.push(sql`(p.name ILIKE ${pattern} OR p.sku ILIKE ${pattern})`);
  }
  const noWeight = sql`p.weight_oz IS NULL`;
  const noDims = sql`(p.width_cm IS NULL OR p.depth_cm IS NULL OR p.height_cm IS NULL)`;
  if (input.missing === 'weight') conds.push(noWeight);
  if (input.missing === 'dimensions') conds.push(noDims);
  if (input.missing === 'either') conds.push(sql`(${noWeight} OR ${noDims})`);
  if (input.own_goods) conds.push(sql`p.owner_store_id = l.store_id`);
  return conds;
}

async function variantsOf(em: EntityManager, productIds: number[]) {
  const [variants, options] = await Promise.all([
    rows<VariantRow>(
      em,
      sql`SELECT product_id, id, sku, title, option_values, retail_price_cents, stock_quantity
        FROM product_variants WHERE product_id = ANY(${productIds}::integer[]) AND retired_at IS NULL
        ORDER BY product_id, position, id`,
    ),
    rows<{ product_id: number; name: string; values: string[] }>(
      em,
      sql`SELECT product_id, name, "values" FROM product_options
        WHERE product_id = ANY(${productIds}::integer[]) ORDER BY product_id, position, id`,
    ),
  ]);
  const byProduct = <T extends { product_id: number }>(list: T[]) => {
    const map = new Map<number, T[]>();
    for (const item of list) map.set(item.product_id, [...(map.get(item.product_id) ?? []), item]);
    return map;
  };
  return { variants: byProduct(variants), options: byProduct(options) };
}

type Total = { total: number };

export async function listListings(em: EntityManager, storeId: number, input: ListListingsInput) {
  const conds = filters(input);
  const where = sql.join([LIVE(storeId), ...conds], sql` AND `);
  const offset = pageOffset(input.page, input.limit);
  // Unfiltered, the total is the store's live listings alone (each has its product: a foreign key),
  // an index-only count; joining products cost a lookup per listing (0.7 s for 50,000).
  const live = sql`listings l WHERE l.store_id = ${storeId} AND l.deleted_at IS NULL`;
  const counted = sql<Total>`SELECT count(*)::integer AS total FROM ${conds.length ? where : live}`;
  const [countRows, page] = await Promise.all([
    rows(em, counted),
    rows<Row>(
      em,
      sql`SELECT ${COLUMNS} FROM ${where} ORDER BY l.created_at DESC, l.id DESC LIMIT ${input.limit} OFFSET ${offset}`,
    ),
  ]);
  const extra =
    input.include && page.length
      ? await variantsOf(
          em,
          page.map((r) => r.product_id),
        )
      : undefined;
  const products: ListingListItem[] = page.map((r) => {
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
  const total = countRows[0]?.total ?? 0;
  return {
    products,
    pagination: pagination(input.page, input.limit, total),
  };
}

export async function getListing(em: EntityManager, storeId: number, productId: number) {
  const [row] = await rows<Row>(
    em,
    sql`SELECT ${COLUMNS} FROM ${LIVE(storeId)} AND l.product_id = ${productId}`,
  );
  if (!row) throw notFound(`Product ${productId} is not in your store`, 'NOT_IN_STORE');
  const extra = await variantsOf(em, [productId]);
  return {
    product: {
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
    },
  };
}
