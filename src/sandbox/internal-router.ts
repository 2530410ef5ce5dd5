import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { triggerEventInput } from './schemas.ts';
import { triggerEvent } from './trigger-event.ts';

/** Test mode's tools for developers (the CLI's `trigger`). */
export const sandboxInternalRouter = router({
  trigger: internalProcedure.input(triggerEventInput).mutation(({ ctx, input }) => triggerEvent(ctx, input)),
});
