import { loadCatalogueContext } from '../store/catalogue-context.ts';
import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { getCatalogueProduct } from './detail.ts';
import { catalogueFacets } from './facets.ts';
import { listCatalogue } from './list.ts';
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
    .query(async ({ ctx, input }) =>
      listCatalogue(ctx.em, await loadCatalogueContext(ctx.em, ctx.actor.storeId), input),
    ),

  facets: partnerProcedure
    .meta({
      appScope: 'read_products',
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
    .query(async ({ ctx, input }) =>
      catalogueFacets(ctx.em, await loadCatalogueContext(ctx.em, ctx.actor.storeId), input),
    ),

  get: partnerProcedure
    .meta({
      appScope: 'read_products',
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
    .query(async ({ ctx, input }) =>
      getCatalogueProduct(ctx.em, await loadCatalogueContext(ctx.em, ctx.actor.storeId), input.id),
    ),
});
