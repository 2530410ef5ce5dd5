import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { listHeldPosts } from './list-held-posts.ts';
import { mapSku } from './map-sku.ts';
import { mapSkuInput, storeRef } from './schemas.ts';

/** A store's SKU mappings for marketplace orders, and the posts held for want of one. */
export const externalOrdersInternalRouter = router({
  mapSku: internalProcedure.input(mapSkuInput).mutation(({ ctx, input }) => mapSku(ctx, input)),
  listHeld: internalProcedure.input(storeRef).query(({ ctx, input }) => listHeldPosts(ctx, input)),
});
