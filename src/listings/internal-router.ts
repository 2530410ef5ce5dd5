import { z } from 'zod';
import { channelSet } from '../catalogue/maintenance-schemas.ts';
import { router } from '../trpc/init.ts';
import { idParam, NUL_MESSAGE, noNul } from '../trpc/params.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { changeListingPresentation } from './change-presentation.ts';
import { createOwnGoods, listOwnGoods } from './own-goods.ts';
import { createOwnGoodsInput } from './schemas.ts';

/** Listing changes the dashboard makes that the partner API does not offer (the spec's dashboard-only list). */
export const listingsInternalRouter = router({
  retitle: internalProcedure
    .input(
      z
        .object({
          storeId: idParam,
          productId: idParam,
          /** null restores the catalogue's name. */
          title: z.string().trim().min(1).max(200).refine(noNul, NUL_MESSAGE).nullable(),
        })
        .strict(),
    )
    .mutation(({ ctx, input }) =>
      changeListingPresentation(ctx.em, input.storeId, input.productId, { customTitle: input.title }),
    ),
  setChannels: internalProcedure
    .input(z.object({ storeId: idParam, productId: idParam, hidden_channels: channelSet }).strict())
    .mutation(({ ctx, input }) =>
      changeListingPresentation(ctx.em, input.storeId, input.productId, {
        hiddenChannels: input.hidden_channels,
      }),
    ),
  createOwnGoods: internalProcedure
    .input(createOwnGoodsInput)
    .mutation(({ ctx, input }) => createOwnGoods(ctx.em, input)),
  listOwnGoods: internalProcedure
    .input(z.object({ storeId: idParam }))
    .query(({ ctx, input }) => listOwnGoods(ctx.em, input.storeId)),
});
