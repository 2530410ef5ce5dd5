import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { listHeldPosts } from './held.ts';
import { mapSkuInput, storeRef } from './schemas.ts';
import { mapSku } from './skus.ts';

/** A store's SKU mappings for marketplace orders, and the posts held for want of one. */
export const externalOrdersInternalRouter = router({
  mapSku: internalProcedure
    .input(mapSkuInput)
    .mutation(({ ctx, input }) => mapSku(ctx.em, input.storeId, input.sku, input.productId, input.variantId)),
  listHeld: internalProcedure.input(storeRef).query(({ ctx, input }) => listHeldPosts(ctx.em, input.storeId)),
});
