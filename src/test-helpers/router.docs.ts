import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { testHelpersRouter } from './router.ts';
import type { AdvanceTestOrderInput } from './schemas.ts';

/** A body example: the id is the path's, never the body's. */
const body = (value: Omit<AdvanceTestOrderInput, 'id'>) => value as AdvanceTestOrderInput;

const LIVE = errorExample(
  'forbidden',
  'TEST_MODE_ONLY',
  'Test helpers work in test mode only: call them with an sl_test_ API key, on a test order',
);
const NOT_FOUND = errorDoc(
  'No such order among the store’s test orders (a live order is never found with a test key)',
  errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9001'),
);

/** A test order as the examples show it, at the status a move left it. */
function asTestOrder<T extends { order: Record<string, unknown> }>(
  sample: T,
  fields: Record<string, unknown>,
): T {
  return {
    ...sample,
    order: {
      ...sample.order,
      order_number: 'TEST-SL-100231',
      livemode: false,
      invoice_number: null,
      invoice_issued_at: null,
      tracking_number: null,
      cancel_reason: null,
      ...fields,
    },
  };
}

/** The test helpers' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const testHelpersDocs: RouterDocs<typeof testHelpersRouter> = {
  advanceOrder: {
    requestExamples: {
      oneStep: { summary: 'One move forward', value: body({}) },
      toDelivered: { summary: 'Every move up to delivered', value: body({ to: 'delivered' }) },
      shipWithTracking: {
        summary: 'Ship with a tracking number of your own',
        value: body({ to: 'shipped', tracking_number: 'TEST-TRK-0001' }),
      },
    },
    responseExample: (sample) =>
      asTestOrder(sample, {
        status: 'delivered',
        tracking_number: 'TEST-TRK-7Q2M4K9D',
        invoice_number: 'TEST-INV-202611-000042',
        invoice_issued_at: '2026-11-03T02:40:00.000Z',
      }),
    errors: {
      '400': errorDoc(
        'The id or body is invalid: an unknown `to`, an unknown field, or `tracking_number` on a move that does not ship',
        errorExample('bad_request', 'VALIDATION_FAILED', 'Invalid request: to: invalid option', {
          details: [
            { path: 'to', message: 'expected one of "processing"|"fulfilled"|"shipped"|"delivered"' },
          ],
        }),
      ),
      '403': errorDoc('A live credential: test helpers work in test mode only', LIVE),
      '404': NOT_FOUND,
      '409': errorDoc(
        'The order cannot move there: `to` is not ahead of its status (a delivered or cancelled order moves no ' +
          'more); `status` is the current one, and nothing moved',
        errorExample(
          'conflict',
          'INVALID_TRANSITION',
          'Order TEST-SL-100231 is delivered; it can move to nothing, not shipped',
          { status: 'delivered' },
        ),
      ),
    },
  },
  cancelOrder: {
    responseExample: (sample) => asTestOrder(sample, { status: 'cancelled', cancel_reason: 'merchant' }),
    errors: {
      '403': errorDoc('A live credential: test helpers work in test mode only', LIVE),
      '404': NOT_FOUND,
      '409': errorDoc(
        'The order has shipped, was delivered or is cancelled already: it cannot be cancelled',
        errorExample(
          'conflict',
          'INVALID_TRANSITION',
          'Order TEST-SL-100231 is shipped; it can move to delivered, not cancelled',
          { status: 'shipped' },
        ),
      ),
    },
  },
};
