/**
 * Generated from openapi.json (Stockless Partner API 2.0.2) by client/scripts/generate-types.ts.
 * Do not edit: run `npm run sdk:types`.
 */

/** The contract version these types were generated from. */
export const CONTRACT_VERSION = '2.0.2';

// Components

/**
 * An order of the store, as GET /api/v1/orders/{id} answers it.
 */
export interface Order {
  /**
   * The order id.
   */
  id: number;
  /**
   * `SL-…`; `TEST-SL-…` for a test order.
   */
  order_number: string;
  status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
  /**
   * `storefront`: a buyer checkout; `wholesale_api`: placed by the store through POST /api/v1/orders; `marketplace`: posted by a marketplace app.
   */
  order_type: 'storefront' | 'wholesale_api' | 'marketplace';
  /**
   * Where the buyer came from.
   */
  channel:
    | 'facebook_instagram'
    | 'google'
    | 'vendor_link'
    | 'email'
    | 'other_referral'
    | 'direct'
    | 'unknown';
  /**
   * Total paid, GST included, in cents.
   */
  total_cents: number;
  currency: string;
  /**
   * Left out without the read_customers app scope.
   */
  customer?: {
    email: string;
    name: string;
    phone: string;
  };
  items_count: number;
  /**
   * The order needs action from the store.
   */
  needs_attention: boolean;
  /**
   * Set once shipped.
   */
  tracking_number: string | null;
  /**
   * `INV-YYYYMM-NNNNNN` (`TEST-INV-YYYYMM-NNNNNN` in test mode), set once the invoice exists.
   */
  invoice_number: string | null;
  /**
   * `false` for a test order, placed with an `sl_test_` key: seen by test keys only, numbered `TEST-SL-…`, never fulfilled, mailed or taken from stock.
   */
  livemode: boolean;
  created_at: string;
  updated_at: string;
  /**
   * For a marketplace order: the marketplace app it came from.
   */
  source: string | null;
  subtotal_cents: number;
  shipping_cents: number;
  /**
   * GST included in total_cents (one eleventh).
   */
  gst_cents: number;
  items: {
    product_id: number;
    variant_id: number;
    sku: string;
    name: string;
    quantity: number;
    /**
     * Unit price, in cents.
     */
    price_cents: number;
    shipped_quantity: number;
  }[];
  /**
   * Left out without the read_customers app scope.
   */
  shipping?: {
    address: string;
    address2: string;
    city: string;
    state: string;
    zip: string;
    /**
     * ISO 3166-1 alpha-2.
     */
    country: string;
  };
  invoice_issued_at: string | null;
  cancel_reason: string | null;
}

export interface WebhookSubscription {
  id: number;
  url: string;
  events: string[];
  active: boolean;
  /**
   * Why it is inactive: set so, the endpoint answered 410, or 20 dead letters in a row.
   */
  disabled_reason: ('manual' | 'gone' | 'dead_letters') | null;
  /**
   * Consecutive dead-lettered events (20 disables it).
   */
  failure_streak: number;
  /**
   * `false` for a subscription made with an `sl_test_` key: it receives test events only, and live keys never see it.
   */
  livemode: boolean;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttempt {
  id: number;
  delivery_id: number;
  event: string;
  event_key: string;
  /**
   * The attempt number, as in `X-Stockless-Delivery-Id`.
   */
  attempt: number;
  /**
   * `refused`: the URL no longer passed the public-address check, nothing was sent.
   */
  outcome: 'succeeded' | 'failed' | 'gone' | 'refused';
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  /**
   * When the retry is due, if one is.
   */
  next_attempt_at: string | null;
  created_at: string;
}

export interface WebhookDelivery {
  /**
   * The delivery of one event to this subscription (use it to resend).
   */
  id: number;
  event: string;
  event_key: string;
  /**
   * `dead`: every attempt failed (dead-lettered); `discarded`: dropped when the subscription was disabled.
   */
  status: 'pending' | 'succeeded' | 'dead' | 'discarded';
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
}

/**
 * An event of the store, exactly as its webhook deliveries carry it.
 */
export interface EventEnvelope {
  /**
   * The event id, `evt_` and digits.
   */
  id: string;
  event:
    | 'order.created'
    | 'order.updated'
    | 'order.fulfilled'
    | 'order.shipped'
    | 'order.completed'
    | 'order.cancelled'
    | 'order.held'
    | 'invoice.issued'
    | 'product.created'
    | 'product.updated'
    | 'product.deleted'
    | 'inventory.updated'
    | 'site.published'
    | 'site.unpublished'
    | 'webhook.ping'
    | 'export.completed'
    | 'export.failed';
  /**
   * `<event>:<entity id>` (coalesced events: `<event>:<product_id>.<unix ms>`): key your processing on it.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  /**
   * The event's data, as its webhook delivers it (see the webhooks section): `{ order }` for order and invoice events (buyer fields left out without the read_customers app scope), ids only for product and inventory events.
   */
  data:
    | OrderEventData
    | ProductEventData
    | OrderHeldEventData
    | SiteEventData
    | PingEventData
    | ExportEventData;
}

/**
 * A request the store made to the API, as the request log keeps it.
 */
export interface LoggedRequest {
  /**
   * The request's id: its `X-Request-Id` (and an error body's `request_id`).
   */
  id: string;
  method: string;
  /**
   * The path, without the query.
   */
  path: string;
  /**
   * The query's parameters the operation declares, with their values (a `search` term as `[redacted]`); parameters it does not declare are left out. Null without one.
   */
  query: string | null;
  /**
   * The contract's operationId (null for a path no operation has).
   */
  operation: string | null;
  status: number;
  /**
   * For an error answer, its category and code; never its message (see the description).
   */
  error: {
    /**
     * The error body's `error` (category).
     */
    type: string;
    /**
     * The error body's `code`.
     */
    code: string | null;
  } | null;
  /**
   * Time from arrival to the last byte sent, in ms.
   */
  duration_ms: number;
  /**
   * Which credential made the request.
   */
  credential: {
    type: 'api_key' | 'app' | 'mcp';
    /**
     * An API key's public prefix (never the secret); null for an app token.
     */
    prefix: string | null;
  };
  /**
   * The OAuth app whose token made the request; null for an API key.
   */
  app: {
    client_id: string;
    name: string;
  } | null;
  idempotency_key: string | null;
  /**
   * Answered from a kept answer of an earlier request with the same Idempotency-Key.
   */
  replayed: boolean;
  user_agent: string | null;
  /**
   * When the request arrived.
   */
  created_at: string;
  /**
   * `false` for a request made with an `sl_test_` key.
   */
  livemode: boolean;
}

/**
 * A bulk export: an asynchronous JSON Lines (gzip) file of a list.
 */
export interface Export {
  /**
   * The export id.
   */
  id: string;
  object: 'export';
  type: 'catalogue' | 'listings' | 'orders';
  /**
   * `queued` → `running` → `completed` or `failed`; a completed export becomes `expired` when its file is deleted (7 days).
   */
  status: 'queued' | 'running' | 'completed' | 'failed' | 'expired';
  /**
   * The filters as given (parsed).
   */
  filters: {
    [k: string]: unknown | undefined;
  };
  /**
   * `false` for an export made with a test key (test orders).
   */
  livemode: boolean;
  /**
   * Lines written so far: the progress.
   */
  rows_written: number;
  /**
   * Lines in the file, once completed.
   */
  row_count: number | null;
  /**
   * Size of the gzip file, once completed.
   */
  bytes: number | null;
  /**
   * Once completed: a signed download url (no API key needed; valid until `url_expires_at`). Every GET signs a fresh one.
   */
  url: string | null;
  /**
   * When `url` stops working.
   */
  url_expires_at: string | null;
  /**
   * Once completed: where the feeds continue from the snapshot the file was read in.
   */
  continuation: {
    /**
     * GET /api/v1/events?order=asc&cursor=… from here returns every change the file does not hold (and may repeat a few it does).
     */
    events_cursor: string;
    /**
     * Listings exports: GET /api/v1/inventory?updated_since=… continues the feed from the file.
     */
    inventory_cursor: string | null;
  } | null;
  /**
   * Why a failed export failed.
   */
  error: {
    code: string;
    message: string;
  } | null;
  created_at: string;
  /**
   * When the job began reading.
   */
  started_at: string | null;
  /**
   * When it completed or failed.
   */
  completed_at: string | null;
  /**
   * When its file is deleted (completed exports).
   */
  expires_at: string | null;
}

/**
 * The error body of every `/api/v1` operation. Some codes add fields of their own (for example `minimum_price_cents` with `PRICE_BELOW_MINIMUM`, `lines` with `INSUFFICIENT_STOCK` and `PRICE_CHANGED`).
 */
export interface ErrorBody {
  /**
   * Error category.
   */
  error:
    | 'bad_request'
    | 'unauthorized'
    | 'forbidden'
    | 'not_found'
    | 'method_not_allowed'
    | 'conflict'
    | 'unprocessable_content'
    | 'rate_limited'
    | 'server_error';
  /**
   * Human-readable explanation.
   */
  message: string;
  /**
   * Machine-readable code, e.g. INSUFFICIENT_SCOPE.
   */
  code?: string;
  /**
   * With every `code`: the code's entry on the error reference page (`/docs/errors/<code>`): what it means, its usual cause, the fix and an example.
   */
  doc_url?: string;
  /**
   * Same as the X-Request-Id response header.
   */
  request_id: string;
  /**
   * On 403 INSUFFICIENT_SCOPE: the scope that was missing.
   */
  required_scope?: string;
  /**
   * On validation errors: one entry per invalid field.
   */
  details?: {
    path: string;
    message: string;
  }[];
  /**
   * On 429: seconds until one more request is allowed; on 503 QUERY_TOO_EXPENSIVE: seconds to wait before retrying. As the Retry-After header.
   */
  retry_after?: number;
  /**
   * With PRICE_BELOW_MINIMUM: the lowest retail price allowed for the product.
   */
  minimum_price_cents?: number;
  /**
   * With PRODUCT_NOT_ORDERABLE and VARIANT_REQUIRED: the product of the failing line.
   */
  product_id?: number;
  /**
   * With VARIANT_REQUIRED: the variants to choose from.
   */
  variant_ids?: number[];
  /**
   * With INVALID_TRANSITION: the order's status now, which the move was refused from.
   */
  status?: string;
  /**
   * With EXPORT_ALREADY_RUNNING: the export queued or running, to wait for.
   */
  export_id?: string;
  /**
   * With PAYMENT_MISMATCH: the order total the payment must equal.
   */
  total_cents?: number;
  /**
   * With INSUFFICIENT_STOCK: the short lines (`requested`, `available`); with PRICE_CHANGED: the current wholesale `price_cents` of each changed line.
   */
  lines?: {
    product_id: number;
    variant_id: number;
    requested?: number;
    available?: number;
    price_cents?: number;
  }[];
}

/**
 * RFC 6749 §5.2: the error form of every OAuth and discovery endpoint.
 */
export interface OAuthError {
  /**
   * An RFC 6749 / RFC 7591 / RFC 8707 error code: `invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_target`, `invalid_redirect_uri`, `invalid_client_metadata`, `temporarily_unavailable`, `not_found`
   */
  error: string;
  /**
   * Human-readable explanation.
   */
  error_description: string;
  /**
   * The error's entry on the error reference page (`/docs/errors/<error>`).
   */
  error_uri?: string;
}

/**
 * RFC 7591 client metadata. Only public clients are registered (`token_endpoint_auth_method: none`, PKCE).
 */
export interface OAuthClientMetadata {
  /**
   * Redirect URIs, matched exactly: `https://` without a fragment; for native and desktop apps `http://localhost`, `http://127.0.0.1` or `http://[::1]`, where any port matches at authorize (RFC 8252 §7.3), or a private-use scheme such as `com.example.app:/callback` (§7.1). Schemes a browser gives a meaning of its own (`javascript:`, `data:`, `file:`, …) are refused.
   *
   * @minItems 1
   * @maxItems 10
   */
  redirect_uris: string[];
  client_name?: string;
  /**
   * Public clients only.
   */
  token_endpoint_auth_method?: 'none';
  grant_types?: ('authorization_code' | 'refresh_token')[];
  response_types?: 'code'[];
  /**
   * Space-separated app scopes the app may ask for; default: all of them.
   */
  scope?: string;
  /**
   * https only.
   */
  client_uri?: string;
  /**
   * https only.
   */
  logo_uri?: string;
  /**
   * https only.
   */
  policy_uri?: string;
  /**
   * https only.
   */
  tos_uri?: string;
  /**
   * @maxItems 10
   */
  contacts?: string[];
  software_id?: string;
  software_version?: string;
}

/**
 * The registered client (RFC 7591 §3.2.1). There is no client secret.
 */
export interface OAuthClient {
  client_id: string;
  /**
   * Unix seconds.
   */
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope: string;
  client_uri?: string;
  logo_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
  contacts?: string[];
  software_id?: string;
  software_version?: string;
}

/**
 * Form fields of a token request (`application/x-www-form-urlencoded`).
 */
export type OAuthTokenRequest =
  | {
      grant_type: 'authorization_code';
      client_id: string;
      /**
       * The code from the redirect: single use, valid 5 minutes. A replayed code revokes its tokens.
       */
      code: string;
      /**
       * The PKCE verifier whose S256 challenge was sent to authorize.
       */
      code_verifier: string;
      /**
       * Exactly as sent to authorize.
       */
      redirect_uri: string;
      /**
       * RFC 8707: `{base_url}/api/v1`, as sent to authorize.
       */
      resource: string;
    }
  | {
      grant_type: 'refresh_token';
      client_id: string;
      /**
       * Rotates: the answer carries a new refresh token. Presenting a spent one revokes every token of the grant.
       */
      refresh_token: string;
      /**
       * Optional: fewer scopes than the grant's for the new access token.
       */
      scope?: string;
      /**
       * RFC 8707: `{base_url}/api/v1`.
       */
      resource: string;
    };

export interface OAuthToken {
  /**
   * Valid one hour, only on `{base_url}/api/v1`.
   */
  access_token: string;
  token_type: 'Bearer';
  /**
   * Seconds.
   */
  expires_in: number;
  /**
   * Valid 30 days; single use (rotates).
   */
  refresh_token: string;
  /**
   * Informational: the scopes of the store's grant are read on every call.
   */
  scope: string;
}

export interface OAuthRevocationRequest {
  client_id: string;
  /**
   * An access or refresh token of this client. A refresh token ends the grant's tokens; an access token ends itself.
   */
  token: string;
  /**
   * Accepted and not needed: the token says what it is.
   */
  token_type_hint?: 'access_token' | 'refresh_token';
}

/**
 * RFC 8414 authorization server metadata.
 */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
  response_types_supported: string[];
  response_modes_supported?: string[];
  grant_types_supported: string[];
  code_challenge_methods_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  revocation_endpoint_auth_methods_supported?: string[];
  scopes_supported: string[];
  authorization_response_iss_parameter_supported?: boolean;
  service_documentation?: string;
}

