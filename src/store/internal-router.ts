import { z } from 'zod';
import { router } from '../trpc/init.ts';
import { idParam } from '../trpc/params.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { createApiKey, revokeApiKey } from './api-keys.ts';
import { setPublished } from './publish.ts';
import { createApiKeyInput, createStoreInput, setPublishedInput } from './schemas.ts';
import { createStore } from './service.ts';

/** Stores and their keys, for the platform's operators (the CLI's stores:* and keys:*). */
export const storeInternalRouter = router({
  create: internalProcedure.input(createStoreInput).mutation(({ ctx, input }) => createStore(ctx.em, input)),
  setPublished: internalProcedure
    .input(setPublishedInput)
    .mutation(({ ctx, input }) => setPublished(ctx.em, input.storeId, input.published)),
  createApiKey: internalProcedure
    .input(createApiKeyInput)
    .mutation(({ ctx, input }) => createApiKey(ctx.em, input)),
  revokeApiKey: internalProcedure
    .input(z.object({ id: idParam }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.em, input.id)),
});
