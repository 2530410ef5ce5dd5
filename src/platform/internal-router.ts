import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { setFeature } from './features.ts';
import { setFeatureInput } from './schemas.ts';

/** Platform switches (`platform:set` in the CLI). */
export const platformInternalRouter = router({
  setFeature: internalProcedure
    .input(setFeatureInput)
    .mutation(({ ctx, input }) => setFeature(ctx.em, input.feature, input.enabled)),
});