/**
 * RFC 9728 protected resource metadata.
 */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
  resource_documentation?: string;
}

/**
 * The order as GET /api/v1/orders/{id} shows it to an API key (buyer details included), rendered when the event is dispatched, normally well under a second after the change. In the rare case the order can no longer be read then, `order` is null and `order_id` names it.
 */
export interface OrderEventData {
  order: Order | null;
  /**
   * Only when `order` is null.
   */
  order_id?: number;
}

/**
 * Ids only, coalesced: many changes to one product within the window (30 seconds by default) arrive as one delivery when the window closes. Re-read the product and its stock from the API; never treat the delivery as the new state.
 */
export interface ProductEventData {
  /**
   * The catalogue product id.
   */
  product_id: number;
  /**
   * Present when every change in the window was to this one variant.
   */
  variant_id?: number;
}

export interface OrderHeldEventData {
  marketplace: string;
  external_order_id: string;
  reason: 'unmapped_sku' | 'service_supplied' | 'insufficient_stock';
  lines: {
    sku: string;
    reason: 'unmapped_sku' | 'service_supplied' | 'insufficient_stock';
  }[];
}

export interface SiteEventData {
  store_id: number;
  /**
   * `true` for site.published, `false` for site.unpublished.
   */
  published: boolean;
  /**
   * When the storefront was published; null once unpublished.
   */
  published_at: string | null;
}

export interface PingEventData {
  /**
   * The subscription pinged.
   */
  webhook_id: number;
}

export interface ExportEventData {
  /**
   * The export that ended. Its download url is not in the event: GET the export for a freshly signed one.
   */
  export: {
    id: string;
    object: 'export';
    type: 'catalogue' | 'listings' | 'orders';
    status: 'completed' | 'failed';
    row_count: number | null;
    bytes: number | null;
    error: {
      code: string;
      message: string;
    } | null;
  };
}

// Operations

/**
 * Query of listProducts.
 */
export interface ListProductsQuery {
  /**
   * Full-text search on name, SKU and description; when it finds nothing, a substring of the name or SKU (3 characters or more).
   */
  search?: string;
  /**
   * Only products in stock (`true`) or out of stock (`false`).
   */
  in_stock?: boolean;
  /**
   * `wholesale`: the store buys at the wholesale price and keeps the margin; `commission`: the store earns a commission per sale.
   */
  pricing_type?: 'wholesale' | 'commission';
  /**
   * Only products of this supplier.
   */
  supplier_id?: number;
  /**
   * Brand name (case-insensitive) or slug.
   */
  brand?: string;
  /**
   * Category slug or name (with its child categories), or a raw category value.
   */
  category?: string;
  /**
   * Taxonomy vertical slug, or `_other` for products outside every vertical.
   */
  store_type?: string;
  /**
   * `true` hides products already in the store.
   */
  exclude_in_store?: boolean;
  /**
   * `buy_now`: card checkout; `enquiry`: quote-only products.
   */
  purchase_mode?: 'buy_now' | 'enquiry';
  /**
   * Retail price lower bound in cents, inclusive.
   */
  price_min_cents?: number;
  /**
   * Retail price upper bound in cents, exclusive.
   */
  price_max_cents?: number;
  /**
   * Only products the nightly readiness pass marked ready.
   */
  ready_to_list?: boolean;
  /**
   * Channel (storefront, google, meta, freight): only products scored 100% complete for it; a channel not yet scored matches nothing.
   */
  complete_for?: string;
  /**
   * `store`: the store's departments, makers, own goods and uncategorised products; default: the store's setting.
   */
  scope?: 'store' | 'all';
  /**
   * Own suppliers' products, the service's catalogue (`btab`), or all; only for stores with own suppliers.
   */
  ownership?: 'own' | 'btab' | 'all';
  /**
   * Page number, 1-based.
   */
  page?: number;
  /**
   * Products per page (at most 500).
   */
  limit?: number;
  /**
   * Sort key; omitted: relevance when searching, else the platform default.
   */
  sort_by?:
    | 'name'
    | 'created_at'
    | 'updated_at'
    | 'stock_quantity'
    | 'retail_price_cents'
    | 'wholesale_price_cents'
    | 'sku'
    | 'margin'
    | 'readiness'
    | 'recommended';
  /**
   * Sort direction.
   */
  order?: 'asc' | 'desc';
}

/**
 * Response of listProducts (200).
 */
export interface ListProductsResponse {
  products: {
    /**
     * The catalogue product id.
     */
    id: number;
    name: string;
    description: string;
    sku: string;
    /**
     * What the store pays, in cents.
     */
    wholesale_price_cents: number;
    /**
     * Suggested retail price, in cents.
     */
    retail_price_cents: number;
    /**
     * The store's own retail price, if it set one.
     */
    custom_retail_price_cents: number | null;
    /**
     * The main image, or null while the supplier has given none: such a product cannot be ordered (`PRODUCT_NOT_ORDERABLE`) and scores below 100% for every channel.
     */
    image_url: string | null;
    in_stock: boolean;
    stock_quantity: number;
    metadata: {
      /**
       * The category: its name, else the raw value the supplier gave; null for a product not yet categorised (`scope=store` includes those).
       */
      category: string | null;
      /**
       * Shipping weight in ounces, or null while the supplier has given none (`missing=weight` on `/my-products` finds those listings).
       */
      weight_oz: number | null;
    };
    /**
     * What the store earns per sale at its effective price.
     */
    earn_per_sale_cents: number;
    /**
     * The lowest retail price the store may set.
     */
    minimum_price_cents: number;
    brand: string | null;
    supplier_id: number;
    pricing_type: 'wholesale' | 'commission';
    purchase_mode: 'buy_now' | 'enquiry';
    /**
     * Already listed in the store.
     */
    in_store: boolean;
    created_at: string;
    updated_at: string;
  }[];
  pagination: {
    /**
     * This page, 1-based.
     */
    page: number;
    /**
     * Items per page.
     */
    limit: number;
    /**
     * Items matching, over every page.
     */
    total_count: number;
    total_pages: number;
    /**
     * Only a search can set it: more than 1,000 products match, `total_count` and `total_pages` say 1,000 and its pages, and pages past them still list the further matches.
     */
    total_count_is_lower_bound: boolean;
  };
  /**
   * Only for a store whose account has own suppliers.
   */
  ownership?: {
    /**
     * The ownership filter in force.
     */
    applied: 'own' | 'btab' | 'all';
    choices: ('own' | 'btab' | 'all')[];
  };
}

