import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { addListing } from './add-listing.ts';
import { bulkAddListings } from './bulk-add-listings.ts';
import { bulkRemoveListings } from './bulk-remove-listings.ts';
import { getListing } from './get-listing.ts';
import { listListings } from './list-listings.ts';
import { removeListing } from './remove-listing.ts';
import {
  addListingInput,
  bulkAddOutput,
  bulkInput,
  bulkRemoveOutput,
  listingDetailOutput,
  listListingsInput,
  listListingsOutput,
  messageOutput,
  pricingInput,
  productPathInput,
  purchaseModeInput,
  vendorFulfilledInput,
  vendorProductOutput,
} from './schemas.ts';
import { setPricing } from './set-pricing.ts';
import { setPurchaseMode } from './set-purchase-mode.ts';
import { setVendorFulfilled } from './set-vendor-fulfilled.ts';

const TAGS = ['Listings'];
const AUTH = { 401: 'Missing or invalid credential', 403: 'Scope refused' };
const WRITE = { 400: 'Invalid request', ...AUTH, 404: 'Product not in the catalogue or not in the store' };

/** A bulk call in filter mode commits one product id range at a time (bulk-by-filter.ts). */
const byFilter = (body: unknown) => (body as { mode?: unknown } | undefined)?.mode === 'filter';

export const listingsRouter = router({
  list: partnerProcedure
    .meta({
      appScope: 'read_products',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/my-products',
        operationId: 'listMyProducts',
        tags: TAGS,
        summary: "List the store's products",
        description: 'Listings, newest first. `include=variants` adds option titles and per-variant stock.',
        errorResponses: { 400: 'Invalid parameters', ...AUTH },
      },
    })
    .input(listListingsInput)
    .output(listListingsOutput)
    .query(({ ctx, input }) => listListings(ctx, input)),

  add: partnerProcedure
    .meta({
      appScope: 'write_products',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/my-products',
        operationId: 'addMyProduct',
        tags: TAGS,
        summary: 'Add a product to the store',
        description:
          'Lists a catalogue product, optionally at a custom retail price (at least `minimum_price_cents`). ' +
          'Adding a removed product restores it with its earlier settings. A product already listed is a 409 ' +
          '`ALREADY_LISTED`; change its price with PUT /pricing. Emits `product.created`.',
        errorResponses: { ...WRITE, 409: 'Already in the store' },
      },
    })
    .input(addListingInput)
    .output(vendorProductOutput)
    .mutation(({ ctx, input }) => addListing(ctx, input)),

  bulkAdd: partnerProcedure
    .meta({
      appScope: 'write_products',
      commitsInSteps: byFilter,
      openapi: {
        method: 'POST',
        path: '/api/v1/my-products/bulk',
        operationId: 'bulkAddMyProducts',
        tags: TAGS,
        summary: 'Add many products',
        description:
          'At default pricing. `ids` mode reports a skip with a reason for each id not added; `filter` mode adds ' +
          'every catalogue match not already in the store. All or nothing.',
        errorResponses: { 400: 'Invalid request', ...AUTH },
      },
    })
    .input(bulkInput)
    .output(bulkAddOutput)
    .mutation(({ ctx, input }) => bulkAddListings(ctx, input)),

  bulkRemove: partnerProcedure
    .meta({
      appScope: 'write_products',
      commitsInSteps: byFilter,
      openapi: {
        method: 'POST',
        path: '/api/v1/my-products/bulk-remove',
        operationId: 'bulkRemoveMyProducts',
        tags: TAGS,
        summary: 'Remove many products',
        description:
          'Soft delete. `ids` mode reports ids not in the store; `filter` mode removes every listing whose product ' +
          'matches, and `filters: {}` clears the store. All or nothing.',
        errorResponses: { 400: 'Invalid request', ...AUTH },
      },
    })
    .input(bulkInput)
    .output(bulkRemoveOutput)
    .mutation(({ ctx, input }) => bulkRemoveListings(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: 'read_products',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/my-products/{productId}',
        operationId: 'getMyProduct',
        tags: TAGS,
        summary: 'One listing',
        description:
          'The effective price, options and variants with `available_for_sale` and `quantity_available`.',
        errorResponses: { 400: 'Invalid id', ...AUTH, 404: 'Not in the store' },
      },
    })
    .input(productPathInput)
    .output(listingDetailOutput)
    .query(({ ctx, input }) => getListing(ctx, input)),

  remove: partnerProcedure
    .meta({
      appScope: 'write_products',
      openapi: {
        method: 'DELETE',
        path: '/api/v1/my-products/{productId}',
        operationId: 'removeMyProduct',
        tags: TAGS,
        summary: 'Remove a product from the store',
        description: 'Soft delete: adding the product again restores it. Emits `product.deleted`.',
        errorResponses: { 400: 'Invalid id', ...AUTH, 404: 'Not in the store' },
      },
    })
    .input(productPathInput)
    .output(messageOutput)
    .mutation(({ ctx, input }) => removeListing(ctx, input)),

  setPricing: partnerProcedure
    .meta({
      appScope: 'write_products',
      openapi: {
        method: 'PUT',
        path: '/api/v1/my-products/{productId}/pricing',
        operationId: 'setMyProductPricing',
        tags: TAGS,
        summary: 'Set or clear the custom retail price',
        description:
          '`custom_retail_price_cents`: cents, or `null` to restore the suggested price. Below the minimum price: ' +
          '400 `PRICE_BELOW_MINIMUM`. Emits `product.updated`.',
        errorResponses: WRITE,
      },
    })
    .input(pricingInput)
    .output(vendorProductOutput)
    .mutation(({ ctx, input }) => setPricing(ctx, input)),

  setPurchaseMode: partnerProcedure
    .meta({
      appScope: 'write_products',
      openapi: {
        method: 'PATCH',
        path: '/api/v1/my-products/{productId}/enquiry-mode',
        operationId: 'setMyProductPurchaseMode',
        tags: TAGS,
        summary: 'Set the selling mode',
        description:
          '`buy_now` (card checkout) or `enquiry` (quote only). A product that is quote-only in the catalogue ' +
          'cannot be switched to `buy_now`: 409 `PURCHASE_MODE_LOCKED`. Emits `product.updated`.',
        errorResponses: { ...WRITE, 409: 'Quote-only product' },
      },
    })
    .input(purchaseModeInput)
    .output(vendorProductOutput)
    .mutation(({ ctx, input }) => setPurchaseMode(ctx, input)),

  setVendorFulfilled: partnerProcedure
    .meta({
      appScope: 'write_products',
      openapi: {
        method: 'PATCH',
        path: '/api/v1/my-products/{productId}/vendor-fulfilled',
        operationId: 'setMyProductVendorFulfilled',
        tags: TAGS,
        summary: 'Mark the listing as shipped by the vendor',
        description:
          '`vendor_fulfilled: true`: the vendor ships this listing themselves. Emits `product.updated`.',
        errorResponses: WRITE,
      },
    })
    .input(vendorFulfilledInput)
    .output(vendorProductOutput)
    .mutation(({ ctx, input }) => setVendorFulfilled(ctx, input)),
});
