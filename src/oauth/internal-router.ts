import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { createUserInput, uninstallAppInput } from './schemas.ts';
import { uninstallApp } from './tokens.ts';
import { createUser } from './users.ts';

/** Dashboard users (who sign in to approve apps) and app uninstalls, for operators. */
export const oauthInternalRouter = router({
  createUser: internalProcedure
    .input(createUserInput)
    .mutation(({ ctx, input }) => createUser(ctx.em, input)),
  uninstallApp: internalProcedure
    .input(uninstallAppInput)
    .mutation(({ ctx, input }) => uninstallApp(ctx.em, input.storeId, input.clientId)),
});
