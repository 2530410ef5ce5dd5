import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { inventoryRouter } from './router.ts';

/** The inventory feed's contract prose beyond its schemas (see src/trpc/operation-docs.ts). */
export const inventoryDocs: RouterDocs<typeof inventoryRouter> = {
  feed: {
    parameters: {
      updated_since:
        'A `next_cursor` from an earlier page; absent: from the beginning. A cursor belongs to the store that got it.',
    },
    // The page schema is documented only (never parsed), so its fields carry no examples of their own.
    responseExample: () => ({
      items: [
        {
          product_id: 1042,
          sku: 'OAK-TBL-180',
          name: 'Oak dining table 180 cm',
          listed: true,
          withdrawn_at: null,
          in_stock: true,
          stock_quantity: 14,
          variants: [
            {
              id: 5531,
              sku: 'OAK-TBL-180-NAT',
              title: 'Natural oil',
              option_values: { Finish: 'Natural oil' },
              quantity_available: 9,
              available_for_sale: true,
            },
            {
              id: 5532,
              sku: 'OAK-TBL-180-BLK',
              title: 'Black stain',
              option_values: { Finish: 'Black stain' },
              quantity_available: 5,
              available_for_sale: true,
            },
          ],
          updated_at: '2026-11-02T09:30:00.000Z',
        },
      ],
      next_cursor: 'MToxMjo0ODIxMTo5MDMx.q9VxK3mT0bZ4nR8wYc2LdA',
      has_more: false,
    }),
    errors: {
      '400': errorDoc(
        '`updated_since` is not a cursor this feed gave out for this store, or `limit` is out of range',
        errorExample(
          'bad_request',
          'INVALID_CURSOR',
          'updated_since is not a cursor this feed gave out for this store',
          { details: [{ path: 'updated_since', message: 'not a next_cursor of this feed' }] },
        ),
      ),
      '404': errorDoc(
        'Inventory reads are switched off on this platform',
        errorExample('not_found', 'FEATURE_DISABLED', 'Inventory reads are switched off on this platform'),
      ),
    },
  },
};