/**
 * Query of getProductFacets.
 */
export interface GetProductFacetsQuery {
  /**
   * Full-text search on name, SKU and description; when it finds nothing, a substring of the name or SKU (3 characters or more).
   */
  search?: string;
  /**
   * Only products in stock (`true`) or out of stock (`false`).
   */
  in_stock?: boolean;
  /**
   * `wholesale`: the store buys at the wholesale price and keeps the margin; `commission`: the store earns a commission per sale.
   */
  pricing_type?: 'wholesale' | 'commission';
  /**
   * Only products of this supplier.
   */
  supplier_id?: number;
  /**
   * Brand name (case-insensitive) or slug.
   */
  brand?: string;
  /**
   * Category slug or name (with its child categories), or a raw category value.
   */
  category?: string;
  /**
   * Taxonomy vertical slug, or `_other` for products outside every vertical.
   */
  store_type?: string;
  /**
   * `true` hides products already in the store.
   */
  exclude_in_store?: boolean;
  /**
   * `buy_now`: card checkout; `enquiry`: quote-only products.
   */
  purchase_mode?: 'buy_now' | 'enquiry';
  /**
   * Retail price lower bound in cents, inclusive.
   */
  price_min_cents?: number;
  /**
   * Retail price upper bound in cents, exclusive.
   */
  price_max_cents?: number;
  /**
   * Only products the nightly readiness pass marked ready.
   */
  ready_to_list?: boolean;
  /**
   * Channel (storefront, google, meta, freight): only products scored 100% complete for it; a channel not yet scored matches nothing.
   */
  complete_for?: string;
  /**
   * `store`: the store's departments, makers, own goods and uncategorised products; default: the store's setting.
   */
  scope?: 'store' | 'all';
  /**
   * Own suppliers' products, the service's catalogue (`btab`), or all; only for stores with own suppliers.
   */
  ownership?: 'own' | 'btab' | 'all';
}

/**
 * Response of getProductFacets (200).
 */
export interface GetProductFacetsResponse {
  facets: {
    brand: {
      value: string;
      count: number;
    }[];
    category: {
      value: string;
      count: number;
    }[];
    store_type: {
      value: string;
      count: number;
    }[];
    supplier_id: {
      value: string;
      count: number;
    }[];
    pricing_type: {
      value: string;
      count: number;
    }[];
    purchase_mode: {
      value: string;
      count: number;
    }[];
    in_stock: {
      value: string;
      count: number;
    }[];
    ready_to_list: {
      value: string;
      count: number;
    }[];
    complete_for: {
      value: string;
      count: number;
    }[];
    price_band: {
      value: string;
      count: number;
    }[];
  };
  /**
   * Products matching every active filter.
   */
  total_count: number;
  /**
   * Only a search can set it: more than 1,000 products match the filters that are not facets, and the counts are taken over the best 1,000 by recommended score (the ones the list ranks first), so each is a lower bound.
   */
  total_count_is_lower_bound: boolean;
  /**
   * Only for a store whose account has own suppliers.
   */
  ownership?: {
    /**
     * The ownership filter in force.
     */
    applied: 'own' | 'btab' | 'all';
    choices: ('own' | 'btab' | 'all')[];
  };
}

/**
 * Path parameters of getProduct.
 */
export interface GetProductPathParams {
  /**
   * The catalogue product id.
   */
  id: number;
}

/**
 * Response of getProduct (200).
 */
export interface GetProductResponse {
  product: {
    /**
     * The catalogue product id.
     */
    id: number;
    name: string;
    description: string;
    sku: string;
    /**
     * What the store pays, in cents.
     */
    wholesale_price_cents: number;
    /**
     * Suggested retail price, in cents.
     */
    retail_price_cents: number;
    /**
     * The store's own retail price, if it set one.
     */
    custom_retail_price_cents: number | null;
    /**
     * The main image, or null while the supplier has given none: such a product cannot be ordered (`PRODUCT_NOT_ORDERABLE`) and scores below 100% for every channel.
     */
    image_url: string | null;
    in_stock: boolean;
    stock_quantity: number;
    metadata: {
      /**
       * The category: its name, else the raw value the supplier gave; null for a product not yet categorised (`scope=store` includes those).
       */
      category: string | null;
      /**
       * Shipping weight in ounces, or null while the supplier has given none (`missing=weight` on `/my-products` finds those listings).
       */
      weight_oz: number | null;
    };
    /**
     * What the store earns per sale at its effective price.
     */
    earn_per_sale_cents: number;
    /**
     * The lowest retail price the store may set.
     */
    minimum_price_cents: number;
    brand: string | null;
    supplier_id: number;
    pricing_type: 'wholesale' | 'commission';
    purchase_mode: 'buy_now' | 'enquiry';
    /**
     * Already listed in the store.
     */
    in_store: boolean;
    created_at: string;
    updated_at: string;
    images: {
      url: string;
      alt: string;
      position: number;
    }[];
    options: {
      name: string;
      values: string[];
    }[];
    variants: {
      /**
       * The variant id.
       */
      id: number;
      sku: string;
      title: string;
      option_values: {
        [k: string]: string | undefined;
      };
      wholesale_price_cents: number;
      retail_price_cents: number;
      in_stock: boolean;
      stock_quantity: number;
    }[];
    assembled_dimensions: {
      width_cm: number | null;
      depth_cm: number | null;
      height_cm: number | null;
    } | null;
    drawings: {
      url: string;
      title: string;
    }[];
    /**
     * Sales channels the supplier keeps this product off (`storefront`, `google`, `meta`, `freight`); empty when it may be sold everywhere.
     */
    hidden_channels: ('storefront' | 'google' | 'meta' | 'freight')[];
  };
}

/**
 * Response of getStore (200).
 */
export interface GetStoreResponse {
  store: {
    /**
     * The store id.
     */
    id: number;
    name: string;
    slug: string;
    currency: string;
    created_at: string;
    /**
     * The account has own suppliers (the `ownership` filter applies).
     */
    has_own_suppliers: boolean;
    /**
     * The store's orders.
     */
    stats: {
      orders_total: number;
      orders_by_status: {
        pending: number;
        processing: number;
        fulfilled: number;
        shipped: number;
        delivered: number;
        cancelled: number;
      };
      /**
       * Total of every order not cancelled, in cents.
       */
      revenue_cents: number;
      last_order_at: string | null;
    };
  };
}

/**
 * Query of listMyProducts.
 */
export interface ListMyProductsQuery {
  /**
   * Page number, 1-based.
   */
  page?: number;
  /**
   * Listings per page (at most 500).
   */
  limit?: number;
  /**
   * Searches the store's listings by product name and SKU.
   */
  search?: string;
  /**
   * Only listings missing shipping data: `weight`, `dimensions` or `either`. Other values are ignored.
   */
  missing?: string;
  /**
   * `variants` adds `options` (option group titles) and `variants` (identity and stock).
   */
  include?: string;
  /**
   * `true`: only own goods (products of the store's own suppliers).
   */
  own_goods?: 'true' | 'false';
}

/**
 * Response of listMyProducts (200).
 */
export interface ListMyProductsResponse {
  products: {
    /**
     * The listing id.
     */
    id: number;
    /**
     * The catalogue product id (used in every /my-products path).
     */
    product_id: number;
    /**
     * The catalogue's name of the product.
     */
    name: string;
    /**
     * The store's own title for the listing (what its storefront shows), or null: the catalogue's `name`.
     */
    custom_title: string | null;
    sku: string;
    /**
     * The main image, or null while the supplier has given none.
     */
    image_url: string | null;
    wholesale_price_cents: number;
    /**
     * Suggested retail price.
     */
    retail_price_cents: number;
    custom_retail_price_cents: number | null;
    /**
     * What buyers pay: the custom price, else the suggested.
     */
    effective_retail_price_cents: number;
    /**
     * `buy_now`: card checkout; `enquiry`: quote only.
     */
    purchase_mode: 'buy_now' | 'enquiry';
    /**
     * The vendor ships this listing themselves.
     */
    vendor_fulfilled: boolean;
    /**
     * A product of the store's own supplier.
     */
    own_goods: boolean;
    in_stock: boolean;
    /**
     * Units the store can sell (0 once withdrawn).
     */
    stock_quantity: number;
    /**
     * Sales channels the listing is kept off, by the supplier or by the store (`storefront`, `google`, `meta`, `freight`).
     */
    hidden_channels: ('storefront' | 'google' | 'meta' | 'freight')[];
    /**
     * When the product was withdrawn from the catalogue, else null. A withdrawn listing stays readable but sells nothing; it sells again if the product is reinstated.
     */
    withdrawn_at: string | null;
    created_at: string;
    updated_at: string;
    /**
     * With include=variants: option group titles.
     */
    options?: string[];
    /**
     * With include=variants.
     */
    variants?: {
      /**
       * The variant id.
       */
      id: number;
      sku: string;
      title: string;
      option_values: {
        [k: string]: string | undefined;
      };
      /**
       * Buyers can order it now.
       */
      available_for_sale: boolean;
      /**
       * Units the store can sell.
       */
      quantity_available: number;
    }[];
  }[];
  pagination: {
    /**
     * This page, 1-based.
     */
    page: number;
    /**
     * Items per page.
     */
    limit: number;
    /**
     * Items matching, over every page.
     */
    total_count: number;
    total_pages: number;
  };
}

/**
 * Request body of addMyProduct.
 */
export interface AddMyProductBody {
  /**
   * The catalogue product to list.
   */
  product_id: number;
  /**
   * Retail price in cents.
   */
  custom_retail_price_cents?: number;
}

/**
 * Response of addMyProduct (201).
 */
export interface AddMyProductResponse {
  message: string;
  vendor_product: {
    /**
     * The listing id.
     */
    id: number;
    /**
     * The catalogue product id.
     */
    product_id: number;
    custom_retail_price_cents: number | null;
    purchase_mode: 'buy_now' | 'enquiry';
    vendor_fulfilled: boolean;
  };
}

/**
 * Request body of bulkAddMyProducts.
 */
