import { AppError } from '../errors.ts';
import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { advanceTestOrder } from './advance-test-order.ts';
import { cancelTestOrder } from './cancel-test-order.ts';
import { advanceTestOrderInput, cancelTestOrderInput, testOrderOutput } from './schemas.ts';

const TAGS = ['Test helpers'];

/**
 * Test helpers act in test mode only: a live credential (an `sl_live_` key, or an OAuth app or MCP
 * token, which act in live mode) is refused before its input is read, whatever it names.
 */
const testModeProcedure = partnerProcedure.use(({ ctx, next }) => {
  if (ctx.actor.livemode) {
    throw new AppError(
      'forbidden',
      'TEST_MODE_ONLY',
      'Test helpers work in test mode only: call them with an sl_test_ API key, on a test order',
    );
  }
  return next();
});

/**
 * The meta both operations share: any OAuth token gets as far as the live-mode refusal (no app scope
 * would let it further today, and asking for one would only add a consent step before the same
 * refusal: docs/decisions.md, "Test helpers").
 */
const ERRORS = {
  400: 'Invalid id or body',
  401: 'Missing or invalid credential',
  403: 'A live credential, or a read-only key',
  404: 'No such test order',
  409: 'The state machine refuses the move',
};

/** Stripe-style `test_helpers`: move test objects as the platform would, to see their events. */
export const testHelpersRouter = router({
  advanceOrder: testModeProcedure
    .meta({
      appScope: '*',
      openapi: {
        method: 'POST',
        path: '/api/v1/test_helpers/orders/{id}/advance',
        operationId: 'advanceTestOrder',
        tags: TAGS,
        summary: 'Advance a test order',
        description:
          'Moves a test order forward as fulfilment moves a real one: one status (pending → processing → ' +
          'fulfilled → shipped → delivered), or with `to` every status up to that one, in order. Each move ' +
          'fires the events an operator’s move fires, in the event log and to test webhook subscriptions ' +
          'with the order as that move left it: `order.updated` (processing), `order.fulfilled`, ' +
          '`order.shipped` with `invoice.issued` (the test invoice, `TEST-INV-…`, readable at ' +
          'GET /api/v1/orders/{id}/invoice), `order.completed` (delivered). Shipping takes `tracking_number`, ' +
          'or a generated `TEST-TRK-…`. All moves commit together, or none. Test mode only: a live key or an ' +
          'OAuth token is refused (403 `TEST_MODE_ONLY`), and a live order is not found.',
        errorResponses: ERRORS,
      },
    })
    .input(advanceTestOrderInput)
    .output(testOrderOutput)
    .mutation(({ ctx, input }) => advanceTestOrder(ctx, input)),

  cancelOrder: testModeProcedure
    .meta({
      appScope: '*',
      openapi: {
        method: 'POST',
        path: '/api/v1/test_helpers/orders/{id}/cancel',
        operationId: 'cancelTestOrder',
        tags: TAGS,
        summary: 'Cancel a test order',
        description:
          'Cancels a test order as the store’s operator would (`cancel_reason: merchant`, `order.cancelled`): ' +
          'pending, processing and fulfilled orders only (409 `INVALID_TRANSITION` otherwise). A test order took ' +
          'no stock, so none comes back. Test mode only, as for advancing.',
        errorResponses: ERRORS,
      },
    })
    .input(cancelTestOrderInput)
    .output(testOrderOutput)
    .mutation(({ ctx, input }) => cancelTestOrder(ctx, input)),
});
