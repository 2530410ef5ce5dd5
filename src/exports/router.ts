import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { createExport } from './create-export.ts';
import { getExport } from './get-export.ts';
import { listExports } from './list-exports.ts';
import {
  createExportInput,
  exportAnswer,
  getExportInput,
  listExportsInput,
  listExportsOutput,
} from './schemas.ts';

const TAGS = ['Exports'];

/**
 * Bulk exports: a whole list as one JSON Lines file (gzip), written by a job from one snapshot.
 * Any app scope may call (`*`); which exports an app makes or reads follows each export's type
 * (src/exports/access.ts): read_products for catalogue and listings, read_orders for orders.
 */
export const exportsRouter = router({
  create: partnerProcedure
    .meta({
      appScope: '*',
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/api/v1/exports',
        operationId: 'createExport',
        tags: TAGS,
        summary: 'Start a bulk export',
        description:
          "Queues an export of the catalogue (under any filter of GET /api/v1/products), the store's listings, or its " +
          'orders (under the filters of GET /api/v1/orders) and answers 202 at once. A job writes every match as one ' +
          'JSON object a line, gzip, from one consistent snapshot: each line is exactly the item the list endpoint ' +
          'answers. Follow it with GET /api/v1/exports/{id} (`rows_written` is the progress) or the `export.completed` ' +
          'webhook, then download `url`, a signed link valid for an hour. `continuation` names where the event log ' +
          '(and, for listings, the inventory feed) continues from the snapshot, so nothing changed since is missed. ' +
          'One export per store and mode runs at a time (409 `EXPORT_ALREADY_RUNNING`), at most 50 a day; files are kept ' +
          "7 days. A test key exports test orders. App tokens need the type's read scope.",
        errorResponses: {
          400: 'Invalid type or filters',
          401: 'Missing or invalid credential',
          403: 'Scope refused',
          409: 'An export is already queued or running',
          429: 'Daily export limit reached',
        },
      },
    })
    .input(createExportInput)
    .output(exportAnswer)
    .mutation(({ ctx, input }) => createExport(ctx, input)),

  list: partnerProcedure
    .meta({
      appScope: '*',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/exports',
        operationId: 'listExports',
        tags: TAGS,
        summary: "The store's exports",
        description:
          "The store's exports in the credential's mode, newest first, paged with `cursor`. An app token sees the " +
          'types its scopes read.',
        errorResponses: { 400: 'Invalid parameter or cursor', 401: 'Missing or invalid credential' },
      },
    })
    .input(listExportsInput)
    .output(listExportsOutput)
    .query(({ ctx, input }) => listExports(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: '*',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/exports/{id}',
        operationId: 'getExport',
        tags: TAGS,
        summary: 'One export',
        description:
          'The export, its progress, and once completed a freshly signed download `url` (valid one hour; GET again ' +
          "for a new one) and the feeds' `continuation` cursors.",
        errorResponses: {
          400: 'Not an export id',
          401: 'Missing or invalid credential',
          403: 'Scope refused',
          404: 'No such export of this store and mode',
        },
      },
    })
    .input(getExportInput)
    .output(exportAnswer)
    .query(({ ctx, input }) => getExport(ctx, input)),
});