export interface BulkAddMyProductsBody {
  mode: 'ids' | 'filter';
  /**
   * With mode `ids`: 1 to 500 catalogue product ids.
   *
   * @minItems 1
   * @maxItems 500
   */
  product_ids?: number[];
  /**
   * With mode `filter`: the catalogue filter parameters; `{}` matches everything.
   */
  filters?: {
    /**
     * Full-text search on name, SKU and description; when it finds nothing, a substring of the name or SKU (3 characters or more).
     */
    search?: string;
    /**
     * Only products in stock (`true`) or out of stock (`false`).
     */
    in_stock?: boolean;
    /**
     * `wholesale`: the store buys at the wholesale price and keeps the margin; `commission`: the store earns a commission per sale.
     */
    pricing_type?: 'wholesale' | 'commission';
    /**
     * Only products of this supplier.
     */
    supplier_id?: number;
    /**
     * Brand name (case-insensitive) or slug.
     */
    brand?: string;
    /**
     * Category slug or name (with its child categories), or a raw category value.
     */
    category?: string;
    /**
     * Taxonomy vertical slug, or `_other` for products outside every vertical.
     */
    store_type?: string;
    /**
     * `true` hides products already in the store.
     */
    exclude_in_store?: boolean;
    /**
     * `buy_now`: card checkout; `enquiry`: quote-only products.
     */
    purchase_mode?: 'buy_now' | 'enquiry';
    /**
     * Retail price lower bound in cents, inclusive.
     */
    price_min_cents?: number;
    /**
     * Retail price upper bound in cents, exclusive.
     */
    price_max_cents?: number;
    /**
     * Only products the nightly readiness pass marked ready.
     */
    ready_to_list?: boolean;
    /**
     * Channel (storefront, google, meta, freight): only products scored 100% complete for it; a channel not yet scored matches nothing.
     */
    complete_for?: string;
    /**
     * `store`: the store's departments, makers, own goods and uncategorised products; default: the store's setting.
     */
    scope?: 'store' | 'all';
    /**
     * Own suppliers' products, the service's catalogue (`btab`), or all; only for stores with own suppliers.
     */
    ownership?: 'own' | 'btab' | 'all';
  };
}

/**
 * Response of bulkAddMyProducts (200).
 */
export interface BulkAddMyProductsResponse {
  /**
   * Newly listed.
   */
  added: number;
  /**
   * Listed again after an earlier removal.
   */
  restored: number;
  /**
   * With mode `ids`: the ids that were not acted on, and why.
   */
  skipped: {
    product_id: number;
    reason: 'not_found' | 'already_listed' | 'not_in_store' | 'duplicate';
  }[];
}

/**
 * Request body of bulkRemoveMyProducts.
 */
export interface BulkRemoveMyProductsBody {
  mode: 'ids' | 'filter';
  /**
   * With mode `ids`: 1 to 500 catalogue product ids.
   *
   * @minItems 1
   * @maxItems 500
   */
  product_ids?: number[];
  /**
   * With mode `filter`: the catalogue filter parameters; `{}` matches everything.
   */
  filters?: {
    /**
     * Full-text search on name, SKU and description; when it finds nothing, a substring of the name or SKU (3 characters or more).
     */
    search?: string;
    /**
     * Only products in stock (`true`) or out of stock (`false`).
     */
    in_stock?: boolean;
    /**
     * `wholesale`: the store buys at the wholesale price and keeps the margin; `commission`: the store earns a commission per sale.
     */
    pricing_type?: 'wholesale' | 'commission';
    /**
     * Only products of this supplier.
     */
    supplier_id?: number;
    /**
     * Brand name (case-insensitive) or slug.
     */
    brand?: string;
    /**
     * Category slug or name (with its child categories), or a raw category value.
     */
    category?: string;
    /**
     * Taxonomy vertical slug, or `_other` for products outside every vertical.
     */
    store_type?: string;
    /**
     * `true` hides products already in the store.
     */
    exclude_in_store?: boolean;
    /**
     * `buy_now`: card checkout; `enquiry`: quote-only products.
     */
    purchase_mode?: 'buy_now' | 'enquiry';
    /**
     * Retail price lower bound in cents, inclusive.
     */
    price_min_cents?: number;
    /**
     * Retail price upper bound in cents, exclusive.
     */
    price_max_cents?: number;
    /**
     * Only products the nightly readiness pass marked ready.
     */
    ready_to_list?: boolean;
    /**
     * Channel (storefront, google, meta, freight): only products scored 100% complete for it; a channel not yet scored matches nothing.
     */
    complete_for?: string;
    /**
     * `store`: the store's departments, makers, own goods and uncategorised products; default: the store's setting.
     */
    scope?: 'store' | 'all';
    /**
     * Own suppliers' products, the service's catalogue (`btab`), or all; only for stores with own suppliers.
     */
    ownership?: 'own' | 'btab' | 'all';
  };
}

/**
 * Response of bulkRemoveMyProducts (200).
 */
export interface BulkRemoveMyProductsResponse {
  /**
   * Listings removed (soft delete).
   */
  removed: number;
  /**
   * With mode `ids`: the ids that were not acted on, and why.
   */
  skipped: {
    product_id: number;
    reason: 'not_found' | 'already_listed' | 'not_in_store' | 'duplicate';
  }[];
}

/**
 * Path parameters of getMyProduct.
 */
export interface GetMyProductPathParams {
  /**
   * The catalogue product id of the listing.
   */
  productId: number;
}

/**
 * Response of getMyProduct (200).
 */
export interface GetMyProductResponse {
  product: {
    /**
     * The listing id.
     */
    id: number;
    /**
     * The catalogue product id (used in every /my-products path).
     */
    product_id: number;
    /**
     * The catalogue's name of the product.
     */
    name: string;
    /**
     * The store's own title for the listing (what its storefront shows), or null: the catalogue's `name`.
     */
    custom_title: string | null;
    sku: string;
    /**
     * The main image, or null while the supplier has given none.
     */
    image_url: string | null;
    wholesale_price_cents: number;
    /**
     * Suggested retail price.
     */
    retail_price_cents: number;
    custom_retail_price_cents: number | null;
    /**
     * What buyers pay: the custom price, else the suggested.
     */
    effective_retail_price_cents: number;
    /**
     * `buy_now`: card checkout; `enquiry`: quote only.
     */
    purchase_mode: 'buy_now' | 'enquiry';
    /**
     * The vendor ships this listing themselves.
     */
    vendor_fulfilled: boolean;
    /**
     * A product of the store's own supplier.
     */
    own_goods: boolean;
    in_stock: boolean;
    /**
     * Units the store can sell (0 once withdrawn).
     */
    stock_quantity: number;
    /**
     * Sales channels the listing is kept off, by the supplier or by the store (`storefront`, `google`, `meta`, `freight`).
     */
    hidden_channels: ('storefront' | 'google' | 'meta' | 'freight')[];
    /**
     * When the product was withdrawn from the catalogue, else null. A withdrawn listing stays readable but sells nothing; it sells again if the product is reinstated.
     */
    withdrawn_at: string | null;
    created_at: string;
    updated_at: string;
    options: {
      name: string;
      values: string[];
    }[];
    variants: {
      /**
       * The variant id.
       */
      id: number;
      sku: string;
      title: string;
      option_values: {
        [k: string]: string | undefined;
      };
      /**
       * Buyers can order it now.
       */
      available_for_sale: boolean;
      /**
       * Units the store can sell.
       */
      quantity_available: number;
      /**
       * What buyers pay for this variant.
       */
      price_cents: number;
    }[];
  };
}

/**
 * Path parameters of removeMyProduct.
 */
export interface RemoveMyProductPathParams {
  /**
   * The catalogue product id of the listing.
   */
  productId: number;
}

/**
 * Response of removeMyProduct (200).
 */
export interface RemoveMyProductResponse {
  message: string;
}

/**
 * Path parameters of setMyProductPricing.
 */
export interface SetMyProductPricingPathParams {
  /**
   * The catalogue product id of the listing.
   */
  productId: number;
}

/**
 * Request body of setMyProductPricing.
 */
export interface SetMyProductPricingBody {
  /**
   * Cents; `null` restores the suggested price.
   */
  custom_retail_price_cents: number | null;
}

/**
 * Response of setMyProductPricing (200).
 */
export interface SetMyProductPricingResponse {
  message: string;
  vendor_product: {
    /**
     * The listing id.
     */
    id: number;
    /**
     * The catalogue product id.
     */
    product_id: number;
    custom_retail_price_cents: number | null;
    purchase_mode: 'buy_now' | 'enquiry';
    vendor_fulfilled: boolean;
  };
}

/**
 * Path parameters of setMyProductPurchaseMode.
 */
export interface SetMyProductPurchaseModePathParams {
  /**
   * The catalogue product id of the listing.
   */
  productId: number;
}

/**
 * Request body of setMyProductPurchaseMode.
 */
export interface SetMyProductPurchaseModeBody {
  /**
   * `buy_now`: card checkout; `enquiry`: quote only (409 for a product the catalogue sells only on quote).
   */
  purchase_mode: 'buy_now' | 'enquiry';
}

/**
 * Response of setMyProductPurchaseMode (200).
 */
export interface SetMyProductPurchaseModeResponse {
  message: string;
  vendor_product: {
    /**
     * The listing id.
     */
    id: number;
    /**
     * The catalogue product id.
     */
    product_id: number;
    custom_retail_price_cents: number | null;
    purchase_mode: 'buy_now' | 'enquiry';
    vendor_fulfilled: boolean;
  };
}

/**
 * Path parameters of setMyProductVendorFulfilled.
 */
export interface SetMyProductVendorFulfilledPathParams {
  /**
   * The catalogue product id of the listing.
   */
  productId: number;
}

/**
 * Request body of setMyProductVendorFulfilled.
 */
export interface SetMyProductVendorFulfilledBody {
  /**
   * `true`: own goods, the vendor ships this listing themselves.
   */
  vendor_fulfilled: boolean;
}

/**
 * Response of setMyProductVendorFulfilled (200).
 */
export interface SetMyProductVendorFulfilledResponse {
  message: string;
  vendor_product: {
    /**
     * The listing id.
     */
    id: number;
    /**
     * The catalogue product id.
     */
    product_id: number;
    custom_retail_price_cents: number | null;
    purchase_mode: 'buy_now' | 'enquiry';
    vendor_fulfilled: boolean;
  };
}

/**
 * Query of listOrders.
 */
export interface ListOrdersQuery {
  /**
   * Only orders in this status.
   */
  status?: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
  /**
   * Lower bound on created_at, inclusive (a bare date starts at 00:00 UTC).
   */
  start_date?: string;
  /**
   * Upper bound on created_at; a bare date includes that whole day (UTC).
   */
  end_date?: string;
  /**
   * Order number, buyer name or buyer email (substring, case-insensitive).
   */
  search?: string;
  /**
   * `1`: only orders needing action.
   */
  attention?: '1';
  /**
   * Only orders whose buyer came through this channel.
   */
  channel?:
    | 'facebook_instagram'
    | 'google'
    | 'vendor_link'
    | 'email'
    | 'other_referral'
    | 'direct'
    | 'unknown';
  /**
   * Page number, 1-based.
   */
  page?: number;
  /**
   * Orders per page (at most 500).
   */
  limit?: number;
  /**
   * Sort key.
   */
  sort_by?: 'created_at' | 'updated_at' | 'id';
  /**
   * Sort direction.
   */
  order?: 'asc' | 'desc';
}

