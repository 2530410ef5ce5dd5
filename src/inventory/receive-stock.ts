import type { UseCaseContext } from '../trpc/context.ts';
import { writeStock } from './queries.ts';
import type { ReceiveStockInput } from './schemas.ts';

/** Goods received: adds to one variant's stock. */
export function receiveStock(ctx: UseCaseContext, { productId, variantId, quantity }: ReceiveStockInput) {
  return writeStock(ctx.em, productId, variantId, { add: quantity });
}
