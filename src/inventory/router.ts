import { notFound } from '../errors.ts';
import { isFeatureEnabled } from '../platform/features.ts';
import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { listInventory } from './list-inventory.ts';
import { inventoryPageOutput, listInventoryInput } from './schemas.ts';

/**
 * Switched off, the read does not exist: 404 whatever the parameters, and nothing is read. The page
 * statement reads the switch itself (see `feedPage`): a page with items was read with it on. An empty
 * page or a refusal (bad parameter, bad cursor) asks the switch before answering.
 */
const switchedFeed = partnerProcedure.use(async ({ ctx, next }) => {
  const result = await next();
  const empty = !result.ok || (result.data as { items: unknown[] }).items.length === 0;
  if (empty && !(await isFeatureEnabled(ctx.em, 'inventory_read'))) {
    throw notFound('Inventory reads are switched off on this platform', 'FEATURE_DISABLED');
  }
  return result;
});

export const inventoryRouter = router({
  feed: switchedFeed
    .meta({
      appScope: 'read_inventory',
      rateLimit: 'inventory',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/inventory',
        operationId: 'listInventory',
        tags: ['Catalogue'],
        summary: 'Stock available to sell, by change cursor',
        description:
          'One item per product the store lists (or listed: a removed listing comes back with `listed: false`), ' +
          'oldest change first, with its variants. Follow `next_cursor` (as `updated_since`) to read every change ' +
          'exactly in order; a later call with the last cursor returns only what changed since. A cursor is ' +
          "opaque and belongs to the store that got it. Rate limited by the store's catalogue-read limit.",
        errorResponses: {
          400: 'Invalid cursor or limit',
          401: 'Missing or invalid credential',
          403: 'Scope refused',
          404: 'Inventory reads are switched off',
          429: 'Rate limited',
        },
      },
    })
    .input(listInventoryInput)
    .output(inventoryPageOutput)
    .query(({ ctx, input }) => listInventory(ctx, input)),
});