/**
 * Response of listOrders (200).
 */
export interface ListOrdersResponse {
  orders: {
    /**
     * The order id.
     */
    id: number;
    /**
     * `SL-…`; `TEST-SL-…` for a test order.
     */
    order_number: string;
    status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    /**
     * `storefront`: a buyer checkout; `wholesale_api`: placed by the store through POST /api/v1/orders; `marketplace`: posted by a marketplace app.
     */
    order_type: 'storefront' | 'wholesale_api' | 'marketplace';
    /**
     * Where the buyer came from.
     */
    channel:
      | 'facebook_instagram'
      | 'google'
      | 'vendor_link'
      | 'email'
      | 'other_referral'
      | 'direct'
      | 'unknown';
    /**
     * Total paid, GST included, in cents.
     */
    total_cents: number;
    currency: string;
    /**
     * Left out without the read_customers app scope.
     */
    customer?: {
      email: string;
      name: string;
      phone: string;
    };
    items_count: number;
    /**
     * The order needs action from the store.
     */
    needs_attention: boolean;
    /**
     * Set once shipped.
     */
    tracking_number: string | null;
    /**
     * `INV-YYYYMM-NNNNNN` (`TEST-INV-YYYYMM-NNNNNN` in test mode), set once the invoice exists.
     */
    invoice_number: string | null;
    /**
     * `false` for a test order, placed with an `sl_test_` key: seen by test keys only, numbered `TEST-SL-…`, never fulfilled, mailed or taken from stock.
     */
    livemode: boolean;
    created_at: string;
    updated_at: string;
  }[];
  pagination: {
    /**
     * This page, 1-based.
     */
    page: number;
    /**
     * Items per page.
     */
    limit: number;
    /**
     * Items matching, over every page.
     */
    total_count: number;
    total_pages: number;
  };
}

/**
 * Request body of createWholesaleOrder.
 */
export interface CreateWholesaleOrderBody {
  customer: {
    email: string;
    name: string;
    phone?: string;
  };
  /**
   * @minItems 1
   * @maxItems 100
   */
  items: {
    /**
     * The catalogue product id.
     */
    product_id: number;
    /**
     * Required when the product has more than one variant.
     */
    variant_id?: number;
    quantity: number;
    /**
     * If sent, must equal the current wholesale price: 409 `PRICE_CHANGED` when it is the price before a change in the last 30 days, else 400 `PRICE_MISMATCH`.
     */
    price_cents?: number;
  }[];
  shipping: {
    address: string;
    address2?: string;
    city: string;
    state: string;
    zip: string;
    /**
     * ISO 3166-1 alpha-2 country code.
     */
    country: string;
  };
  /**
   * How the store paid, when it records a payment with the order.
   */
  payment?: {
    method: string;
    transaction_id: string;
    amount_cents: number;
  };
}

/**
 * Response of createWholesaleOrder (201).
 */
export interface CreateWholesaleOrderResponse {
  order: {
    id: number;
    order_number: string;
    status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    order_type: 'storefront' | 'wholesale_api' | 'marketplace';
    total_cents: number;
    /**
     * `false` for a test order (an `sl_test_` key).
     */
    livemode: boolean;
    created_at: string;
  };
}

/**
 * Path parameters of getOrder.
 */
export interface GetOrderPathParams {
  /**
   * The order id.
   */
  id: number;
}

/**
 * Response of getOrder (200).
 */
export interface GetOrderResponse {
  order: Order;
}

/**
 * Query of listInventory.
 */
export interface ListInventoryQuery {
  /**
   * A `next_cursor` from an earlier page; absent: from the beginning. A cursor belongs to the store that got it.
   */
  updated_since?: string;
  /**
   * Items per page: at most the platform page size, 500 unless the platform set it lower; default the page size.
   */
  limit?: number;
}

/**
 * Response of listInventory (200).
 */
export interface ListInventoryResponse {
  items: {
    product_id: number;
    sku: string;
    name: string;
    /**
     * false once the store removed the listing.
     */
    listed: boolean;
    /**
     * When the product was withdrawn from the catalogue, else null: a withdrawn product has no stock to sell.
     */
    withdrawn_at: string | null;
    in_stock: boolean;
    stock_quantity: number;
    variants: {
      id: number;
      sku: string;
      title: string;
      option_values: {
        [k: string]: string | undefined;
      };
      quantity_available: number;
      available_for_sale: boolean;
    }[];
    updated_at: string;
  }[];
  /**
   * Pass back as updated_since; always present.
   */
  next_cursor: string;
  has_more: boolean;
}

/**
 * Request body of postExternalOrder.
 */
export interface PostExternalOrderBody {
  /**
   * Which marketplace the order came from, e.g. `etsy`.
   */
  marketplace: string;
  /**
   * The marketplace's order id; with `marketplace` the order's natural key in the store.
   */
  external_order_id: string;
  placed_at: string;
  currency: 'AUD';
  customer: {
    email: string;
    name: string;
    phone?: string;
  };
  shipping: {
    address: string;
    address2?: string;
    city: string;
    state: string;
    zip: string;
    /**
     * ISO 3166-1 alpha-2 country code.
     */
    country: string;
  };
  /**
   * @minItems 1
   * @maxItems 100
   */
  items: {
    /**
     * A SKU the store mapped to one of its products.
     */
    sku: string;
    quantity: number;
    /**
     * Unit price paid on the marketplace.
     */
    price_cents: number;
  }[];
  /**
   * Must equal the sum of quantity × price_cents.
   */
  total_cents: number;
}

/**
 * Response of postExternalOrder (200).
 */
export interface PostExternalOrderResponse {
  /**
   * `created` (201), `existing` (200: already in, the existing order), `held` (202: not created).
   */
  result: 'created' | 'existing' | 'held';
  /**
   * The order; `null` when held.
   */
  order: Order | null;
  /**
   * Why the post is held, line by line; `null` unless held. Post it again once fixed.
   */
  hold: {
    reason: 'unmapped_sku' | 'service_supplied' | 'insufficient_stock';
    lines: {
      sku: string;
      reason: 'unmapped_sku' | 'service_supplied' | 'insufficient_stock';
    }[];
  } | null;
}

/**
 * Path parameters of cancelExternalOrder.
 */
export interface CancelExternalOrderPathParams {
  /**
   * The order id (of an order posted through POST /api/v1/orders/external).
   */
  id: number;
}

/**
 * Request body of cancelExternalOrder.
 */
export interface CancelExternalOrderBody {
  /**
   * Recorded with the cancellation.
   */
  note?: string;
}

/**
 * Response of cancelExternalOrder (200).
 */
export interface CancelExternalOrderResponse {
  order: Order;
}

/**
 * Response of listWebhooks (200).
 */
export interface ListWebhooksResponse {
  webhooks: WebhookSubscription[];
  valid_events: (
    | 'order.created'
    | 'order.updated'
    | 'order.fulfilled'
    | 'order.shipped'
    | 'order.completed'
    | 'order.cancelled'
    | 'order.held'
    | 'invoice.issued'
    | 'product.created'
    | 'product.updated'
    | 'product.deleted'
    | 'inventory.updated'
    | 'site.published'
    | 'site.unpublished'
    | 'webhook.ping'
    | 'export.completed'
    | 'export.failed'
  )[];
}

/**
 * Request body of createWebhook.
 */
export interface CreateWebhookBody {
  /**
   * An `https://` URL whose host resolves only to public addresses (checked now and at every delivery).
   */
  url: string;
  /**
   * Event names, or `["*"]` for every event.
   *
   * @minItems 1
   * @maxItems 17
   */
  events: string[];
}

/**
 * Response of createWebhook (201).
 */
export interface CreateWebhookResponse {
  webhook: {
    id: number;
    url: string;
    events: string[];
    active: boolean;
    /**
     * Why it is inactive: set so, the endpoint answered 410, or 20 dead letters in a row.
     */
    disabled_reason: ('manual' | 'gone' | 'dead_letters') | null;
    /**
     * Consecutive dead-lettered events (20 disables it).
     */
    failure_streak: number;
    /**
     * `false` for a subscription made with an `sl_test_` key: it receives test events only, and live keys never see it.
     */
    livemode: boolean;
    created_at: string;
    updated_at: string;
    /**
     * The signing secret (`whsec_…`). Shown only in this answer; store it now.
     */
    secret: string;
  };
}

/**
 * Path parameters of getWebhook.
 */
export interface GetWebhookPathParams {
  /**
   * The subscription id.
   */
  id: number;
}

/**
 * Response of getWebhook (200).
 */
export interface GetWebhookResponse {
  webhook: WebhookSubscription;
}

/**
 * Path parameters of updateWebhook.
 */
export interface UpdateWebhookPathParams {
  /**
   * The subscription id.
   */
  id: number;
}

/**
 * Request body of updateWebhook.
 */
export interface UpdateWebhookBody {
  /**
   * An `https://` URL whose host resolves only to public addresses (checked now and at every delivery).
   */
  url?: string;
  /**
   * Event names, or `["*"]` for every event.
   *
   * @minItems 1
   * @maxItems 17
   */
  events?: string[];
  /**
   * `true` re-enables and clears the failure streak.
   */
  active?: boolean;
}

/**
 * Response of updateWebhook (200).
 */
export interface UpdateWebhookResponse {
  webhook: WebhookSubscription;
}

/**
 * Path parameters of deleteWebhook.
 */
export interface DeleteWebhookPathParams {
  /**
   * The subscription id.
   */
  id: number;
}

/**
 * Response of deleteWebhook (200).
 */
export interface DeleteWebhookResponse {
  message: string;
}

/**
 * Path parameters of rotateWebhookSecret.
 */
export interface RotateWebhookSecretPathParams {
  /**
   * The subscription id.
   */
  id: number;
}

/**
 * Response of rotateWebhookSecret (200).
 */
export interface RotateWebhookSecretResponse {
  webhook: WebhookSubscription;
  /**
   * The signing secret (`whsec_…`). Shown only in this answer; store it now.
   */
  secret: string;
}

/**
 * Path parameters of listWebhookDeliveries.
 */
export interface ListWebhookDeliveriesPathParams {
  /**
   * The subscription id.
   */
  id: number;
}

/**
 * Response of listWebhookDeliveries (200).
 */
export interface ListWebhookDeliveriesResponse {
  deliveries: WebhookAttempt[];
}

/**
 * Path parameters of resendWebhookDelivery.
 */
