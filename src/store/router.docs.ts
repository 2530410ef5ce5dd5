import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { storeRouter } from './router.ts';

/** The store operation's contract prose beyond its schemas (see src/trpc/operation-docs.ts). */
export const storeDocs: RouterDocs<typeof storeRouter> = {
  me: {
    errors: {
      '404': errorDoc(
        "The credential's store no longer exists",
        errorExample('not_found', 'STORE_NOT_FOUND', 'Store not found'),
      ),
    },
  },
};
