import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { createApiKey } from './create-api-key.ts';
import { createStore } from './create-store.ts';
import { listApiKeys } from './list-api-keys.ts';
import { listStores } from './list-stores.ts';
import { revokeApiKey } from './revoke-api-key.ts';
import {
  createApiKeyInput,
  createStoreInput,
  listApiKeysInput,
  listStoresInput,
  revokeApiKeyInput,
  setPublishedInput,
} from './schemas.ts';
import { setPublished } from './set-published.ts';

/** Stores and their keys, for the platform's operators (the CLI's stores:* and keys:*). */
export const storeInternalRouter = router({
  create: internalProcedure.input(createStoreInput).mutation(({ ctx, input }) => createStore(ctx, input)),
  list: internalProcedure.input(listStoresInput).query(({ ctx, input }) => listStores(ctx, input)),
  setPublished: internalProcedure
    .input(setPublishedInput)
    .mutation(({ ctx, input }) => setPublished(ctx, input)),
  createApiKey: internalProcedure
    .input(createApiKeyInput)
    .mutation(({ ctx, input }) => createApiKey(ctx, input)),
  listApiKeys: internalProcedure.input(listApiKeysInput).query(({ ctx, input }) => listApiKeys(ctx, input)),
  revokeApiKey: internalProcedure
    .input(revokeApiKeyInput)
    .mutation(({ ctx, input }) => revokeApiKey(ctx, input)),
});
