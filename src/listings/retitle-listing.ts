import type { UseCaseContext } from '../trpc/context.ts';
import { changeListingPresentation } from './queries.ts';
import type { RetitleListingInput } from './schemas.ts';

/** The store's own title for a listing; null restores the catalogue's name. */
export function retitleListing(ctx: UseCaseContext, input: RetitleListingInput) {
  return changeListingPresentation(ctx.em, input.storeId, input.productId, { customTitle: input.title });
}
