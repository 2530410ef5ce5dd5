import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { advanceOrder } from './advance-order.ts';
import { checkoutStorefront } from './checkout-storefront.ts';
import { advanceOrderInput, checkoutStorefrontInput } from './schemas.ts';

/** The storefront's checkout and fulfilment's status changes: the platform's side of an order. */
export const ordersInternalRouter = router({
  checkoutStorefront: internalProcedure
    .input(checkoutStorefrontInput)
    .mutation(({ ctx, input }) => checkoutStorefront(ctx, input)),
  advance: internalProcedure.input(advanceOrderInput).mutation(({ ctx, input }) => advanceOrder(ctx, input)),
});
