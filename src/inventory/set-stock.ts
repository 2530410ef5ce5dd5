import type { UseCaseContext } from '../trpc/context.ts';
import { writeStock } from './queries.ts';
import type { SetStockInput } from './schemas.ts';

/** A supplier stock update: sets one variant's stock. */
export function setStock(ctx: UseCaseContext, { productId, variantId, quantity }: SetStockInput) {
  return writeStock(ctx.em, productId, variantId, { set: quantity });
}
