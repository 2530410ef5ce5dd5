import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { advanceOrderInput, checkoutStorefrontInput } from './schemas.ts';
import { checkoutStorefront } from './storefront.ts';
import { advanceOrder } from './transitions.ts';

/** The storefront's checkout and fulfilment's status changes: the platform's side of an order. */
export const ordersInternalRouter = router({
  checkoutStorefront: internalProcedure
    .input(checkoutStorefrontInput)
    .mutation(({ ctx, input }) => checkoutStorefront(ctx.em, input)),
  advance: internalProcedure
    .input(advanceOrderInput)
    .mutation(({ ctx, input }) =>
      advanceOrder(ctx.em, input.orderId, input.status, { tracking: input.tracking, note: input.note }),
    ),
});
