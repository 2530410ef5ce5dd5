import type { PartnerContext } from '../trpc/context.ts';
import { updateListing } from './queries.ts';
import type { PurchaseModeInput } from './schemas.ts';

/** Card checkout or quote only; a product the catalogue sells only on quote stays quote-only. */
export function setPurchaseMode(ctx: PartnerContext, input: PurchaseModeInput) {
  return updateListing(ctx.em, ctx.actor.storeId, input.productId, {
    kind: 'purchase_mode',
    mode: input.purchase_mode,
  });
}
