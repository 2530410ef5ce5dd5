import { errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { ordersRouter } from './router.ts';

/** The order operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const ordersDocs: RouterDocs<typeof ordersRouter> = {
  create: {
    errors: {
      '400': errorExample(
        'bad_request',
        'INSUFFICIENT_STOCK',
        'Not enough stock for every line; nothing was reserved',
        { lines: [{ product_id: 1042, variant_id: 5531, requested: 20, available: 9 }] },
      ),
      '404': errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
      '409': errorExample(
        'conflict',
        'PRICE_CHANGED',
        'A wholesale price has changed; review the current prices',
      ),
    },
  },
  get: { errors: { '404': errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9001') } },
};
