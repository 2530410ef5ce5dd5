import { rows } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { FEED_START, type FeedRow, feedPage } from './queries.ts';
import type { ListInventoryInput } from './schemas.ts';

type Variant = FeedRow['variants'][number] & { available_for_sale: boolean };

/**
 * The variants arrive parsed by pg as fresh objects, already in the contract's field order and names:
 * completed in place rather than copied (one object a variant fewer to allocate).
 */
function completeVariants(r: FeedRow): Variant[] {
  const variants = r.variants as Variant[];
  for (const v of variants) v.available_for_sale = r.sellable && v.quantity_available > 0;
  return variants;
}

/**
 * One page of the store's inventory feed, oldest change first. Only positions written by
 * transactions older than every transaction still running are returned, so a change that commits
 * late is never skipped: it is simply not visible until everything before it has finished.
 */
export async function listInventory(ctx: PartnerContext, input: ListInventoryInput) {
  const { em } = ctx;
  const { storeId } = ctx.actor;
  const max = ctx.settings.pageSizeMax;
  if (input.limit !== undefined && input.limit > max) {
    throw new AppError('bad_request', 'VALIDATION_FAILED', `Invalid request: limit: at most ${max}`, {
      extra: { details: [{ path: 'limit', message: `at most ${max}` }] },
    });
  }
  const updatedSince = input.updated_since;
  const limit = input.limit ?? max;
  // Only an absent cursor starts from the beginning; an empty one is as invalid as any other.
  const from = updatedSince !== undefined ? await decodeCursor(em, storeId, updatedSince) : FEED_START;
  const page = await rows(em, feedPage(storeId, from, limit + 1));
  const items = page.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((r) => ({
      product_id: r.product_id,
      sku: r.sku,
      name: r.name,
      listed: r.listed,
      withdrawn_at: r.withdrawn_at,
      in_stock: r.stock_quantity > 0,
      stock_quantity: r.stock_quantity,
      variants: completeVariants(r),
      updated_at: r.updated_at,
    })),
    // Always present: with nothing new, the position the caller already had.
    next_cursor: await encodeCursor(em, storeId, last ? { xid: last.xid, seq: last.seq } : from),
    has_more: page.length > limit,
  };
}
