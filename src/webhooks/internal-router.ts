import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { listStoreWebhooks } from './list-store-webhooks.ts';
import { listStoreWebhooksInput } from './schemas.ts';

/** Webhook subscriptions as operators see them, any store's. */
export const webhooksInternalRouter = router({
  list: internalProcedure
    .input(listStoreWebhooksInput)
    .query(({ ctx, input }) => listStoreWebhooks(ctx, input)),
});
