import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { getStoreProfile } from './get-store-profile.ts';
import { storeProfileInput, storeProfileOutput } from './schemas.ts';

export const storeRouter = router({
  me: partnerProcedure
    .meta({
      appScope: '*',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/vendor/me',
        operationId: 'getStore',
        tags: ['Store'],
        summary: 'The authenticated store',
        description: 'The store the credential acts as, with its order statistics.',
        errorResponses: { 401: 'Missing or invalid credential', 404: 'Store not found' },
      },
    })
    .input(storeProfileInput)
    .output(storeProfileOutput)
    .query(({ ctx }) => getStoreProfile(ctx)),
});
