/** Short names for the contract's main shapes (all derived from the generated types). */
import type {
  ErrorBody,
  GetMyProductResponse,
  GetProductResponse,
  GetStoreResponse,
  ListInventoryResponse,
  ListMyProductsResponse,
  ListOrdersResponse,
  ListProductsResponse,
  PostExternalOrderResponse,
  WebhookDelivery,
  WebhookSubscription,
} from './generated/openapi-types.ts';

export type { ErrorBody, WebhookDelivery, WebhookSubscription };
/** A catalogue product as list items show it. */
export type CatalogueProduct = ListProductsResponse['products'][number];
/** A catalogue product read by id (images, options, variants, dimensions, drawings). */
export type CatalogueProductDetail = GetProductResponse['product'];
/** A listing as the listings list shows it. */
export type ListingSummary = ListMyProductsResponse['products'][number];
/** One listing read by product id (with variants). */
export type Listing = GetMyProductResponse['product'];
export type OrderSummary = ListOrdersResponse['orders'][number];
export type InventoryItem = ListInventoryResponse['items'][number];
export type StoreProfile = GetStoreResponse['store'];
export type ExternalOrderResult = PostExternalOrderResponse;
