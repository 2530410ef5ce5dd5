export { type CallOptions, type Credential, Stockless, type StocklessOptions } from './client.ts';
export {
  type ErrorCategory,
  type ErrorDetail,
  StocklessConnectionError,
  StocklessError,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './errors.ts';
export {
  type Export,
  type ExportLines,
  type ExportType,
  type ExportWaitOptions,
  readExportLines,
  StocklessExportError,
  waitForExport,
} from './exports.ts';
export * from './generated/openapi-types.ts';
export type { RetryOptions } from './http.ts';
export {
  type ConnectionChange,
  deliveryHeaders,
  describeConnection,
  describeForwarded,
  developmentSecret,
  type Forwarded,
  type ForwardOptions,
  forwardEvent,
  type ListenOptions,
  listen,
  type ReachOptions,
  resendEvent,
  whenReachable,
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
export {
  describeRequest,
  iterateRequests,
  type RequestTailFilters,
  type RequestTailOptions,
  tailRequests,
} from './request-log.ts';
export type * from './types.ts';
export {
  computeSignature,
  SIGNATURE_HEADER,
  signWebhook,
  type VerifyOptions,
  verifyWebhook,
  type WebhookEvent,
} from './webhooks.ts';
