import {
  Brand,
  Category,
  Product,
  ProductCompleteness,
  ProductDrawing,
  ProductImage,
  ProductOption,
  ProductSearchTerm,
  ProductVariant,
  StoreDepartment,
  StoreMaker,
  StoreType,
  Supplier,
} from './catalogue.ts';
import { FacetCell, FacetCellDelta, StoreCell, StoreCellDelta } from './cells.ts';
import { DomainEvent } from './events.ts';
import { Export } from './exports.ts';
import { ExternalOrder, SkuMapping } from './external-orders.ts';
import { IdempotencyKey } from './idempotency.ts';
import { InventoryFanoutPending, InventoryFeedEntry } from './inventory.ts';
import { Listing } from './listings.ts';
import { OutboxMail } from './mail.ts';
import {
  DashboardUser,
  OAuthClient,
  OAuthCode,
  OAuthGrant,
  OAuthRequest,
  OAuthSession,
  OAuthToken,
} from './oauth.ts';
import { OrderCount, OrderCountDelta } from './order-counts.ts';
import { InvoiceCounter, Order, OrderLine, OrderStatusChange, PurchaseOrder } from './orders.ts';
import { PlatformFeature, PlatformSecret } from './platform.ts';
import { PriceSliceBound } from './price-slice-bounds.ts';
import { RateLimit } from './ratelimit.ts';
import { RequestLogEntry } from './request-log.ts';
import { SchemaFunction } from './schema-functions.ts';
import { ApiKey, Store } from './store.ts';
import { WebhookAttempt, WebhookDelivery, WebhookEvent, WebhookSubscription } from './webhooks.ts';
import { CredentialWriteMark } from './write-marks.ts';

/** Every table's entity, by name: spelled out so declaration emit (the SDK build) stays small. */
export type AnyEntity =
  | typeof Store
  | typeof ApiKey
  | typeof PlatformFeature
  | typeof PlatformSecret
  | typeof StoreDepartment
  | typeof StoreMaker
  | typeof StoreType
  | typeof Category
  | typeof Brand
  | typeof Supplier
  | typeof Product
  | typeof ProductVariant
  | typeof ProductOption
  | typeof ProductImage
  | typeof ProductDrawing
  | typeof ProductCompleteness
  | typeof FacetCell
  | typeof FacetCellDelta
  | typeof StoreCell
  | typeof StoreCellDelta
  | typeof PriceSliceBound
  | typeof ProductSearchTerm
  | typeof Listing
  | typeof Order
  | typeof OrderLine
  | typeof OrderStatusChange
  | typeof OrderCount
  | typeof OrderCountDelta
  | typeof PurchaseOrder
  | typeof InvoiceCounter
  | typeof ExternalOrder
  | typeof SkuMapping
  | typeof InventoryFeedEntry
  | typeof InventoryFanoutPending
  | typeof DomainEvent
  | typeof OutboxMail
  | typeof DashboardUser
  | typeof OAuthClient
  | typeof OAuthCode
  | typeof OAuthGrant
  | typeof OAuthRequest
  | typeof OAuthSession
  | typeof OAuthToken
  | typeof RateLimit
  | typeof IdempotencyKey
  | typeof WebhookSubscription
  | typeof WebhookDelivery
  | typeof WebhookAttempt
  | typeof WebhookEvent
  | typeof SchemaFunction
  | typeof RequestLogEntry
  | typeof CredentialWriteMark
  | typeof Export;

/** Every table as an entity; discovery is explicit, not by file globbing. */
export const entities: AnyEntity[] = [
  Store,
  ApiKey,
  PlatformFeature,
  PlatformSecret,
  StoreDepartment,
  StoreMaker,
  StoreType,
  Category,
  Brand,
  Supplier,
  Product,
  ProductVariant,
  ProductOption,
  ProductImage,
  ProductDrawing,
  ProductCompleteness,
  FacetCell,
  FacetCellDelta,
  StoreCell,
  StoreCellDelta,
  PriceSliceBound,
  ProductSearchTerm,
  Listing,
  Order,
  OrderLine,
  OrderStatusChange,
  OrderCount,
  OrderCountDelta,
  PurchaseOrder,
  InvoiceCounter,
  ExternalOrder,
  SkuMapping,
  InventoryFeedEntry,
  InventoryFanoutPending,
  DomainEvent,
  OutboxMail,
  DashboardUser,
  OAuthClient,
  OAuthCode,
  OAuthGrant,
  OAuthRequest,
  OAuthSession,
  OAuthToken,
  RateLimit,
  IdempotencyKey,
  WebhookSubscription,
  WebhookDelivery,
  WebhookAttempt,
  WebhookEvent,
  SchemaFunction,
  RequestLogEntry,
  CredentialWriteMark,
  Export,
];