export interface ResendWebhookDeliveryPathParams {
  /**
   * The subscription id.
   */
  id: number;
  /**
   * The delivery id (from the delivery log).
   */
  deliveryId: number;
}

/**
 * Response of resendWebhookDelivery (202).
 */
export interface ResendWebhookDeliveryResponse {
  delivery: WebhookDelivery;
}

/**
 * Path parameters of testWebhook.
 */
export interface TestWebhookPathParams {
  /**
   * The subscription id.
   */
  id: number;
}

/**
 * Response of testWebhook (202).
 */
export interface TestWebhookResponse {
  delivery: WebhookDelivery;
}

/**
 * Query of listEvents.
 */
export interface ListEventsQuery {
  /**
   * Only these kinds of event: names and `<group>.*` prefixes, comma-separated (`order.*,invoice.issued`). Absent: every kind the credential may read.
   */
  type?: string;
  /**
   * Only events created at or after this time (ISO 8601 with an offset or Z).
   */
  created_gte?: string;
  /**
   * Only events created before this time (ISO 8601 with an offset or Z).
   */
  created_lt?: string;
  /**
   * Events per page, 1 to 100; default 20.
   */
  limit?: number;
  /**
   * `desc`: newest first (the default); `asc`: oldest first, to follow the log.
   */
  order?: 'desc' | 'asc';
  /**
   * A `next_cursor` from an earlier page: the next page in the order asked for. A cursor belongs to the store that got it; it is a position, so one from a `desc` page may start an `asc` walk (read `order=desc&limit=1` to start following the log from now).
   */
  cursor?: string;
  /**
   * Only with order=asc: seconds (0 to 30) to hold the request while the page would be empty, answering as soon as an event arrives. A long poll; default 0.
   */
  wait?: number;
}

/**
 * Response of listEvents (200).
 */
export interface ListEventsResponse {
  events: EventEnvelope[];
  /**
   * Always present: the position after the last event of the page (or the one given, when the page is empty). Pass it back as cursor, with either order.
   */
  next_cursor: string;
  /**
   * More events follow in this order right now.
   */
  has_more: boolean;
}

/**
 * Path parameters of getEvent.
 */
export interface GetEventPathParams {
  /**
   * The event id.
   */
  id: string;
}

/**
 * Response of getEvent (200).
 */
export interface GetEventResponse {
  event: EventEnvelope;
}

/**
 * Query of listRequests.
 */
export interface ListRequestsQuery {
  /**
   * Only requests answered with this HTTP status.
   */
  status?: number;
  /**
   * Only `2xx` successes, `4xx` refusals or `5xx` failures.
   */
  status_class?: '2xx' | '4xx' | '5xx';
  /**
   * Only requests of this operation (the contract's operationId, e.g. `listOrders`).
   */
  operation?: string;
  /**
   * Only requests that arrived at or after this time (ISO 8601 with an offset or Z).
   */
  created_gte?: string;
  /**
   * Only requests that arrived before this time (ISO 8601 with an offset or Z).
   */
  created_lt?: string;
  /**
   * Only requests sent with this Idempotency-Key: the first run and its replays.
   */
  idempotency_key?: string;
  /**
   * Only requests made with this API key (its prefix as the log shows it, `sl_live_abcd`) or this app (its `client_id`).
   */
  credential?: string;
  /**
   * Requests per page, 1 to 100; default 20.
   */
  limit?: number;
  /**
   * A `next_cursor` from an earlier page: the next older page under the same filters (a cursor belongs to the store, the mode and the filters it was given with).
   */
  cursor?: string;
}

/**
 * Response of listRequests (200).
 */
export interface ListRequestsResponse {
  requests: LoggedRequest[];
  /**
   * Pass back as `cursor` for the next (older) page; null when this page is the last. With an API key and at most one of `operation`, `credential`, `idempotency_key` or `status` (a time range or not), a page reads only matching requests and holds `limit` of them unless it is the last. Otherwise (`status_class`, filters combined, or an app token's filtered list) it reads at most 2,000 of the log's requests, so a rare match can answer a short or even empty page with a `next_cursor`: keep following it until `has_more` is false.
   */
  next_cursor: string | null;
  /**
   * Older requests may match beyond this page: true whenever `next_cursor` is set.
   */
  has_more: boolean;
}

/**
 * Path parameters of getRequest.
 */
export interface GetRequestPathParams {
  /**
   * The request's id (`X-Request-Id`).
   */
  request_id: string;
}

/**
 * Response of getRequest (200).
 */
export interface GetRequestResponse {
  request: LoggedRequest;
}

/**
 * Path parameters of advanceTestOrder.
 */
export interface AdvanceTestOrderPathParams {
  /**
   * The id of a test order (one placed with an `sl_test_` key).
   */
  id: number;
}

/**
 * Request body of advanceTestOrder.
 */
export interface AdvanceTestOrderBody {
  /**
   * The status to reach, through every status in between, each move with its own events. Absent: one move forward.
   */
  to?: 'processing' | 'fulfilled' | 'shipped' | 'delivered';
  /**
   * The tracking number the order ships with, only when this move ships it. Absent: the order keeps one it has, or gets a generated `TEST-TRK-…` one.
   */
  tracking_number?: string;
}

/**
 * Response of advanceTestOrder (200).
 */
export interface AdvanceTestOrderResponse {
  order: Order;
}

/**
 * Path parameters of cancelTestOrder.
 */
export interface CancelTestOrderPathParams {
  /**
   * The id of a test order (one placed with an `sl_test_` key).
   */
  id: number;
}

/**
 * Response of cancelTestOrder (200).
 */
export interface CancelTestOrderResponse {
  order: Order;
}

/**
 * Query of listExports.
 */
export interface ListExportsQuery {
  /**
   * Exports per page, 1 to 100; default 20.
   */
  limit?: number;
  /**
   * A next_cursor from an earlier page; absent = the newest first.
   */
  cursor?: string;
}

/**
 * Response of listExports (200).
 */
