import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { listingsRouter } from './router.ts';

const BELOW_MINIMUM = errorDoc(
  'The custom retail price is below the minimum allowed (`minimum_price_cents`), or the body is invalid',
  errorExample(
    'bad_request',
    'PRICE_BELOW_MINIMUM',
    'The retail price must be at least 52500 cents for this product',
    { minimum_price_cents: 52500 },
  ),
);

/** Every operation on one listing: the product must be in the store. */
const NOT_IN_STORE = errorDoc(
  'The product is not in the store (never added, or removed)',
  errorExample('not_found', 'NOT_IN_STORE', 'Product 1042 is not in your store'),
);

/** The listing operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const listingsDocs: RouterDocs<typeof listingsRouter> = {
  list: { sampleQuery: { include: 'variants', limit: 50 } },
  add: {
    errors: {
      '400': BELOW_MINIMUM,
      '404': errorDoc(
        'No such product in the catalogue the store sees',
        errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
      ),
      '409': errorDoc(
        'The product is already in the store; change its price with PUT /pricing',
        errorExample('conflict', 'ALREADY_LISTED', 'Product 1042 is already in your store', {
          product_id: 1042,
        }),
      ),
    },
  },
  get: { errors: { '404': NOT_IN_STORE } },
  remove: { errors: { '404': NOT_IN_STORE } },
  bulkAdd: {
    requestExamples: {
      ids: { summary: 'These products', value: { mode: 'ids', product_ids: [1042, 1043] } },
      filter: {
        summary: 'Every in-stock product of a brand',
        value: { mode: 'filter', filters: { brand: 'nordhaus', in_stock: true } },
      },
    },
  },
  bulkRemove: {
    requestExamples: {
      ids: { summary: 'These products', value: { mode: 'ids', product_ids: [1042, 1043] } },
      filter: {
        summary: 'Every listing (empty filters clear the store)',
        value: { mode: 'filter', filters: {} },
      },
    },
  },
  // The three updates share the add's answer schema, whose example reads "Product added".
  setPricing: {
    responseExample: (sample) => ({ ...sample, message: 'Price updated' }),
    errors: { '400': BELOW_MINIMUM, '404': NOT_IN_STORE },
  },
  setPurchaseMode: {
    responseExample: (sample) => ({
      message: 'Selling mode updated',
      vendor_product: { ...sample.vendor_product, purchase_mode: 'enquiry' },
    }),
    errors: {
      '404': NOT_IN_STORE,
      '409': errorDoc(
        'The product is quote-only in the catalogue: it cannot be switched to `buy_now`',
        errorExample(
          'conflict',
          'PURCHASE_MODE_LOCKED',
          'This product is quote-only in the catalogue and cannot be sold with card checkout',
        ),
      ),
    },
  },
  setVendorFulfilled: {
    responseExample: (sample) => ({
      message: 'Fulfilment updated',
      vendor_product: { ...sample.vendor_product, vendor_fulfilled: true },
    }),
    errors: { '404': NOT_IN_STORE },
  },
};
