import { errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { listingsRouter } from './router.ts';

const BELOW_MINIMUM = errorExample(
  'bad_request',
  'PRICE_BELOW_MINIMUM',
  'The retail price must be at least 52500 cents for this product',
  { minimum_price_cents: 52500 },
);

/** The listing operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const listingsDocs: RouterDocs<typeof listingsRouter> = {
  add: {
    errors: {
      '400': BELOW_MINIMUM,
      '404': errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
      '409': errorExample('conflict', 'ALREADY_LISTED', 'Product 1042 is already in your store'),
    },
  },
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
    errors: { '400': BELOW_MINIMUM },
  },
  setPurchaseMode: {
    responseExample: (sample) => ({
      message: 'Selling mode updated',
      vendor_product: { ...sample.vendor_product, purchase_mode: 'enquiry' },
    }),
    errors: {
      '409': errorExample(
        'conflict',
        'PURCHASE_MODE_LOCKED',
        'This product is quote-only in the catalogue and cannot be sold with card checkout',
      ),
    },
  },
  setVendorFulfilled: {
    responseExample: (sample) => ({
      message: 'Fulfilment updated',
      vendor_product: { ...sample.vendor_product, vendor_fulfilled: true },
    }),
  },
};
