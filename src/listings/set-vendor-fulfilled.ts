import type { PartnerContext } from '../trpc/context.ts';
import { updateListing } from './queries.ts';
import type { VendorFulfilledInput } from './schemas.ts';

/** Whether the vendor ships this listing themselves. */
export function setVendorFulfilled(ctx: PartnerContext, input: VendorFulfilledInput) {
  return updateListing(ctx.em, ctx.actor.storeId, input.productId, {
    kind: 'vendor_fulfilled',
    value: input.vendor_fulfilled,
  });
}
