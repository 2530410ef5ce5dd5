import type { OrderDetail } from '../orders/schemas.ts';
import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { externalOrdersRouter } from './router.ts';

/** The sampled order reads as a store's own sale; a marketplace order is the one posted here. */
function asMarketplaceOrder(order: OrderDetail): OrderDetail {
  return {
    ...order,
    id: 9003,
    order_number: 'SL-100233',
    order_type: 'marketplace',
    channel: 'other_referral',
    source: 'etsy',
    status: 'processing',
    total_cents: 9000,
    subtotal_cents: 9000,
    gst_cents: 818,
    items_count: 1,
    tracking_number: null,
    invoice_number: null,
    invoice_issued_at: null,
    items: [
      {
        product_id: 2210,
        variant_id: 7710,
        sku: 'HH-VASE-01',
        name: 'Hand-thrown vase',
        quantity: 2,
        price_cents: 4500,
        shipped_quantity: 0,
      },
    ],
  };
}

const FEATURE_OFF = errorExample(
  'not_found',
  'FEATURE_DISABLED',
  'External orders are switched off on this platform',
);
const FEATURE_DISABLED = errorDoc('External orders are switched off on this platform', FEATURE_OFF);

/** The marketplace order operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const externalOrdersDocs: RouterDocs<typeof externalOrdersRouter> = {
  post: {
    responseExample: (sample) =>
      sample.order ? { ...sample, order: asMarketplaceOrder(sample.order) } : sample,
    otherSuccesses: {
      '200': {
        description:
          "Already in (posted before, or imported from the store's online shop): the existing order",
        example: (main) => ({ ...main, result: 'existing' }),
      },
      '202': {
        description: 'Held, not created: an unmapped SKU, a line Stockless supplies, or not enough stock',
        example: () => ({
          result: 'held',
          order: null,
          hold: { reason: 'unmapped_sku', lines: [{ sku: 'HH-VASE-01', reason: 'unmapped_sku' }] },
        }),
      },
    },
    errors: {
      '400': errorDoc(
        'The lines do not add up to `total_cents`, or the order is invalid',
        errorExample('bad_request', 'TOTAL_MISMATCH', 'total_cents is 9500 but the lines add up to 9000', {
          details: [{ path: 'total_cents', message: 'must equal the sum of the lines (9000)' }],
        }),
      ),
      '404': FEATURE_DISABLED,
    },
  },
  cancel: {
    responseExample: (sample) => ({
      ...sample,
      order: { ...asMarketplaceOrder(sample.order), status: 'cancelled', cancel_reason: 'marketplace' },
    }),
    errors: {
      '403': errorDoc(
        'Not an order posted through /orders/external, or scope refused',
        errorExample(
          'forbidden',
          'NOT_AN_APP_ORDER',
          'Only orders posted through /orders/external can be cancelled here',
        ),
      ),
      '404': errorDoc(
        'No such order in the store, or external orders are switched off on this platform',
        errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9003'),
        FEATURE_OFF,
      ),
      '409': errorDoc(
        'The order was delivered: it can no longer be cancelled',
        errorExample('conflict', 'ORDER_NOT_CANCELLABLE', 'A delivered order cannot be cancelled'),
      ),
    },
  },
};
