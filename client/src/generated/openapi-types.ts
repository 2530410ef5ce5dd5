/**
 * Generated from openapi.json (Stockless Partner API 1.0.0) by client/scripts/generate-types.ts.
 * Do not edit: run `npm run sdk:types`.
 */

/** The contract version these types were generated from. */
export const CONTRACT_VERSION = '1.0.0';

// Components

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
  status: 'pending' | 'succeeded' | 'dead' | 'discarded';
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
}

export interface ErrorBody {
  /**
   * Error category.
   */
  error:
    | 'bad_request'
    | 'unauthorized'
    | 'forbidden'
    | 'not_found'
    | 'conflict'
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
}

// Operations

/**
 * Query of listProducts.
 */
export interface ListProductsQuery {
  /**
   * Full-text search on name, SKU and description; falls back to substring.
   */
  search?: string;
  in_stock?: boolean;
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
  exclude_in_store?: boolean;
  purchase_mode?: 'buy_now' | 'enquiry';
  /**
   * Retail price lower bound in cents, inclusive.
   */
  price_min_cents?: number;
  /**
   * Retail price upper bound in cents, exclusive.
   */
  price_max_cents?: number;
  ready_to_list?: boolean;
  /**
   * Channel (storefront, google, meta, freight): only products scored 100% complete for it.
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
  page?: number;
  limit?: number;
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
  order?: 'asc' | 'desc';
}

/**
 * Response of listProducts (200).
 */
export interface ListProductsResponse {
  products: {
    id: number;
    name: string;
    description: string;
    sku: string;
    wholesale_price_cents: number;
    retail_price_cents: number;
    custom_retail_price_cents: number | null;
    image_url: string | null;
    in_stock: boolean;
    stock_quantity: number;
    metadata: {
      category: string | null;
      weight_oz: number | null;
    };
    earn_per_sale_cents: number;
    minimum_price_cents: number;
    brand: string | null;
    supplier_id: number;
    pricing_type: 'wholesale' | 'commission';
    purchase_mode: 'buy_now' | 'enquiry';
    in_store: boolean;
    created_at: string;
    updated_at: string;
  }[];
  pagination: {
    page: number;
    limit: number;
    total_count: number;
    total_pages: number;
  };
  ownership?: {
    applied: 'own' | 'btab' | 'all';
    choices: ('own' | 'btab' | 'all')[];
  };
}

/**
 * Query of getProductFacets.
 */
export interface GetProductFacetsQuery {
  /**
   * Full-text search on name, SKU and description; falls back to substring.
   */
  search?: string;
  in_stock?: boolean;
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
  exclude_in_store?: boolean;
  purchase_mode?: 'buy_now' | 'enquiry';
  /**
   * Retail price lower bound in cents, inclusive.
   */
  price_min_cents?: number;
  /**
   * Retail price upper bound in cents, exclusive.
   */
  price_max_cents?: number;
  ready_to_list?: boolean;
  /**
   * Channel (storefront, google, meta, freight): only products scored 100% complete for it.
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
  total_count: number;
  ownership?: {
    applied: 'own' | 'btab' | 'all';
    choices: ('own' | 'btab' | 'all')[];
  };
}

/**
 * Path parameters of getProduct.
 */
export interface GetProductPathParams {
  id: number;
}

/**
 * Response of getProduct (200).
 */
export interface GetProductResponse {
  product: {
    id: number;
    name: string;
    description: string;
    sku: string;
    wholesale_price_cents: number;
    retail_price_cents: number;
    custom_retail_price_cents: number | null;
    image_url: string | null;
    in_stock: boolean;
    stock_quantity: number;
    metadata: {
      category: string | null;
      weight_oz: number | null;
    };
    earn_per_sale_cents: number;
    minimum_price_cents: number;
    brand: string | null;
    supplier_id: number;
    pricing_type: 'wholesale' | 'commission';
    purchase_mode: 'buy_now' | 'enquiry';
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
  };
}

/**
 * Response of getStore (200).
 */
export interface GetStoreResponse {
  store: {
    id: number;
    name: string;
    slug: string;
    currency: string;
    created_at: string;
    has_own_suppliers: boolean;
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
      revenue_cents: number;
      last_order_at: string | null;
    };
  };
}

/**
 * Query of listMyProducts.
 */
export interface ListMyProductsQuery {
  page?: number;
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
    name: string;
    sku: string;
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
    purchase_mode: 'buy_now' | 'enquiry';
    vendor_fulfilled: boolean;
    own_goods: boolean;
    in_stock: boolean;
    stock_quantity: number;
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
      id: number;
      sku: string;
      title: string;
      option_values: {
        [k: string]: string | undefined;
      };
      available_for_sale: boolean;
      quantity_available: number;
    }[];
  }[];
  pagination: {
    page: number;
    limit: number;
    total_count: number;
    total_pages: number;
  };
}

