import type { PartnerContext } from '../trpc/context.ts';
import { updateListing } from './queries.ts';
import type { PricingInput } from './schemas.ts';

/** A custom retail price, never below the product's minimum; null restores the suggested price. */
export function setPricing(ctx: PartnerContext, input: PricingInput) {
  return updateListing(ctx.em, ctx.actor.storeId, input.productId, {
    kind: 'pricing',
    customPrice: input.custom_retail_price_cents,
  });
}
