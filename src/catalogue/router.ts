import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { getFacets } from './get-facets.ts';
import { getProduct } from './get-product.ts';
import { listProducts } from './list-products.ts';
import {
  facetsInput,
  facetsOutput,
  listInput,
  listOutput,
  productDetailOutput,
  productIdInput,
} from './schemas.ts';

const TAGS = ['Catalogue'];
const READ_ERRORS = { 400: 'Invalid parameters', 401: 'Missing or invalid credential', 403: 'Scope refused' };

export const catalogueRouter = router({
  list: partnerProcedure
    .meta({
      appScope: 'read_products',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/products',
        operationId: 'listProducts',
        tags: TAGS,
        summary: 'Browse the catalogue',
        description:
          'Approved catalogue products visible to the store, filtered, sorted and paged. Each item carries the ' +
          "store's earn per sale and minimum allowed retail price.",
        errorResponses: READ_ERRORS,
      },
    })
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listProducts(ctx, input)),

  facets: partnerProcedure
    .meta({
      appScope: 'read_products',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/products/facets',
        operationId: 'getProductFacets',
        tags: TAGS,
        summary: 'Facet counts for every catalogue filter',
        description:
          'Value and count lists for each catalogue filter with discrete values. Each facet applies every other ' +
          'active filter but its own (drill-down), so a client can show how many products each choice leaves.',
        errorResponses: READ_ERRORS,
      },
    })
    .input(facetsInput)
    .output(facetsOutput)
    .query(({ ctx, input }) => getFacets(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: 'read_products',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/products/{id}',
        operationId: 'getProduct',
        tags: TAGS,
        summary: 'One catalogue product',
        description:
          'A catalogue product with images, options, variants (each with its own stock), ' +
          'assembled dimensions and drawings.',
        errorResponses: { ...READ_ERRORS, 404: 'No such product' },
      },
    })
    .input(productIdInput)
    .output(productDetailOutput)
    .query(({ ctx, input }) => getProduct(ctx, input)),
});