export interface ListExportsResponse {
  exports: Export[];
  /**
   * Pass back as cursor for older exports; null at the end.
   */
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Request body of createExport.
 */
export interface CreateExportBody {
  /**
   * `catalogue`: every catalogue product the filters match, as GET /api/v1/products lists them; `listings`: the store's live listings as GET /api/v1/my-products?include=variants lists them; `orders`: the orders of the key's mode as GET /api/v1/orders lists them.
   */
  type: 'catalogue' | 'listings' | 'orders';
  /**
   * For `catalogue`, the filter parameters of GET /api/v1/products; for `orders`, those of GET /api/v1/orders (no page, limit or sort: an export is the whole match); `listings` takes none. JSON values: `true`, numbers. An unknown or misspelt filter is a 400, never ignored.
   */
  filters?: {
    /**
     * Order number, buyer name or buyer email (substring, case-insensitive).
     */
    search?: string;
    /**
     * Only products in stock (`true`) or out of stock (`false`).
     */
    in_stock?: boolean;
    /**
     * `wholesale`: the store buys at the wholesale price and keeps the margin; `commission`: the store earns a commission per sale.
     */
    pricing_type?: 'wholesale' | 'commission';
    /**
     * Only products of this supplier.
     */
    supplier_id?: number;
    /**
     * Brand name (case-insensitive) or slug.
     */
    brand?: string;
    /**
     * Category slug or name (with its child categories), or a raw category value.
     */
    category?: string;
    /**
     * Taxonomy vertical slug, or `_other` for products outside every vertical.
     */
    store_type?: string;
    /**
     * `true` hides products already in the store.
     */
    exclude_in_store?: boolean;
    /**
     * `buy_now`: card checkout; `enquiry`: quote-only products.
     */
    purchase_mode?: 'buy_now' | 'enquiry';
    /**
     * Retail price lower bound in cents, inclusive.
     */
    price_min_cents?: number;
    /**
     * Retail price upper bound in cents, exclusive.
     */
    price_max_cents?: number;
    /**
     * Only products the nightly readiness pass marked ready.
     */
    ready_to_list?: boolean;
    /**
     * Channel (storefront, google, meta, freight): only products scored 100% complete for it; a channel not yet scored matches nothing.
     */
    complete_for?: string;
    /**
     * `store`: the store's departments, makers, own goods and uncategorised products; default: the store's setting.
     */
    scope?: 'store' | 'all';
    /**
     * Own suppliers' products, the service's catalogue (`btab`), or all; only for stores with own suppliers.
     */
    ownership?: 'own' | 'btab' | 'all';
    /**
     * Only orders in this status.
     */
    status?: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    /**
     * Lower bound on created_at, inclusive (a bare date starts at 00:00 UTC).
     */
    start_date?: string;
    /**
     * Upper bound on created_at; a bare date includes that whole day (UTC).
     */
    end_date?: string;
    /**
     * `1`: only orders needing action.
     */
    attention?: '1';
    /**
     * Only orders whose buyer came through this channel.
     */
    channel?:
      | 'facebook_instagram'
      | 'google'
      | 'vendor_link'
      | 'email'
      | 'other_referral'
      | 'direct'
      | 'unknown';
  };
}

/**
 * Response of createExport (202).
 */
export interface CreateExportResponse {
  export: Export;
}

/**
 * Path parameters of getExport.
 */
export interface GetExportPathParams {
  /**
   * The export id.
   */
  id: string;
}

/**
 * Response of getExport (200).
 */
export interface GetExportResponse {
  export: Export;
}

/**
 * Path parameters of getOrderInvoice.
 */
export interface GetOrderInvoicePathParams {
  /**
   * The order id.
   */
  id: number;
}

/**
 * Request body of registerOAuthClient.
 */
export type RegisterOAuthClientBody = OAuthClientMetadata;

/**
 * Response of registerOAuthClient (201).
 */
export type RegisterOAuthClientResponse = OAuthClient;

/**
 * Query of authorizeOAuth.
 */
export interface AuthorizeOAuthQuery {
  /**
   * Always `code`.
   */
  response_type: 'code';
  /**
   * From registration.
   */
  client_id: string;
  /**
   * One of the registered redirect URIs, exactly; a registered loopback URI (`http://localhost`, `http://127.0.0.1`, `http://[::1]`) matches with any port.
   */
  redirect_uri: string;
  /**
   * Space-separated app scopes, among those registered; default: all registered.
   */
  scope?: string;
  /**
   * Opaque value returned unchanged on the redirect (CSRF protection for the app).
   */
  state?: string;
  /**
   * PKCE: base64url(SHA-256(code_verifier)) without padding, 43 characters.
   */
  code_challenge: string;
  /**
   * Only `S256` (`plain` is refused).
   */
  code_challenge_method: 'S256';
  /**
   * RFC 8707: the API the token is for, `{base_url}/api/v1`.
   */
  resource: string;
}

/**
 * Response of requestOAuthToken (200).
 */
export type RequestOAuthTokenResponse = OAuthToken;

/**
 * Response of getAuthorizationServerMetadata (200).
 */
export type GetAuthorizationServerMetadataResponse = AuthorizationServerMetadata;

/**
 * Response of getProtectedResourceMetadata (200).
 */
export type GetProtectedResourceMetadataResponse = ProtectedResourceMetadata;

/**
 * Response of getApiProtectedResourceMetadata (200).
 */
export type GetApiProtectedResourceMetadataResponse = ProtectedResourceMetadata;

/**
 * Response of getMcpProtectedResourceMetadata (200).
 */
export type GetMcpProtectedResourceMetadataResponse = ProtectedResourceMetadata;

/**
 * Response of health (200).
 */
export interface HealthResponse {
  /**
   * The service as a whole.
   */
  status: 'ok' | 'unavailable';
  /**
   * Whether PostgreSQL answered within a second.
   */
  database: 'ok' | 'unreachable';
}

/**
 * Response of healthLive (200).
 */
export interface HealthLiveResponse {
  status: 'ok';
}

/**
 * Response of healthReady (200).
 */
export interface HealthReadyResponse {
  /**
   * `unavailable` when a critical check failed.
   */
  status: 'ok' | 'unavailable';
  /**
   * Each check by name: `database` (answers within a second), `migrations` (every migration of this build applied), `worker` (a worker wrote its heartbeat within three minutes; not critical), and any the deployment adds.
   */
  checks: {
    [k: string]:
      | {
          status: 'ok' | 'failing';
          /**
           * Whether its failure makes the answer 503.
           */
          critical: boolean;
          /**
           * What was found, for people.
           */
          detail?: string;
        }
      | undefined;
  };
}

/**
 * An OpenAPI 3.1 document.
 */
export interface GetOpenApiDocumentResponse {
  openapi: string;
  info: {
    title: string;
    version: string;
  };
  paths: {
    [k: string]: unknown | undefined;
  };
  [k: string]: unknown | undefined;
}

/** Every operation of the contract: its types. */
export interface Operations {
  listProducts: {
    method: 'GET';
    path: '/api/v1/products';
    pathParams: never;
    query: ListProductsQuery;
    body: never;
    bodyRequired: false;
    response: ListProductsResponse;
  };
  getProductFacets: {
    method: 'GET';
    path: '/api/v1/products/facets';
    pathParams: never;
    query: GetProductFacetsQuery;
    body: never;
    bodyRequired: false;
    response: GetProductFacetsResponse;
  };
  getProduct: {
    method: 'GET';
    path: '/api/v1/products/{id}';
    pathParams: GetProductPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetProductResponse;
  };
  getStore: {
    method: 'GET';
    path: '/api/v1/vendor/me';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetStoreResponse;
  };
  listMyProducts: {
    method: 'GET';
    path: '/api/v1/my-products';
    pathParams: never;
    query: ListMyProductsQuery;
    body: never;
    bodyRequired: false;
    response: ListMyProductsResponse;
  };
  addMyProduct: {
    method: 'POST';
    path: '/api/v1/my-products';
    pathParams: never;
    query: never;
    body: AddMyProductBody;
    bodyRequired: true;
    response: AddMyProductResponse;
  };
  bulkAddMyProducts: {
    method: 'POST';
    path: '/api/v1/my-products/bulk';
    pathParams: never;
    query: never;
    body: BulkAddMyProductsBody;
    bodyRequired: true;
    response: BulkAddMyProductsResponse;
  };
  bulkRemoveMyProducts: {
    method: 'POST';
    path: '/api/v1/my-products/bulk-remove';
    pathParams: never;
    query: never;
    body: BulkRemoveMyProductsBody;
    bodyRequired: true;
    response: BulkRemoveMyProductsResponse;
  };
  getMyProduct: {
    method: 'GET';
    path: '/api/v1/my-products/{productId}';
    pathParams: GetMyProductPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetMyProductResponse;
  };
  removeMyProduct: {
    method: 'DELETE';
    path: '/api/v1/my-products/{productId}';
    pathParams: RemoveMyProductPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: RemoveMyProductResponse;
  };
  setMyProductPricing: {
    method: 'PUT';
    path: '/api/v1/my-products/{productId}/pricing';
    pathParams: SetMyProductPricingPathParams;
    query: never;
    body: SetMyProductPricingBody;
    bodyRequired: true;
    response: SetMyProductPricingResponse;
  };
  setMyProductPurchaseMode: {
    method: 'PATCH';
    path: '/api/v1/my-products/{productId}/enquiry-mode';
    pathParams: SetMyProductPurchaseModePathParams;
    query: never;
    body: SetMyProductPurchaseModeBody;
    bodyRequired: true;
    response: SetMyProductPurchaseModeResponse;
  };
  setMyProductVendorFulfilled: {
    method: 'PATCH';
    path: '/api/v1/my-products/{productId}/vendor-fulfilled';
    pathParams: SetMyProductVendorFulfilledPathParams;
    query: never;
    body: SetMyProductVendorFulfilledBody;
    bodyRequired: true;
    response: SetMyProductVendorFulfilledResponse;
  };
  listOrders: {
    method: 'GET';
    path: '/api/v1/orders';
    pathParams: never;
    query: ListOrdersQuery;
    body: never;
    bodyRequired: false;
    response: ListOrdersResponse;
  };
  createWholesaleOrder: {
    method: 'POST';
    path: '/api/v1/orders';
    pathParams: never;
    query: never;
    body: CreateWholesaleOrderBody;
    bodyRequired: true;
    response: CreateWholesaleOrderResponse;
  };
  getOrder: {
    method: 'GET';
    path: '/api/v1/orders/{id}';
    pathParams: GetOrderPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetOrderResponse;
  };
  listInventory: {
    method: 'GET';
    path: '/api/v1/inventory';
    pathParams: never;
    query: ListInventoryQuery;
    body: never;
    bodyRequired: false;
    response: ListInventoryResponse;
  };
  postExternalOrder: {
    method: 'POST';
    path: '/api/v1/orders/external';
    pathParams: never;
    query: never;
    body: PostExternalOrderBody;
    bodyRequired: true;
    response: PostExternalOrderResponse;
  };
  cancelExternalOrder: {
    method: 'POST';
    path: '/api/v1/orders/external/{id}/cancel';
    pathParams: CancelExternalOrderPathParams;
    query: never;
    body: CancelExternalOrderBody;
    bodyRequired: true;
    response: CancelExternalOrderResponse;
  };
  listWebhooks: {
    method: 'GET';
    path: '/api/v1/vendor/webhooks';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: ListWebhooksResponse;
  };
  createWebhook: {
    method: 'POST';
    path: '/api/v1/vendor/webhooks';
    pathParams: never;
    query: never;
    body: CreateWebhookBody;
    bodyRequired: true;
    response: CreateWebhookResponse;
  };
  getWebhook: {
    method: 'GET';
    path: '/api/v1/vendor/webhooks/{id}';
    pathParams: GetWebhookPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetWebhookResponse;
  };
  updateWebhook: {
    method: 'PUT';
    path: '/api/v1/vendor/webhooks/{id}';
    pathParams: UpdateWebhookPathParams;
    query: never;
    body: UpdateWebhookBody;
    bodyRequired: true;
    response: UpdateWebhookResponse;
  };
  deleteWebhook: {
    method: 'DELETE';
    path: '/api/v1/vendor/webhooks/{id}';
    pathParams: DeleteWebhookPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: DeleteWebhookResponse;
  };
  rotateWebhookSecret: {
    method: 'POST';
    path: '/api/v1/vendor/webhooks/{id}/rotate-secret';
    pathParams: RotateWebhookSecretPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: RotateWebhookSecretResponse;
  };
  listWebhookDeliveries: {
    method: 'GET';
    path: '/api/v1/vendor/webhooks/{id}/deliveries';
    pathParams: ListWebhookDeliveriesPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: ListWebhookDeliveriesResponse;
  };
  resendWebhookDelivery: {
    method: 'POST';
    path: '/api/v1/vendor/webhooks/{id}/deliveries/{deliveryId}/resend';
    pathParams: ResendWebhookDeliveryPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: ResendWebhookDeliveryResponse;
  };
  testWebhook: {
    method: 'POST';
    path: '/api/v1/vendor/webhooks/{id}/test';
    pathParams: TestWebhookPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: TestWebhookResponse;
  };
  listEvents: {
    method: 'GET';
    path: '/api/v1/events';
    pathParams: never;
    query: ListEventsQuery;
    body: never;
    bodyRequired: false;
    response: ListEventsResponse;
  };
  getEvent: {
    method: 'GET';
    path: '/api/v1/events/{id}';
    pathParams: GetEventPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetEventResponse;
  };
  listRequests: {
    method: 'GET';
    path: '/api/v1/requests';
    pathParams: never;
    query: ListRequestsQuery;
    body: never;
    bodyRequired: false;
    response: ListRequestsResponse;
  };
  getRequest: {
    method: 'GET';
    path: '/api/v1/requests/{request_id}';
    pathParams: GetRequestPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetRequestResponse;
  };
  advanceTestOrder: {
    method: 'POST';
    path: '/api/v1/test_helpers/orders/{id}/advance';
    pathParams: AdvanceTestOrderPathParams;
    query: never;
    body: AdvanceTestOrderBody;
    bodyRequired: true;
    response: AdvanceTestOrderResponse;
  };
  cancelTestOrder: {
    method: 'POST';
    path: '/api/v1/test_helpers/orders/{id}/cancel';
    pathParams: CancelTestOrderPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: CancelTestOrderResponse;
  };
  listExports: {
    method: 'GET';
    path: '/api/v1/exports';
    pathParams: never;
    query: ListExportsQuery;
    body: never;
    bodyRequired: false;
    response: ListExportsResponse;
  };
  createExport: {
    method: 'POST';
    path: '/api/v1/exports';
    pathParams: never;
    query: never;
    body: CreateExportBody;
    bodyRequired: true;
    response: CreateExportResponse;
  };
  getExport: {
    method: 'GET';
    path: '/api/v1/exports/{id}';
    pathParams: GetExportPathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetExportResponse;
  };
  getOrderInvoice: {
    method: 'GET';
    path: '/api/v1/orders/{id}/invoice';
    pathParams: GetOrderInvoicePathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: Uint8Array;
  };
  registerOAuthClient: {
    method: 'POST';
    path: '/oauth/register';
    pathParams: never;
    query: never;
    body: RegisterOAuthClientBody;
    bodyRequired: true;
    response: RegisterOAuthClientResponse;
  };
  authorizeOAuth: {
    method: 'GET';
    path: '/oauth/authorize';
    pathParams: never;
    query: AuthorizeOAuthQuery;
    body: never;
    bodyRequired: false;
    response: void;
  };
  requestOAuthToken: {
    method: 'POST';
    path: '/oauth/token';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: true;
    response: RequestOAuthTokenResponse;
  };
  revokeOAuthToken: {
    method: 'POST';
    path: '/oauth/revoke';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: true;
    response: void;
  };
  getAuthorizationServerMetadata: {
    method: 'GET';
    path: '/.well-known/oauth-authorization-server';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetAuthorizationServerMetadataResponse;
  };
  getProtectedResourceMetadata: {
    method: 'GET';
    path: '/.well-known/oauth-protected-resource';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetProtectedResourceMetadataResponse;
  };
  getApiProtectedResourceMetadata: {
    method: 'GET';
    path: '/.well-known/oauth-protected-resource/api/v1';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetApiProtectedResourceMetadataResponse;
  };
  getMcpProtectedResourceMetadata: {
    method: 'GET';
    path: '/.well-known/oauth-protected-resource/mcp';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetMcpProtectedResourceMetadataResponse;
  };
  health: {
    method: 'GET';
    path: '/health';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: HealthResponse;
  };
  healthLive: {
    method: 'GET';
    path: '/health/live';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: HealthLiveResponse;
  };
  healthReady: {
    method: 'GET';
    path: '/health/ready';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: HealthReadyResponse;
  };
  getOpenApiDocument: {
    method: 'GET';
    path: '/api/v1/openapi.json';
    pathParams: never;
    query: never;
    body: never;
    bodyRequired: false;
    response: GetOpenApiDocumentResponse;
  };
}

/** Every operation of the contract: method, path template and response kind. */
export const operations = {
  listProducts: { method: 'GET', path: '/api/v1/products', response: 'json' },
  getProductFacets: { method: 'GET', path: '/api/v1/products/facets', response: 'json' },
  getProduct: { method: 'GET', path: '/api/v1/products/{id}', response: 'json' },
  getStore: { method: 'GET', path: '/api/v1/vendor/me', response: 'json' },
  listMyProducts: { method: 'GET', path: '/api/v1/my-products', response: 'json' },
  addMyProduct: { method: 'POST', path: '/api/v1/my-products', response: 'json' },
  bulkAddMyProducts: { method: 'POST', path: '/api/v1/my-products/bulk', response: 'json' },
  bulkRemoveMyProducts: { method: 'POST', path: '/api/v1/my-products/bulk-remove', response: 'json' },
  getMyProduct: { method: 'GET', path: '/api/v1/my-products/{productId}', response: 'json' },
  removeMyProduct: { method: 'DELETE', path: '/api/v1/my-products/{productId}', response: 'json' },
  setMyProductPricing: { method: 'PUT', path: '/api/v1/my-products/{productId}/pricing', response: 'json' },
  setMyProductPurchaseMode: {
    method: 'PATCH',
    path: '/api/v1/my-products/{productId}/enquiry-mode',
    response: 'json',
  },
  setMyProductVendorFulfilled: {
    method: 'PATCH',
    path: '/api/v1/my-products/{productId}/vendor-fulfilled',
    response: 'json',
  },
  listOrders: { method: 'GET', path: '/api/v1/orders', response: 'json' },
  createWholesaleOrder: { method: 'POST', path: '/api/v1/orders', response: 'json' },
  getOrder: { method: 'GET', path: '/api/v1/orders/{id}', response: 'json' },
  listInventory: { method: 'GET', path: '/api/v1/inventory', response: 'json' },
  postExternalOrder: { method: 'POST', path: '/api/v1/orders/external', response: 'json' },
  cancelExternalOrder: { method: 'POST', path: '/api/v1/orders/external/{id}/cancel', response: 'json' },
  listWebhooks: { method: 'GET', path: '/api/v1/vendor/webhooks', response: 'json' },
  createWebhook: { method: 'POST', path: '/api/v1/vendor/webhooks', response: 'json' },
  getWebhook: { method: 'GET', path: '/api/v1/vendor/webhooks/{id}', response: 'json' },
  updateWebhook: { method: 'PUT', path: '/api/v1/vendor/webhooks/{id}', response: 'json' },
  deleteWebhook: { method: 'DELETE', path: '/api/v1/vendor/webhooks/{id}', response: 'json' },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/api/v1/vendor/webhooks/{id}/rotate-secret',
    response: 'json',
  },
  listWebhookDeliveries: { method: 'GET', path: '/api/v1/vendor/webhooks/{id}/deliveries', response: 'json' },
  resendWebhookDelivery: {
    method: 'POST',
    path: '/api/v1/vendor/webhooks/{id}/deliveries/{deliveryId}/resend',
    response: 'json',
  },
  testWebhook: { method: 'POST', path: '/api/v1/vendor/webhooks/{id}/test', response: 'json' },
  listEvents: { method: 'GET', path: '/api/v1/events', response: 'json' },
  getEvent: { method: 'GET', path: '/api/v1/events/{id}', response: 'json' },
  listRequests: { method: 'GET', path: '/api/v1/requests', response: 'json' },
  getRequest: { method: 'GET', path: '/api/v1/requests/{request_id}', response: 'json' },
  advanceTestOrder: { method: 'POST', path: '/api/v1/test_helpers/orders/{id}/advance', response: 'json' },
  cancelTestOrder: { method: 'POST', path: '/api/v1/test_helpers/orders/{id}/cancel', response: 'json' },
  listExports: { method: 'GET', path: '/api/v1/exports', response: 'json' },
  createExport: { method: 'POST', path: '/api/v1/exports', response: 'json' },
  getExport: { method: 'GET', path: '/api/v1/exports/{id}', response: 'json' },
  getOrderInvoice: { method: 'GET', path: '/api/v1/orders/{id}/invoice', response: 'bytes' },
  registerOAuthClient: { method: 'POST', path: '/oauth/register', response: 'json' },
  authorizeOAuth: { method: 'GET', path: '/oauth/authorize', response: 'json' },
  requestOAuthToken: { method: 'POST', path: '/oauth/token', response: 'json' },
  revokeOAuthToken: { method: 'POST', path: '/oauth/revoke', response: 'json' },
  getAuthorizationServerMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    response: 'json',
  },
  getProtectedResourceMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    response: 'json',
  },
  getApiProtectedResourceMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/api/v1',
    response: 'json',
  },
  getMcpProtectedResourceMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    response: 'json',
  },
  health: { method: 'GET', path: '/health', response: 'json' },
  healthLive: { method: 'GET', path: '/health/live', response: 'json' },
  healthReady: { method: 'GET', path: '/health/ready', response: 'json' },
  getOpenApiDocument: { method: 'GET', path: '/api/v1/openapi.json', response: 'json' },
} as const;

