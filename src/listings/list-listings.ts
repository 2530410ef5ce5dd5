import { likePattern, pageOffset, pagination, type RawBuilder, rows, sql } from '../db/sql.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { availableForSale, base, COLUMNS, type Item, LIVE, type Row, variantsOf } from './queries.ts';
import type { ListListingsInput } from './schemas.ts';

/** Three letters or digits in a row: the least a substring needs for pg_trgm to extract a trigram. */
const HAS_TRIGRAM = /[\p{L}\p{N}]{3}/u;

function filters(input: ListListingsInput): RawBuilder<unknown>[] {
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
  const noWeight = sql`p.weight_oz IS NULL`;
  const noDims = sql`(p.width_cm IS NULL OR p.depth_cm IS NULL OR p.height_cm IS NULL)`;
  if (input.missing === 'weight') conds.push(noWeight);
  if (input.missing === 'dimensions') conds.push(noDims);
  if (input.missing === 'either') conds.push(sql`(${noWeight} OR ${noDims})`);
  if (input.own_goods) conds.push(sql`p.owner_store_id = l.store_id`);
  return conds;
}

/** The store's listings, newest first (raw SQL: see queries.ts). */
export async function listListings(ctx: PartnerContext, input: ListListingsInput) {
  const { em } = ctx;
  const { storeId } = ctx.actor;
  const conds = filters(input);
  const where = sql.join([LIVE(storeId), ...conds], sql` AND `);
  const offset = pageOffset(input.page, input.limit);
  // Unfiltered, the total is the store's live listings alone (each has its product: a foreign key),
  // an index-only count; joining products cost a lookup per listing (0.7 s for 50,000).
  const live = sql`listings l WHERE l.store_id = ${storeId} AND l.deleted_at IS NULL`;
  const [count, page] = await Promise.all([
    rows<{ total: number }>(em, sql`SELECT count(*)::integer AS total FROM ${conds.length ? where : live}`),
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
  return { products, pagination: pagination(input.page, input.limit, count[0]?.total ?? 0) };
}
