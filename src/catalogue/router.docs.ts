import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { catalogueRouter } from './router.ts';

/** The catalogue operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const catalogueDocs: RouterDocs<typeof catalogueRouter> = {
  list: { sampleQuery: { in_stock: true, sort_by: 'margin', order: 'desc', limit: 20 } },
  facets: { sampleQuery: { in_stock: true } },
  get: {
    errors: {
      '404': errorDoc(
        'No such product in the catalogue the store sees',
        errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
      ),
    },
  },
};