/**
 * The body of a `order.created` delivery.
 */
export interface OrderCreatedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.created';
  /**
   * `order.created:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `order.updated` delivery.
 */
export interface OrderUpdatedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.updated';
  /**
   * `order.updated:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `order.fulfilled` delivery.
 */
export interface OrderFulfilledEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.fulfilled';
  /**
   * `order.fulfilled:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `order.shipped` delivery.
 */
export interface OrderShippedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.shipped';
  /**
   * `order.shipped:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `order.completed` delivery.
 */
export interface OrderCompletedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.completed';
  /**
   * `order.completed:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `order.cancelled` delivery.
 */
export interface OrderCancelledEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.cancelled';
  /**
   * `order.cancelled:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `order.held` delivery.
 */
export interface OrderHeldEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'order.held';
  /**
   * `order.held:<id of the held post>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderHeldEventData;
}

/**
 * The body of a `invoice.issued` delivery.
 */
export interface InvoiceIssuedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'invoice.issued';
  /**
   * `invoice.issued:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: OrderEventData;
}

/**
 * The body of a `product.created` delivery.
 */
export interface ProductCreatedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'product.created';
  /**
   * `<event>:<product_id>.<unix ms>`: one per coalescing window. Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: ProductEventData;
}

/**
 * The body of a `product.updated` delivery.
 */
export interface ProductUpdatedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'product.updated';
  /**
   * `<event>:<product_id>.<unix ms>`: one per coalescing window. Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: ProductEventData;
}

/**
 * The body of a `product.deleted` delivery.
 */
export interface ProductDeletedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'product.deleted';
  /**
   * `<event>:<product_id>.<unix ms>`: one per coalescing window. Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: ProductEventData;
}

/**
 * The body of a `inventory.updated` delivery.
 */
export interface InventoryUpdatedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'inventory.updated';
  /**
   * `<event>:<product_id>.<unix ms>`: one per coalescing window. Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: ProductEventData;
}

/**
 * The body of a `site.published` delivery.
 */
export interface SitePublishedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'site.published';
  /**
   * `site.published:<store id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: SiteEventData;
}

/**
 * The body of a `site.unpublished` delivery.
 */
export interface SiteUnpublishedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'site.unpublished';
  /**
   * `site.unpublished:<store id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: SiteEventData;
}

/**
 * The body of a `webhook.ping` delivery.
 */
export interface WebhookPingEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'webhook.ping';
  /**
   * `webhook.ping:<subscription id>.<unix ms>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: PingEventData;
}

/**
 * The body of a `export.completed` delivery.
 */
export interface ExportCompletedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'export.completed';
  /**
   * `export.completed:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: ExportEventData;
}

/**
 * The body of a `export.failed` delivery.
 */
export interface ExportFailedEvent {
  /**
   * The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers this envelope, and GET /api/v1/events lists every event of the last 30 days.
   */
  id: string;
  event: 'export.failed';
  /**
   * `export.failed:<order id>` Key your processing on it: deliveries can arrive out of order and, rarely, more than once.
   */
  event_key: string;
  /**
   * When the event happened.
   */
  created_at: string;
  /**
   * `true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).
   */
  livemode: boolean;
  data: ExportEventData;
}

/** Webhook payloads by event name. */
export interface WebhookPayloads {
  'order.created': OrderCreatedEvent;
  'order.updated': OrderUpdatedEvent;
  'order.fulfilled': OrderFulfilledEvent;
  'order.shipped': OrderShippedEvent;
  'order.completed': OrderCompletedEvent;
  'order.cancelled': OrderCancelledEvent;
  'order.held': OrderHeldEvent;
  'invoice.issued': InvoiceIssuedEvent;
  'product.created': ProductCreatedEvent;
  'product.updated': ProductUpdatedEvent;
  'product.deleted': ProductDeletedEvent;
  'inventory.updated': InventoryUpdatedEvent;
  'site.published': SitePublishedEvent;
  'site.unpublished': SiteUnpublishedEvent;
  'webhook.ping': WebhookPingEvent;
  'export.completed': ExportCompletedEvent;
  'export.failed': ExportFailedEvent;
}
