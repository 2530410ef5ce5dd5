export { type CallOptions, type Credential, Stockless, type StocklessOptions } from './client.ts';
export {
  type ErrorCategory,
  type ErrorDetail,
  StocklessError,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './errors.ts';
export * from './generated/openapi-types.ts';
export type { RetryOptions } from './http.ts';
export {
  deliveryHeaders,
  describeForwarded,
  developmentSecret,
  type Forwarded,
  forwardEvent,
  type ListenOptions,
  listen,
} from './listen.ts';
export {
  EventStream,
  type EventStreamOptions,
  type EventsPage,
  type InventoryPage,
  InventorySync,
  type InventorySyncOptions,
  type Pagination,
  type StocklessEvent,
} from './pagination.ts';
export type * from './types.ts';
export {
  computeSignature,
  SIGNATURE_HEADER,
  signWebhook,
  type VerifyOptions,
  verifyWebhook,
  type WebhookEvent,
} from './webhooks.ts';
