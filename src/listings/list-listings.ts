import { ownedBy } from '../db/owned-by.ts';
import { likePattern, pageOffset, pagination, type RawBuilder, rows, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { availableForSale, base, COLUMNS, type Item, LIVE, type Row, variantsOf } from './queries.ts';
import type { ListListingsInput } from './schemas.ts';

/** Three letters or digits in a row: the least a substring needs for pg_trgm to extract a trigram. */
const HAS_TRIGRAM = /[\p{L}\p{N}]{3}/u;

/**
 * What the listing's product lacks for shipping, as kept on the listing
 * (Migration20261129000000_listing_shipping_gaps): each condition is the predicate of a partial index,
 * so its count is an index-only range of the matches, never the store's listings joined to products.
 */
const GAPS = {
  weight: sql`(l.shipping_gaps & 1) <> 0`,
  dimensions: sql`(l.shipping_gaps & 2) <> 0`,
  either: sql`l.shipping_gaps <> 0`,
};

/** Conditions on the product (search, own goods): they need the listing joined to it. */
function productFilters(input: ListListingsInput): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [];
  if (input.search) {
    const pattern = likePattern(input.search);
    // A term without a trigram (`%_%`, `ab`) would have the trigram indexes read every product's
    // entry (a 503 at 2M products); said on expressions no index holds, the same condition is tested
    // on the store's own listings instead, a read bounded by the store.
    const [name, sku] = HAS_TRIGRAM.test(input.search)
      ? [sql`p.name`, sql`p.sku`]
      : [sql`(p.name || '')`, sql`(p.sku || '')`];
    conds.push(sql`(${name} ILIKE ${pattern} OR ${sku} ILIKE ${pattern})`);
  }
  if (input.own_goods) conds.push(sql`p.owner_store_id = l.store_id`);
  return conds;
}

/** The store's listings, newest first (raw SQL: see queries.ts). */
export async function listListings(ctx: PartnerContext, input: ListListingsInput) {
  const { em } = ctx;
  const { storeId } = ctx.actor;
  const conds = productFilters(input);
  const gaps = input.missing ? [GAPS[input.missing]] : [];
  const where = sql.join([LIVE(storeId), ...gaps, ...conds], sql` AND `);
  const offset = pageOffset(input.page, input.limit);
  // Without a product condition the total is the store's live listings alone (each has its product: a
  // foreign key), an index-only count; joining products cost a lookup per listing (0.7 s for 50,000).
  const live = sql.join(
    [sql`listings l WHERE ${ownedBy({ storeId }, 'listings as l')} AND l.deleted_at IS NULL`, ...gaps],
    sql` AND `,
  );
  const matching = conds.length ? where : live;
  const newest = sql`ORDER BY l.created_at DESC, l.id DESC`;
  const [count, page] = await Promise.all([
    rows<{ total: number }>(em, sql`SELECT count(*)::integer AS total FROM ${matching}`),
    // The page's listings are chosen first and only they are read whole: without a product condition
    // from the listings' own index, where a deep page joined every listing it skipped to its product
    // (6,000 lookups for page 300).
    rows<Row>(
      em,
      sql`SELECT ${COLUMNS} FROM ${LIVE(storeId)}
        AND l.id IN (SELECT l.id FROM ${matching} ${newest} LIMIT ${input.limit} OFFSET ${offset})
        ${newest}`,
    ),
  ]);
  const extra =
    input.include && page.length
      ? await variantsOf(
          em,
          page.map((r) => r.product_id),
        )
      : undefined;
  const products: Item[] = page.map((r) => listItem(r, extra));
  return { products, pagination: pagination(input.page, input.limit, count[0]?.total ?? 0) };
}

/** A list item: the listing, with its options and variants when they were read (include=variants). */
export function listItem(r: Row, extra: Awaited<ReturnType<typeof variantsOf>> | undefined): Item {
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
}
