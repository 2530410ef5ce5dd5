import { rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { availableForSale, base, COLUMNS, LIVE, type Row, variantsOf } from './queries.ts';
import type { ListingDetail, ProductPathInput } from './schemas.ts';

export async function getListing(ctx: PartnerContext, { productId }: ProductPathInput) {
  const { em } = ctx;
  const { storeId } = ctx.actor;
  // Raw SQL: a hot path (see queries.ts).
  const [row] = await rows<Row>(
    em,
    sql`SELECT ${COLUMNS} FROM ${LIVE(storeId)} AND l.product_id = ${productId}`,
  );
  if (!row) throw notFound(`Product ${productId} is not in your store`, 'NOT_IN_STORE');
  const extra = await variantsOf(em, [productId]);
  const product: ListingDetail = {
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
