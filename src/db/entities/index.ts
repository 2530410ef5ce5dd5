import {
  Brand,
  Category,
  Product,
  ProductCompleteness,
  ProductDrawing,
  ProductImage,
  ProductOption,
  ProductVariant,
  StoreDepartment,
  StoreMaker,
  StoreType,
  Supplier,
} from './catalogue.ts';
import { FacetCell, FacetCellDelta, StoreCell, StoreCellDelta } from './cells.ts';
import { DomainEvent } from './events.ts';
import { ExternalOrder, SkuMapping } from './external-orders.ts';
import { InventoryFeedEntry } from './inventory.ts';
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
import { InvoiceCounter, Order, OrderLine, OrderStatusChange, PurchaseOrder } from './orders.ts';
import { PlatformFeature, PlatformSecret } from './platform.ts';
import { RateLimit } from './ratelimit.ts';
import { ApiKey, Store } from './store.ts';
import { WebhookAttempt, WebhookDelivery, WebhookEvent, WebhookSubscription } from './webhooks.ts';

/** Every table as an entity; discovery is explicit, not by file globbing. */
export const entities = [
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
  Listing,
  Order,
  OrderLine,
  OrderStatusChange,
  PurchaseOrder,
  InvoiceCounter,
  ExternalOrder,
  SkuMapping,
  InventoryFeedEntry,
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
  WebhookSubscription,
  WebhookDelivery,
  WebhookAttempt,
  WebhookEvent,
];
