import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { setFeatureInput } from './schemas.ts';
import { setFeature } from './set-feature.ts';

/** Platform switches (`platform:set` in the CLI). */
export const platformInternalRouter = router({
  setFeature: internalProcedure.input(setFeatureInput).mutation(({ ctx, input }) => setFeature(ctx, input)),
});
