import { notFound } from '../errors.ts';
import { isFeatureEnabled } from '../platform/features.ts';
import type { Context } from '../trpc/context.ts';
import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { cancelExternalOrder } from './cancel-external-order.ts';
import { postExternalOrder } from './post-external-order.ts';
import { cancelInput, cancelOutput, externalOrderInput, externalOrderOutput } from './schemas.ts';

const TAGS = ['Orders'];
const STATUS = { created: 201, existing: 200, held: 202 } as const;

/** The three answers share one shape; the REST status is what tells them apart. */
function withStatus<T extends { result: keyof typeof STATUS }>(ctx: Pick<Context, 'request'>, answer: T): T {
  if (ctx.request) ctx.request.status = STATUS[answer.result];
  return answer;
}

/** Switched off, the operations do not exist: 404 before the body is even read. */
const enabledProcedure = partnerProcedure.use(async ({ ctx, next }) => {
  if (!(await isFeatureEnabled(ctx.em, 'external_orders'))) {
    throw notFound('External orders are switched off on this platform', 'FEATURE_DISABLED');
  }
  return next();
});

export const externalOrdersRouter = router({
  post: enabledProcedure
    .meta({
      appScope: 'write_external_orders',
      rateLimit: 'external_orders',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/orders/external',
        operationId: 'postExternalOrder',
        tags: TAGS,
        summary: 'Post a marketplace order',
        description:
          "An order the store sold on a marketplace, for the store's own goods only. 201: created (recorded as " +
          'paid, no buyer email, a draft purchase order per supplier). 200: already in; the existing order. 202: ' +
          'held (an unmapped SKU, a line Stockless supplies, or not enough stock); post it again once resolved. ' +
          'Idempotent on (marketplace, external_order_id). The 200, 201 and 202 answers share one shape.',
        errorResponses: {
          400: 'Invalid order',
          401: 'Missing or invalid credential',
          403: 'Scope refused',
          404: 'External orders are switched off',
          429: 'Rate limited',
        },
      },
    })
    .input(externalOrderInput)
    .output(externalOrderOutput)
    .mutation(async ({ ctx, input }) => withStatus(ctx, await postExternalOrder(ctx, input))),

  cancel: enabledProcedure
    .meta({
      appScope: 'write_external_orders',
      openapi: {
        method: 'POST',
        path: '/api/v1/orders/external/{id}/cancel',
        operationId: 'cancelExternalOrder',
        tags: TAGS,
        summary: 'Cancel a marketplace order',
        description:
          'The buyer cancelled on the marketplace. Only for orders posted through /orders/external (others: 403 ' +
          '`NOT_AN_APP_ORDER`). Recorded with reason `marketplace`; stock returns for lines not shipped. Repeating ' +
          'it answers the same order; a delivered order: 409 `ORDER_NOT_CANCELLABLE`.',
        errorResponses: {
          400: 'Invalid request',
          401: 'Missing or invalid credential',
          403: 'Scope refused, or not a marketplace order',
          404: 'No such order',
          409: 'Delivered',
        },
      },
    })
    .input(cancelInput)
    .output(cancelOutput)
    .mutation(({ ctx, input }) => cancelExternalOrder(ctx, input)),
});
