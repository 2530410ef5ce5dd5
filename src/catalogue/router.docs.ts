import { errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { catalogueRouter } from './router.ts';

/** The catalogue operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const catalogueDocs: RouterDocs<typeof catalogueRouter> = {
  get: {
    errors: { '404': errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042') },
  },
};