/**
 * Request body of addMyProduct.
 */
export interface AddMyProductBody {
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
    id: number;
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
     * Full-text search on name, SKU and description; falls back to substring.
     */
    search?: string;
    in_stock?: boolean;
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
    exclude_in_store?: boolean;
    purchase_mode?: 'buy_now' | 'enquiry';
    /**
     * Retail price lower bound in cents, inclusive.
     */
    price_min_cents?: number;
    /**
     * Retail price upper bound in cents, exclusive.
     */
    price_max_cents?: number;
    ready_to_list?: boolean;
    /**
     * Channel (storefront, google, meta, freight): only products scored 100% complete for it.
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
  added: number;
  restored: number;
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
     * Full-text search on name, SKU and description; falls back to substring.
     */
    search?: string;
    in_stock?: boolean;
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
    exclude_in_store?: boolean;
    purchase_mode?: 'buy_now' | 'enquiry';
    /**
     * Retail price lower bound in cents, inclusive.
     */
    price_min_cents?: number;
    /**
     * Retail price upper bound in cents, exclusive.
     */
    price_max_cents?: number;
    ready_to_list?: boolean;
    /**
     * Channel (storefront, google, meta, freight): only products scored 100% complete for it.
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
  removed: number;
  skipped: {
    product_id: number;
    reason: 'not_found' | 'already_listed' | 'not_in_store' | 'duplicate';
  }[];
}

/**
 * Path parameters of getMyProduct.
 */
export interface GetMyProductPathParams {
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
    name: string;
    sku: string;
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
    purchase_mode: 'buy_now' | 'enquiry';
    vendor_fulfilled: boolean;
    own_goods: boolean;
    in_stock: boolean;
    stock_quantity: number;
    created_at: string;
    updated_at: string;
    options: {
      name: string;
      values: string[];
    }[];
    variants: {
      id: number;
      sku: string;
      title: string;
      option_values: {
        [k: string]: string | undefined;
      };
      available_for_sale: boolean;
      quantity_available: number;
      price_cents: number;
    }[];
  };
}

/**
 * Path parameters of removeMyProduct.
 */
export interface RemoveMyProductPathParams {
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
    id: number;
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
  productId: number;
}

/**
 * Request body of setMyProductPurchaseMode.
 */
export interface SetMyProductPurchaseModeBody {
  purchase_mode: 'buy_now' | 'enquiry';
}

/**
 * Response of setMyProductPurchaseMode (200).
 */
