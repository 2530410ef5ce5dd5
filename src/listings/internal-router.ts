import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { createOwnGoods } from './create-own-goods.ts';
import { listOwnGoods } from './list-own-goods.ts';
import { retitleListing } from './retitle-listing.ts';
import {
  createOwnGoodsInput,
  ownGoodsInput,
  retitleListingInput,
  setListingChannelsInput,
} from './schemas.ts';
import { setListingChannels } from './set-listing-channels.ts';

/** Listing changes the dashboard makes that the partner API does not offer (the spec's dashboard-only list). */
export const listingsInternalRouter = router({
  retitle: internalProcedure
    .input(retitleListingInput)
    .mutation(({ ctx, input }) => retitleListing(ctx, input)),
  setChannels: internalProcedure
    .input(setListingChannelsInput)
    .mutation(({ ctx, input }) => setListingChannels(ctx, input)),
  createOwnGoods: internalProcedure
    .input(createOwnGoodsInput)
    .mutation(({ ctx, input }) => createOwnGoods(ctx, input)),
  listOwnGoods: internalProcedure.input(ownGoodsInput).query(({ ctx, input }) => listOwnGoods(ctx, input)),
});
