import type { UseCaseContext } from '../trpc/context.ts';
import { changeListingPresentation } from './queries.ts';
import type { SetListingChannelsInput } from './schemas.ts';

/** The sales channels the store keeps a listing off (the supplier's own stay as they are). */
export function setListingChannels(ctx: UseCaseContext, input: SetListingChannelsInput) {
  return changeListingPresentation(ctx.em, input.storeId, input.productId, {
    hiddenChannels: input.hidden_channels,
  });
}
