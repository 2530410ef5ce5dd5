import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { ordersRouter } from './router.ts';

/** The order operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const ordersDocs: RouterDocs<typeof ordersRouter> = {
  list: { sampleQuery: { status: 'shipped', start_date: '2026-11-01', end_date: '2026-11-30' } },
  create: {
    errors: {
      '400': errorDoc(
        'The order cannot be placed as sent (a line cannot be ordered, stock is short, a `price_cents` was ' +
          'never the wholesale price, the payment does not match the total) or is invalid; nothing was reserved',
        errorExample(
          'bad_request',
          'INSUFFICIENT_STOCK',
          'Not enough stock for every line; nothing was reserved',
          {
            lines: [{ product_id: 1042, variant_id: 5531, requested: 20, available: 9 }],
          },
        ),
        errorExample(
          'bad_request',
          'VARIANT_REQUIRED',
          'Product 1042 has 2 variants: name one with variant_id',
          { product_id: 1042, variant_ids: [5531, 5532] },
        ),
        errorExample(
          'bad_request',
          'PRODUCT_NOT_ORDERABLE',
          'Product 1042 cannot be ordered: it has no images',
          { product_id: 1042 },
        ),
        errorExample(
          'bad_request',
          'PAYMENT_MISMATCH',
          'payment.amount_cents (50000) must equal the order total (52000)',
          { total_cents: 52000 },
        ),
        errorExample('bad_request', 'PRICE_MISMATCH', 'A price_cents sent is not the wholesale price', {
          details: [
            {
              path: 'items.0.price_cents',
              message: '42000 is not the wholesale price of product 1042 (21911), nor was it recently',
            },
          ],
        }),
        errorExample('bad_request', 'ORDER_TOO_LARGE', 'The order total is too large'),
      ),
      '404': errorDoc(
        "A product or variant the store cannot order: unknown, or another store's own goods",
        errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
        errorExample('not_found', 'VARIANT_NOT_FOUND', 'Product 1042 has no variant 5539'),
      ),
      '409': errorDoc(
        'The wholesale price changed (`PRICE_CHANGED`): a line sent the `price_cents` the variant had before ' +
          'its last change (within 30 days); `lines` gives the current prices and nothing was reserved',
        errorExample(
          'conflict',
          'PRICE_CHANGED',
          'A wholesale price has changed; review the current prices',
          {
            lines: [{ product_id: 1042, variant_id: 5531, price_cents: 26500 }],
          },
        ),
      ),
    },
  },
  get: {
    errors: {
      '404': errorDoc(
        'No such order in the store',
        errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9001'),
      ),
    },
  },
};