export interface SetMyProductPurchaseModeResponse {
  message: string;
  vendor_product: {
    id: number;
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
  productId: number;
}

/**
 * Request body of setMyProductVendorFulfilled.
 */
export interface SetMyProductVendorFulfilledBody {
  vendor_fulfilled: boolean;
}

/**
 * Response of setMyProductVendorFulfilled (200).
 */
export interface SetMyProductVendorFulfilledResponse {
  message: string;
  vendor_product: {
    id: number;
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
  status?: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
  start_date?: string;
  end_date?: string;
  /**
   * Order number, buyer name or buyer email (substring, case-insensitive).
   */
  search?: string;
  attention?: '1';
  channel?:
    | 'facebook_instagram'
    | 'google'
    | 'vendor_link'
    | 'email'
    | 'other_referral'
    | 'direct'
    | 'unknown';
  page?: number;
  limit?: number;
  sort_by?: 'created_at' | 'updated_at' | 'id';
  order?: 'asc' | 'desc';
}

/**
 * Response of listOrders (200).
 */
export interface ListOrdersResponse {
  orders: {
    id: number;
    order_number: string;
    status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    order_type: 'storefront' | 'wholesale_api' | 'marketplace';
    channel:
      | 'facebook_instagram'
      | 'google'
      | 'vendor_link'
      | 'email'
      | 'other_referral'
      | 'direct'
      | 'unknown';
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
    needs_attention: boolean;
    tracking_number: string | null;
    invoice_number: string | null;
    created_at: string;
    updated_at: string;
  }[];
  pagination: {
    page: number;
    limit: number;
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
    product_id: number;
    /**
     * Required when the product has more than one variant.
     */
    variant_id?: number;
    quantity: number;
    /**
     * If sent, must equal the current wholesale price.
     */
    price_cents?: number;
  }[];
  shipping: {
    address: string;
    address2?: string;
    city: string;
    state: string;
    zip: string;
    country: string;
  };
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
    created_at: string;
  };
}

/**
 * Path parameters of getOrder.
 */
export interface GetOrderPathParams {
  id: number;
}

/**
 * Response of getOrder (200).
 */
export interface GetOrderResponse {
  order: {
    id: number;
    order_number: string;
    status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    order_type: 'storefront' | 'wholesale_api' | 'marketplace';
    channel:
      | 'facebook_instagram'
      | 'google'
      | 'vendor_link'
      | 'email'
      | 'other_referral'
      | 'direct'
      | 'unknown';
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
    needs_attention: boolean;
    tracking_number: string | null;
    invoice_number: string | null;
    created_at: string;
    updated_at: string;
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
      country: string;
    };
    invoice_issued_at: string | null;
    cancel_reason: string | null;
  };
}

/**
 * Query of listInventory.
 */
export interface ListInventoryQuery {
  updated_since?: string;
  /**
   * At most the platform page size (500 by default); default the page size.
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
    country: string;
  };
  /**
   * @minItems 1
   * @maxItems 100
   */
  items: {
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
 * Response of postExternalOrder (201).
 */
export interface PostExternalOrderResponse {
  result: 'created' | 'existing' | 'held';
  order: {
    id: number;
    order_number: string;
    status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    order_type: 'storefront' | 'wholesale_api' | 'marketplace';
    channel:
      | 'facebook_instagram'
      | 'google'
      | 'vendor_link'
      | 'email'
      | 'other_referral'
      | 'direct'
      | 'unknown';
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
    needs_attention: boolean;
    tracking_number: string | null;
    invoice_number: string | null;
    created_at: string;
    updated_at: string;
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
      country: string;
    };
    invoice_issued_at: string | null;
    cancel_reason: string | null;
  } | null;
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
  id: number;
}

/**
 * Request body of cancelExternalOrder.
 */
export interface CancelExternalOrderBody {
  note?: string;
}

/**
 * Response of cancelExternalOrder (200).
 */
export interface CancelExternalOrderResponse {
  order: {
    id: number;
    order_number: string;
    status: 'pending' | 'processing' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled';
    order_type: 'storefront' | 'wholesale_api' | 'marketplace';
    channel:
      | 'facebook_instagram'
      | 'google'
      | 'vendor_link'
      | 'email'
      | 'other_referral'
      | 'direct'
      | 'unknown';
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
    needs_attention: boolean;
    tracking_number: string | null;
    invoice_number: string | null;
    created_at: string;
    updated_at: string;
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
      country: string;
    };
    invoice_issued_at: string | null;
    cancel_reason: string | null;
  };
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
   * @maxItems 15
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
   * @maxItems 15
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
  id: number;
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
  id: number;
}

/**
 * Response of testWebhook (202).
 */
export interface TestWebhookResponse {
  delivery: WebhookDelivery;
}

/**
 * Path parameters of getOrderInvoice.
 */
export interface GetOrderInvoicePathParams {
  id: number;
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
  getOrderInvoice: {
    method: 'GET';
    path: '/api/v1/orders/{id}/invoice';
    pathParams: GetOrderInvoicePathParams;
    query: never;
    body: never;
    bodyRequired: false;
    response: Uint8Array;
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
  getOrderInvoice: { method: 'GET', path: '/api/v1/orders/{id}/invoice', response: 'bytes' },
} as const;

/** Webhook payloads by event name (the contract declares none yet). */
export type WebhookPayloads = Record<never, never>;
