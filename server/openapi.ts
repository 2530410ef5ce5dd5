import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { APP_SCOPES, type AppScope, type AppScopeRule } from '../src/auth/actor.ts';
import { appRouter } from '../src/router.ts';
import { proceduresMeta } from '../src/trpc/meta.ts';
import { COALESCED_EVENTS, WEBHOOK_EVENTS } from '../src/webhooks/events.ts';

export const CONTRACT_VERSION = '1.0.0';
export const TAGS = ['Catalogue', 'Store', 'Listings', 'Orders', 'Webhooks', 'OAuth'];

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI fragments are plain JSON, walked and edited in place.
type Json = any;

const TAG_DESCRIPTIONS: Record<string, string> = {
  Catalogue:
    'The approved catalogue the store sells from, with stock, earnings and facets, and the inventory feed of ' +
    'the products the store lists.',
  Store: 'The store the credential acts as.',
  Listings:
    'The products in the store (`/my-products`): add, remove, price, selling mode and vendor fulfilment. ' +
    'Paths take the catalogue product id.',
  Orders:
    'Orders on the store, wholesale orders the store places, marketplace orders posted by partner apps, and ' +
    'the tax invoice Stockless issues as merchant of record.',
  Webhooks:
    'Signed event deliveries to an `https://` endpoint: manage subscriptions here; the events and their ' +
    'payloads are listed under Webhooks. Every delivery is a POST of `{ event, event_key, created_at, data }` ' +
    'signed with the subscription secret (`X-Stockless-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of ' +
    '"<t>.<raw body>">`, and the Standard Webhooks `webhook-*` headers). Answer any 2xx within 10 seconds; ' +
    'anything else is retried after 1m, 5m, 30m, 2h and 12h, then dead-lettered (the store owner is emailed). ' +
    '410 Gone disables the subscription at once; 20 dead letters in a row disable it. Deliveries may arrive ' +
    'out of order and, rarely, more than once: key your processing on `event_key`.',
  OAuth:
    'Connecting a partner app to a store: OAuth 2.1 authorization code with PKCE (S256) for public clients, ' +
    'dynamic client registration (RFC 7591), revocation (RFC 7009) and discovery (RFC 8414, RFC 9728). These ' +
    'endpoints answer errors in the RFC 6749 form `{ error, error_description }`.',
};

const API_DESCRIPTION = `The partner API of Stockless: the catalogue, the store's listings, orders and invoices, the inventory feed, marketplace orders, signed webhooks, and OAuth 2.1 for partner apps.

**Authentication.** Send \`Authorization: Bearer <credential>\` on every request: a vendor API key (\`sl_live_…\` or \`sl_test_…\`, server-side only) or an access token of a partner app the store connected. A \`read\` key may only GET (and HEAD); any other method answers 403 \`INSUFFICIENT_SCOPE\` with \`required_scope: read_write\`. App tokens need the operation's app scope (see each operation's PartnerApp scopes); operations without one refuse them (403 \`APP_TOKEN_NOT_ALLOWED\`). A 401 carries \`WWW-Authenticate: Bearer resource_metadata="…/.well-known/oauth-protected-resource/api/v1"\`.

**Conventions.** Money is integer cents (AUD unless stated); timestamps are ISO 8601. Lists are paged with \`page\` (1-based) and \`limit\` (default 20, at most 500) and answer a \`pagination\` object. Query booleans are exactly \`true\` or \`false\`; unknown query keys are ignored; a wrong type or an out-of-range value is a 400. HEAD works wherever GET does. Every response carries \`X-Request-Id\`; error bodies repeat it as \`request_id\`.

**Errors.** \`{ error, message, code?, details?, request_id }\`: \`error\` is the category (\`bad_request\`, \`unauthorized\`, \`forbidden\`, \`not_found\`, \`conflict\`, \`rate_limited\`, \`server_error\`), \`code\` a stable machine-readable code, \`details\` the invalid fields of a 400.

**Rate limits.** App tokens: 120 requests a minute per store per app. The inventory feed and marketplace orders have limits of their own. Limited operations send \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds) on every answer, and 429 with \`Retry-After\` (seconds) over the limit.

**Versioning.** One API at \`/api/v1\`, additive by default. \`info.version\` moves with every change: patch for an addition, minor for a deprecation, major for a removal or a changed meaning, and a removal only after a deprecation that named a sunset date. Every change is in the [changelog](/docs/changelog).`;

const errorSchema = {
  type: 'object',
  description:
    'The error body of every `/api/v1` operation. Some codes add fields of their own (for example ' +
    '`minimum_price_cents` with `PRICE_BELOW_MINIMUM`, `lines` with `INSUFFICIENT_STOCK` and `PRICE_CHANGED`).',
  required: ['error', 'message', 'request_id'],
  properties: {
    error: {
      type: 'string',
      enum: [
        'bad_request',
        'unauthorized',
        'forbidden',
        'not_found',
        'conflict',
        'rate_limited',
        'server_error',
      ],
      description: 'Error category.',
    },
    message: { type: 'string', description: 'Human-readable explanation.' },
    code: { type: 'string', description: 'Machine-readable code, e.g. INSUFFICIENT_SCOPE.' },
    request_id: { type: 'string', description: 'Same as the X-Request-Id response header.' },
    required_scope: { type: 'string', description: 'On 403 INSUFFICIENT_SCOPE: the scope that was missing.' },
    details: {
      type: 'array',
      description: 'On validation errors: one entry per invalid field.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
    retry_after: {
      type: 'integer',
      description: 'On 429: seconds until the limit resets, as the Retry-After header.',
    },
    minimum_price_cents: {
      type: 'integer',
      description: 'With PRICE_BELOW_MINIMUM: the lowest retail price allowed for the product.',
    },
    product_id: {
      type: 'integer',
      description: 'With PRODUCT_NOT_ORDERABLE and VARIANT_REQUIRED: the product of the failing line.',
    },
    variant_ids: {
      type: 'array',
      items: { type: 'integer' },
      description: 'With VARIANT_REQUIRED: the variants to choose from.',
    },
    total_cents: {
      type: 'integer',
      description: 'With PAYMENT_MISMATCH: the order total the payment must equal.',
    },
    lines: {
      type: 'array',
      description:
        'With INSUFFICIENT_STOCK: the short lines (`requested`, `available`); with PRICE_CHANGED: the current ' +
        'wholesale `price_cents` of each changed line.',
      items: {
        type: 'object',
        required: ['product_id', 'variant_id'],
        properties: {
          product_id: { type: 'integer' },
          variant_id: { type: 'integer' },
          requested: { type: 'integer' },
          available: { type: 'integer' },
          price_cents: { type: 'integer' },
        },
      },
    },
  },
} as const;

const REQUEST_ID = 'req_4vd2k7xq9mhz3w5tbn6pcjya';
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Reusable response headers. */
const HEADERS: Record<string, Json> = {
  XRequestId: {
    description: 'Identifies the request; quote it when asking for support. Error bodies repeat it.',
    schema: { type: 'string', example: REQUEST_ID },
  },
  WWWAuthenticate: {
    description:
      'RFC 9728: where the protected-resource metadata of the API is, e.g. `Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource/api/v1"`.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0, example: 42 },
  },
  RateLimitLimit: {
    description:
      'Requests allowed in the current window. Sent by rate-limited operations (the inventory feed, marketplace orders) and on every answer to an app token.',
    schema: { type: 'integer', minimum: 0, example: 120 },
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0, example: 117 },
  },
  RateLimitReset: {
    description: 'Seconds until the window resets.',
    schema: { type: 'integer', minimum: 0, example: 42 },
  },
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

/** operationId → success status, for procedures whose success is not 200. */
function createdOperations(): Map<string, number> {
  const out = new Map<string, number>();
  for (const meta of proceduresMeta(appRouter).values()) {
    if (meta.successStatus && meta.openapi?.operationId)
      out.set(meta.openapi.operationId, meta.successStatus);
  }
  return out;
}

/** operationId → the app scope its meta names (`null`: apps refused). */
function appScopes(): Map<string, AppScopeRule> {
  const out = new Map<string, AppScopeRule>();
  for (const meta of proceduresMeta(appRouter).values()) {
    if (meta.openapi?.operationId) out.set(meta.openapi.operationId, meta.appScope ?? null);
  }
  return out;
}

/** operationIds of operations with a rate limit of their own. */
function rateLimited(): Set<string> {
  const out = new Set<string>();
  for (const meta of proceduresMeta(appRouter).values()) {
    if (meta.rateLimit && meta.openapi?.operationId) out.add(meta.openapi.operationId);
  }
  return out;
}

const APP_SCOPE_DESCRIPTIONS: Record<AppScope, string> = {
  read_products: 'Read the catalogue and listings',
  write_products: 'Includes read_products; add, remove and price listings',
  read_inventory: 'Read the inventory feed',
  write_inventory: 'Includes read_inventory',
  read_orders: 'Read orders',
  write_orders: 'Includes read_orders; does not include creating orders',
  read_customers: 'Buyer names, emails and addresses in order answers; never implied by another scope',
  write_external_orders: 'Post and cancel marketplace orders',
};

/** Descriptions the routers leave out (their meta is not part of this file's remit). */
const OPERATION_DESCRIPTIONS: Record<string, string> = {
  getWebhook: 'One subscription of the store, without its secret.',
};

/** Parameter descriptions the routers' schemas cannot carry (a description after `.optional()` is lost). */
const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  'listInventory updated_since':
    'A `next_cursor` from an earlier page; absent: from the beginning. A cursor belongs to the store that got it.',
};

/** Answers besides the main success status, with the same body (the marketplace post answers 200, 201 or 202). */
const OTHER_SUCCESSES: Record<string, Record<string, { description: string; example: unknown }>> = {
  postExternalOrder: {
    '200': {
      description: "Already in (posted before, or imported from the store's online shop): the existing order",
      example: 'existing',
    },
    '202': {
      description: 'Held, not created: an unmapped SKU, a line Stockless supplies, or not enough stock',
      example: {
        result: 'held',
        order: null,
        hold: { reason: 'unmapped_sku', lines: [{ sku: 'HH-VASE-01', reason: 'unmapped_sku' }] },
      },
    },
  },
};

/** A marketplace order as the marketplace-order operations answer it. */
function asMarketplaceOrder(example: Json): Json {
  if (example?.order) {
    Object.assign(example.order, {
      id: 9003,
      order_number: 'SL-100233',
      order_type: 'marketplace',
      channel: 'other_referral',
      source: 'etsy',
      status: 'processing',
      total_cents: 9000,
      subtotal_cents: 9000,
      gst_cents: 818,
      items_count: 1,
      tracking_number: null,
      invoice_number: null,
      invoice_issued_at: null,
      items: [
        {
          product_id: 2210,
          variant_id: 7710,
          sku: 'HH-VASE-01',
          name: 'Hand-thrown vase',
          quantity: 2,
          price_cents: 4500,
          shipped_quantity: 0,
        },
      ],
    });
  }
  return example;
}

/**
 * Success examples the schemas cannot give: the inventory page (its schema is declared in the
 * router), and answers whose shared schema reads differently in this operation.
 */
const RESPONSE_EXAMPLES: Record<string, (sample: Json) => Json> = {
  listInventory: () => ({
    items: [
      {
        product_id: 1042,
        sku: 'OAK-TBL-180',
        name: 'Oak dining table 180 cm',
        listed: true,
        in_stock: true,
        stock_quantity: 14,
        variants: [
          {
            id: 5531,
            sku: 'OAK-TBL-180-NAT',
            title: 'Natural oil',
            option_values: { Finish: 'Natural oil' },
            quantity_available: 9,
            available_for_sale: true,
          },
          {
            id: 5532,
            sku: 'OAK-TBL-180-BLK',
            title: 'Black stain',
            option_values: { Finish: 'Black stain' },
            quantity_available: 5,
            available_for_sale: true,
          },
        ],
        updated_at: '2026-11-02T09:30:00.000Z',
      },
    ],
    next_cursor: 'MToxMjo0ODIxMTo5MDMx.q9VxK3mT0bZ4nR8wYc2LdA',
    has_more: false,
  }),
  setMyProductPricing: (sample) => ({ ...sample, message: 'Price updated' }),
  setMyProductPurchaseMode: (sample) => ({
    message: 'Selling mode updated',
    vendor_product: { ...sample.vendor_product, purchase_mode: 'enquiry' },
  }),
  setMyProductVendorFulfilled: (sample) => ({
    message: 'Fulfilment updated',
    vendor_product: { ...sample.vendor_product, vendor_fulfilled: true },
  }),
  postExternalOrder: asMarketplaceOrder,
  cancelExternalOrder: (sample) => {
    const example = asMarketplaceOrder(sample);
    Object.assign(example.order, { status: 'cancelled', cancel_reason: 'marketplace' });
    return example;
  },
};

/** Named request examples, where one body has several forms. */
const REQUEST_EXAMPLES: Record<string, Record<string, { summary: string; value: Json }>> = {
  bulkAddMyProducts: {
    ids: { summary: 'These products', value: { mode: 'ids', product_ids: [1042, 1043] } },
    filter: {
      summary: 'Every in-stock product of a brand',
      value: { mode: 'filter', filters: { brand: 'nordhaus', in_stock: true } },
    },
  },
  bulkRemoveMyProducts: {
    ids: { summary: 'These products', value: { mode: 'ids', product_ids: [1042, 1043] } },
    filter: {
      summary: 'Every listing (empty filters clear the store)',
      value: { mode: 'filter', filters: {} },
    },
  },
};

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
};

/** An error example: the body as the API sends it. */
function errorExample(error: string, code: string | undefined, message: string, extra: Json = {}) {
  return { error, ...(code ? { code } : {}), message, ...extra, request_id: REQUEST_ID };
}

/** Operation-specific error examples, by operationId and status; the rest get a generic one. */
const ERROR_EXAMPLES: Record<string, Record<string, Json>> = {
  getProduct: {
    '404': errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
  },
  getStore: { '404': errorExample('not_found', 'STORE_NOT_FOUND', 'Store not found') },
  addMyProduct: {
    '400': errorExample(
      'bad_request',
      'PRICE_BELOW_MINIMUM',
      'The retail price must be at least 52500 cents for this product',
      { minimum_price_cents: 52500 },
    ),
    '404': errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
    '409': errorExample('conflict', 'ALREADY_LISTED', 'Product 1042 is already in your store'),
  },
  setMyProductPricing: {
    '400': errorExample(
      'bad_request',
      'PRICE_BELOW_MINIMUM',
      'The retail price must be at least 52500 cents for this product',
      { minimum_price_cents: 52500 },
    ),
  },
  setMyProductPurchaseMode: {
    '409': errorExample(
      'conflict',
      'PURCHASE_MODE_LOCKED',
      'This product is quote-only in the catalogue and cannot be sold with card checkout',
    ),
  },
  createWholesaleOrder: {
    '400': errorExample(
      'bad_request',
      'INSUFFICIENT_STOCK',
      'Not enough stock for every line; nothing was reserved',
      {
        lines: [{ product_id: 1042, variant_id: 5531, requested: 20, available: 9 }],
      },
    ),
    '404': errorExample('not_found', 'PRODUCT_NOT_FOUND', 'No catalogue product with id 1042'),
    '409': errorExample(
      'conflict',
      'PRICE_CHANGED',
      'A wholesale price has changed; review the current prices',
    ),
  },
  getOrder: { '404': errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9001') },
  getOrderInvoice: {
    '404': errorExample(
      'not_found',
      'INVOICE_NOT_ISSUED',
      'This order has no tax invoice yet: it is issued when the order ships',
    ),
  },
  listInventory: {
    '400': errorExample(
      'bad_request',
      'INVALID_CURSOR',
      'updated_since is not a cursor this feed gave out for this store',
      { details: [{ path: 'updated_since', message: 'not a next_cursor of this feed' }] },
    ),
    '404': errorExample('not_found', 'FEATURE_DISABLED', 'Inventory reads are switched off on this platform'),
  },
  postExternalOrder: {
    '400': errorExample('bad_request', 'TOTAL_MISMATCH', 'total_cents is 9500 but the lines add up to 9000', {
      details: [{ path: 'total_cents', message: 'must equal the sum of the lines (9000)' }],
    }),
    '404': errorExample('not_found', 'FEATURE_DISABLED', 'External orders are switched off on this platform'),
  },
  cancelExternalOrder: {
    '403': errorExample(
      'forbidden',
      'NOT_AN_APP_ORDER',
      'Only orders posted through /orders/external can be cancelled here',
    ),
    '404': errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9003'),
    '409': errorExample('conflict', 'ORDER_NOT_CANCELLABLE', 'A delivered order cannot be cancelled'),
  },
  createWebhook: {
    '400': errorExample(
      'bad_request',
      'WEBHOOK_URL_NOT_PUBLIC',
      'the host hooks.example.com resolves to a private or reserved address; webhook endpoints must be public',
    ),
    '409': errorExample(
      'conflict',
      'WEBHOOK_LIMIT_REACHED',
      'A store can have at most 10 webhook subscriptions; delete one first',
    ),
  },
  resendWebhookDelivery: {
    '404': errorExample('not_found', 'DELIVERY_NOT_FOUND', 'No delivery 418 for webhook subscription 7'),
    '409': errorExample('conflict', 'WEBHOOK_DISABLED', 'The subscription is disabled; set it active first'),
  },
  testWebhook: {
    '409': errorExample('conflict', 'WEBHOOK_DISABLED', 'The subscription is disabled; set it active first'),
  },
};

/** The field a validation error example names: `limit` where there is one, else the first input. */
function inputField(op: Json): string {
  const params: string[] = (op?.parameters ?? []).map((p: Json) => p.name);
  if (params.includes('limit')) return 'limit';
  const body = Object.keys(op?.requestBody?.content?.['application/json']?.schema?.properties ?? {});
  return body[0] ?? params[0] ?? 'id';
}

function genericError(status: string, write: boolean, appScope: AppScopeRule | undefined, op?: Json): Json {
  switch (status) {
    case '400': {
      const field = inputField(op);
      const message = field === 'limit' ? 'Too big: expected number to be <=500' : 'Invalid input';
      return errorExample('bad_request', 'VALIDATION_FAILED', `Invalid request: ${field}: ${message}`, {
        details: [{ path: field, message }],
      });
    }
    case '401':
      return errorExample(
        'unauthorized',
        'INVALID_CREDENTIAL',
        'Missing credential: send Authorization: Bearer <API key or access token>',
      );
    case '403':
      if (write)
        return errorExample(
          'forbidden',
          'INSUFFICIENT_SCOPE',
          'This credential is read-only; this operation needs read_write',
          { required_scope: 'read_write' },
        );
      if (appScope === null || appScope === undefined)
        return errorExample('forbidden', 'APP_TOKEN_NOT_ALLOWED', 'App tokens cannot use this operation');
      if (appScope === '*') return errorExample('forbidden', 'FORBIDDEN', 'Forbidden');
      return errorExample(
        'forbidden',
        'INSUFFICIENT_SCOPE',
        `This operation needs the app scope ${appScope}`,
        {
          required_scope: appScope,
        },
      );
    case '404':
      return errorExample('not_found', 'NOT_FOUND', 'Not found');
    case '409':
      return errorExample(
        'conflict',
        'CONCURRENT_UPDATE',
        'A concurrent change got in the way; retry the request',
      );
    case '429':
      return errorExample(
        'rate_limited',
        'RATE_LIMITED',
        'Rate limit of 120 requests per minute reached; retry later',
        { retry_after: 42 },
      );
    default:
      return errorExample('server_error', undefined, 'Internal server error');
  }
}

/** An error response of the contract's shape, with its example and headers. */
function errorResponse(description: string, status: string, example: Json): Json {
  const headers: Json = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (status === '401') headers['WWW-Authenticate'] = ref('headers', 'WWWAuthenticate');
  if (status === '429')
    Object.assign(headers, { 'Retry-After': ref('headers', 'RetryAfter') }, RATE_LIMIT_HEADERS);
  return {
    description,
    headers,
    content: { 'application/json': { schema: ref('schemas', 'Error'), example } },
  };
}

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const path = (s.$ref as string).replace(/^#\//, '').split('/');
    s = path.reduce((node: Json, key) => node?.[key], doc);
  }
  return s;
}

/**
 * An example built from the schema: each field's own `example` (set with `.meta({ example })` on
 * the routers' zod schemas), else its default, first enum value or a placeholder of its type. The
 * contract's examples thus come from the same schemas as the contract.
 */
export function sampleOf(doc: Json, schema: Json, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (!s || typeof s !== 'object' || depth > 20) return null;
  if ('example' in s) return structuredClone(s.example);
  if (Array.isArray(s.examples) && s.examples.length > 0) return structuredClone(s.examples[0]);
  if ('const' in s) return s.const;
  if ('default' in s) return structuredClone(s.default);
  if (Array.isArray(s.enum)) return s.enum[0];
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) {
    const branch = union.find((b: Json) => resolve(doc, b)?.type !== 'null') ?? union[0];
    return sampleOf(doc, branch, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part: Json) => sampleOf(doc, part, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = sampleOf(doc, prop, depth + 1);
    if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
      out.key = sampleOf(doc, s.additionalProperties, depth + 1);
    }
    return out;
  }
  if (type === 'array') return [sampleOf(doc, s.items ?? {}, depth + 1)];
  if (type === 'integer' || type === 'number') {
    let v = 1;
    if (typeof s.minimum === 'number' && v < s.minimum) v = s.minimum;
    if (typeof s.maximum === 'number' && v > s.maximum) v = s.maximum;
    return v;
  }
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  if (type === 'string') {
    if (s.format === 'date-time') return '2026-11-02T09:30:00.000Z';
    if (s.format === 'date') return '2026-11-02';
    if (s.format === 'email') return 'sam.lee@example.com';
    if (s.format === 'uri') return 'https://example.com/';
    return 'string';
  }
  return null;
}

/**
 * The contract, generated from the routers so it cannot drift from the code. trpc-to-openapi
 * describes errors in tRPC's shape; every error response is rewritten to the contract's error body.
 * The raw routes (the invoice PDF, OAuth and discovery) and the webhook events are described here.
 */
export function buildOpenApiDocument(baseUrl = 'http://localhost:3000'): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Stockless Partner API',
    description: API_DESCRIPTION,
    version: CONTRACT_VERSION,
    baseUrl: '{base_url}',
    tags: TAGS,
    securitySchemes: {
      ApiKey: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A vendor API key (`sl_live_…` or `sl_test_…`), created in the vendor dashboard under Settings, API ' +
          'keys. Server-side use only: browser or mobile code must never hold it. Its scope is `read` (GET and ' +
          'HEAD only) or `read_write`.',
      },
      PartnerApp: {
        type: 'oauth2',
        description:
          'An access token (`sl_at_…`) an installed partner app obtained with the authorization code flow and ' +
          'PKCE S256, for the resource `{base_url}/api/v1`. Public clients register at `/oauth/register`; ' +
          "discovery at `/.well-known/oauth-authorization-server`. Scopes are read from the store's grant on " +
          'every call; `write_*` includes its `read_*`, `read_customers` is never implied.',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth/authorize',
            tokenUrl: '/oauth/token',
            refreshUrl: '/oauth/token',
            scopes: APP_SCOPE_DESCRIPTIONS,
          },
        },
      },
    },
  }) as Json;
  doc.info.license = { name: 'Proprietary' };
  doc.tags = TAGS.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
  doc.servers = [
    {
      url: '{base_url}',
      description: 'The Stockless deployment you were given access to.',
      variables: { base_url: { default: baseUrl, description: 'Scheme, host and port, no trailing slash.' } },
    },
  ];
  doc.components ??= {};
  doc.components.schemas ??= {};
  const schemas = doc.components.schemas;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Error = errorSchema;
  doc.components.headers = HEADERS;

  const created = createdOperations();
  const scopes = appScopes();
  const limited = rateLimited();
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const operationId: string = op.operationId ?? '';
      const appScope = scopes.get(operationId);
      const write = method !== 'get';
      // API keys everywhere; app tokens where the operation has an app scope (`*`: any scope).
      op.security =
        appScope === null || appScope === undefined
          ? [{ ApiKey: [] }]
          : [{ ApiKey: [] }, { PartnerApp: appScope === '*' ? [] : [appScope] }];
      op.description ??= OPERATION_DESCRIPTIONS[operationId];
      for (const param of op.parameters ?? []) {
        // A parameter's description belongs to the parameter (renderers and SDK generators read it there).
        param.description ??=
          param.schema?.description ?? PARAMETER_DESCRIPTIONS[`${operationId} ${param.name}`];
        if (param.schema) delete param.schema.description;
        if (param.in === 'path') param.required = true;
      }
      const status = created.get(operationId);
      if (status && op.responses?.['200']) {
        op.responses[String(status)] = op.responses['200'];
        delete op.responses['200'];
      }
      const rateLimitedHere = limited.has(operationId) || (appScope !== null && appScope !== undefined);
      if (rateLimitedHere && !op.responses['429']) {
        op.responses['429'] = {
          description: 'Rate limited (app tokens: 120 requests a minute per store per app)',
        };
      }
      for (const [code, response] of Object.entries<Json>(op.responses ?? {})) {
        if (Number(code) >= 400) {
          const example = ERROR_EXAMPLES[operationId]?.[code] ?? genericError(code, write, appScope, op);
          op.responses[code] = errorResponse(response.description, code, example);
          continue;
        }
        response.description =
          response.description === 'Successful response'
            ? (SUCCESS_DESCRIPTIONS[code] ?? response.description)
            : response.description;
        response.headers = {
          'X-Request-Id': ref('headers', 'XRequestId'),
          ...(rateLimitedHere ? RATE_LIMIT_HEADERS : {}),
        };
        const media = response.content?.['application/json'];
        if (media?.schema) {
          const sample = sampleOf(doc, media.schema);
          media.example = RESPONSE_EXAMPLES[operationId]?.(sample) ?? sample;
        }
      }
      for (const [code, other] of Object.entries(OTHER_SUCCESSES[operationId] ?? {})) {
        const main = op.responses[String(status ?? 200)];
        const media = main.content['application/json'];
        op.responses[code] = {
          description: other.description,
          headers: main.headers,
          content: {
            'application/json': {
              schema: media.schema,
              example:
                typeof other.example === 'string'
                  ? { ...media.example, result: other.example }
                  : other.example,
            },
          },
        };
      }
      op.responses = sortedResponses(op.responses);
      const body = op.requestBody?.content?.['application/json'];
      if (body?.schema) {
        if (REQUEST_EXAMPLES[operationId]) body.examples = REQUEST_EXAMPLES[operationId];
        else body.example = sampleOf(doc, body.schema);
      }
    }
  }
  addInvoiceOperation(doc);
  addOAuthOperations(doc);
  addWebhookEvents(doc);
  return doc;
}

function sortedResponses(responses: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** The invoice is a PDF served by a raw route (trpc-to-openapi only speaks JSON): described by hand. */
function addInvoiceOperation(doc: Json) {
  const rate = { ...RATE_LIMIT_HEADERS };
  doc.paths ??= {};
  doc.paths['/api/v1/orders/{id}/invoice'] = {
    get: {
      operationId: 'getOrderInvoice',
      tags: ['Orders'],
      summary: "The buyer's tax invoice (PDF)",
      description:
        'The tax invoice Stockless issued as merchant of record when the order shipped, as a PDF. Before the ' +
        'order ships there is none: 404 `INVOICE_NOT_ISSUED`. `invoice_number` and `invoice_issued_at` on the ' +
        'order tell whether it exists. App tokens need `read_orders` and `read_customers` (the invoice names the buyer).',
      security: [{ ApiKey: [] }, { PartnerApp: ['read_orders', 'read_customers'] }],
      parameters: [
        {
          in: 'path',
          name: 'id',
          required: true,
          description: 'The order id.',
          schema: { type: 'integer', minimum: 1, maximum: 2147483647, example: 9001 },
        },
      ],
      responses: {
        '200': {
          description: 'The invoice',
          headers: {
            'Content-Disposition': {
              description: 'inline; filename="INV-YYYYMM-NNNNNN.pdf"',
              schema: { type: 'string', example: 'inline; filename="INV-202611-000123.pdf"' },
            },
            'X-Request-Id': ref('headers', 'XRequestId'),
            ...rate,
          },
          content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
        },
        '400': errorResponse('Invalid id', '400', genericError('400', false, 'read_orders')),
        '401': errorResponse('Missing or invalid credential', '401', genericError('401', false, undefined)),
        '403': errorResponse(
          'Scope refused',
          '403',
          errorExample(
            'forbidden',
            'INSUFFICIENT_SCOPE',
            'This operation needs the app scope read_customers',
            {
              required_scope: 'read_customers',
            },
          ),
        ),
        '404': errorResponse(
          'No such order, or no invoice yet',
          '404',
          ERROR_EXAMPLES.getOrderInvoice?.['404'],
        ),
        '429': errorResponse(
          'Rate limited (app tokens: 120 requests a minute per store per app)',
          '429',
          genericError('429', false, undefined),
        ),
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OAuth and discovery: raw routes (server/oauth/routes.ts), described by hand.

const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'temporarily_unavailable',
  'not_found',
];

const EXAMPLE_CLIENT_ID = 'slc_q3v7m2kx9hdw4tzn8rcjf5pybg6a1es0lu2ioxke';
const EXAMPLE_REDIRECT = 'https://app.example.com/oauth/callback';

const OAUTH_SCHEMAS: Record<string, Json> = {
  OAuthError: {
    type: 'object',
    description: 'RFC 6749 §5.2: the error form of every OAuth and discovery endpoint.',
    required: ['error', 'error_description'],
    properties: {
      error: {
        type: 'string',
        description:
          'An RFC 6749 / RFC 7591 / RFC 8707 error code: ' +
          OAUTH_ERROR_CODES.map((c) => `\`${c}\``).join(', '),
        example: 'invalid_grant',
      },
      error_description: {
        type: 'string',
        description: 'Human-readable explanation.',
        example: 'code_verifier does not match the code_challenge',
      },
    },
  },
  OAuthClientMetadata: {
    type: 'object',
    description:
      'RFC 7591 client metadata. Only public clients are registered (`token_endpoint_auth_method: none`, PKCE).',
    required: ['redirect_uris'],
    properties: {
      redirect_uris: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        description:
          'Exact-match redirect URIs: `https://` without a fragment, or for native apps `http://127.0.0.1` or ' +
          '`http://[::1]` with any port (RFC 8252; `localhost` is refused).',
        items: { type: 'string', maxLength: 2000 },
        example: [EXAMPLE_REDIRECT],
      },
      client_name: { type: 'string', minLength: 1, maxLength: 100, example: 'Acme Marketplace Sync' },
      token_endpoint_auth_method: {
        type: 'string',
        enum: ['none'],
        default: 'none',
        description: 'Public clients only.',
      },
      grant_types: {
        type: 'array',
        items: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
        default: ['authorization_code', 'refresh_token'],
      },
      response_types: { type: 'array', items: { type: 'string', enum: ['code'] }, default: ['code'] },
      scope: {
        type: 'string',
        maxLength: 500,
        description: 'Space-separated app scopes the app may ask for; default: all of them.',
        example: 'read_products read_orders write_external_orders',
      },
      client_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      logo_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      policy_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      tos_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      contacts: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 200 } },
      software_id: { type: 'string', maxLength: 200 },
      software_version: { type: 'string', maxLength: 100 },
    },
  },
  OAuthClient: {
    type: 'object',
    description: 'The registered client (RFC 7591 §3.2.1). There is no client secret.',
    required: [
      'client_id',
      'client_id_issued_at',
      'client_name',
      'redirect_uris',
      'grant_types',
      'response_types',
      'token_endpoint_auth_method',
      'scope',
    ],
    properties: {
      client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
      client_id_issued_at: { type: 'integer', description: 'Unix seconds.', example: 1762137600 },
      client_name: { type: 'string', example: 'Acme Marketplace Sync' },
      redirect_uris: { type: 'array', items: { type: 'string' }, example: [EXAMPLE_REDIRECT] },
      grant_types: {
        type: 'array',
        items: { type: 'string' },
        example: ['authorization_code', 'refresh_token'],
      },
      response_types: { type: 'array', items: { type: 'string' }, example: ['code'] },
      token_endpoint_auth_method: { type: 'string', enum: ['none'] },
      scope: { type: 'string', example: 'read_products read_orders write_external_orders' },
      client_uri: { type: 'string' },
      logo_uri: { type: 'string' },
      policy_uri: { type: 'string' },
      tos_uri: { type: 'string' },
      contacts: { type: 'array', items: { type: 'string' } },
      software_id: { type: 'string' },
      software_version: { type: 'string' },
    },
  },
  OAuthTokenRequest: {
    description: 'Form fields of a token request (`application/x-www-form-urlencoded`).',
    oneOf: [
      {
        title: 'authorization_code',
        type: 'object',
        required: ['grant_type', 'client_id', 'code', 'code_verifier', 'redirect_uri', 'resource'],
        properties: {
          grant_type: { type: 'string', const: 'authorization_code' },
          client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
          code: {
            type: 'string',
            description:
              'The code from the redirect: single use, valid 5 minutes. A replayed code revokes its tokens.',
            example: 'k2m9q4x7v3hd8wz5tn6rcj1pyb0aesfglu4oixke',
          },
          code_verifier: {
            type: 'string',
            description: 'The PKCE verifier whose S256 challenge was sent to authorize.',
            example: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
          },
          redirect_uri: {
            type: 'string',
            description: 'Exactly as sent to authorize.',
            example: EXAMPLE_REDIRECT,
          },
          resource: {
            type: 'string',
            description: 'RFC 8707: `{base_url}/api/v1`, as sent to authorize.',
            example: 'https://api.stockless.example/api/v1',
          },
        },
      },
      {
        title: 'refresh_token',
        type: 'object',
        required: ['grant_type', 'client_id', 'refresh_token', 'resource'],
        properties: {
          grant_type: { type: 'string', const: 'refresh_token' },
          client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
          refresh_token: {
            type: 'string',
            description:
              'Rotates: the answer carries a new refresh token. Presenting a spent one revokes every token of the grant.',
            example: 'sl_rt_p4x9m2kq7v3hd8wz5tn6rcj1yb0aesfglu4oixk',
          },
          scope: {
            type: 'string',
            description: "Optional: fewer scopes than the grant's for the new access token.",
            example: 'read_products',
          },
          resource: {
            type: 'string',
            description: 'RFC 8707: `{base_url}/api/v1`.',
            example: 'https://api.stockless.example/api/v1',
          },
        },
      },
    ],
  },
  OAuthToken: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
    properties: {
      access_token: {
        type: 'string',
        description: 'Valid one hour, only on `{base_url}/api/v1`.',
        example: 'sl_at_v8k2m9q4x7h3dwz5tn6rcj1pyb0aesfglu4oix',
      },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer', description: 'Seconds.', example: 3600 },
      refresh_token: {
        type: 'string',
        description: 'Valid 30 days; single use (rotates).',
        example: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi',
      },
      scope: {
        type: 'string',
        description: "Informational: the scopes of the store's grant are read on every call.",
        example: 'read_products read_orders',
      },
    },
  },
  OAuthRevocationRequest: {
    type: 'object',
    required: ['client_id', 'token'],
    properties: {
      client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
      token: {
        type: 'string',
        description:
          "An access or refresh token of this client. A refresh token ends the grant's tokens; an access token ends itself.",
        example: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi',
      },
      token_type_hint: {
        type: 'string',
        enum: ['access_token', 'refresh_token'],
        description: 'Accepted and not needed: the token says what it is.',
      },
    },
  },
  AuthorizationServerMetadata: {
    type: 'object',
    description: 'RFC 8414 authorization server metadata.',
    required: [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'registration_endpoint',
      'revocation_endpoint',
      'response_types_supported',
      'grant_types_supported',
      'code_challenge_methods_supported',
      'token_endpoint_auth_methods_supported',
      'scopes_supported',
    ],
    properties: {
      issuer: { type: 'string', example: 'https://api.stockless.example' },
      authorization_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/authorize' },
      token_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/token' },
      registration_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/register' },
      revocation_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/revoke' },
      response_types_supported: { type: 'array', items: { type: 'string' }, example: ['code'] },
      response_modes_supported: { type: 'array', items: { type: 'string' }, example: ['query'] },
      grant_types_supported: {
        type: 'array',
        items: { type: 'string' },
        example: ['authorization_code', 'refresh_token'],
      },
      code_challenge_methods_supported: { type: 'array', items: { type: 'string' }, example: ['S256'] },
      token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' }, example: ['none'] },
      revocation_endpoint_auth_methods_supported: {
        type: 'array',
        items: { type: 'string' },
        example: ['none'],
      },
      scopes_supported: { type: 'array', items: { type: 'string' }, example: [...APP_SCOPES] },
      authorization_response_iss_parameter_supported: { type: 'boolean', example: true },
      service_documentation: { type: 'string', example: 'https://api.stockless.example/docs' },
    },
  },
  ProtectedResourceMetadata: {
    type: 'object',
    description: 'RFC 9728 protected resource metadata.',
    required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'],
    properties: {
      resource: { type: 'string', example: 'https://api.stockless.example/api/v1' },
      authorization_servers: {
        type: 'array',
        items: { type: 'string' },
        example: ['https://api.stockless.example'],
      },
      scopes_supported: { type: 'array', items: { type: 'string' }, example: [...APP_SCOPES] },
      bearer_methods_supported: { type: 'array', items: { type: 'string' }, example: ['header'] },
      resource_name: { type: 'string', example: 'Stockless partner API' },
      resource_documentation: { type: 'string', example: 'https://api.stockless.example/docs' },
    },
  },
};

function oauthError(description: string, error: string, errorDescription: string, headers: Json = {}): Json {
  return {
    description,
    headers,
    content: {
      'application/json': {
        schema: ref('schemas', 'OAuthError'),
        example: { error, error_description: errorDescription },
      },
    },
  };
}

const tooMany = (limit: string) =>
  oauthError(
    `Rate limited (${limit})`,
    'temporarily_unavailable',
    'Too many requests; retry after the Retry-After delay',
    { 'Retry-After': ref('headers', 'RetryAfter'), ...RATE_LIMIT_HEADERS },
  );

const NO_STORE = {
  'Cache-Control': { description: '`no-store`', schema: { type: 'string', example: 'no-store' } },
};

function discovery(summary: string, description: string, operationId: string, schema: string, example: Json) {
  return {
    get: {
      operationId,
      tags: ['OAuth'],
      summary,
      description: `${description} Limited to 60 requests a minute per IP address.`,
      security: [],
      responses: {
        '200': {
          description: 'The metadata document',
          headers: {
            'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } },
            ...RATE_LIMIT_HEADERS,
          },
          content: { 'application/json': { schema: ref('schemas', schema), example } },
        },
        '429': tooMany('60 a minute per IP address'),
      },
    },
  };
}

function addOAuthOperations(doc: Json) {
  Object.assign(doc.components.schemas, OAUTH_SCHEMAS);
  const base = 'https://api.stockless.example';
  const resourceMetadata = (resource: string) => ({
    resource,
    authorization_servers: [base],
    scopes_supported: [...APP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Stockless partner API',
    resource_documentation: `${base}/docs`,
  });
  Object.assign(doc.paths, {
    '/oauth/register': {
      post: {
        operationId: 'registerOAuthClient',
        tags: ['OAuth'],
        summary: 'Register a partner app (RFC 7591)',
        description:
          'Dynamic client registration of a public client: no secret, PKCE at authorize. Redirect URIs are ' +
          'matched exactly at authorize and token. Limited to 20 registrations an hour per IP address.',
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'OAuthClientMetadata'),
              example: {
                redirect_uris: [EXAMPLE_REDIRECT],
                client_name: 'Acme Marketplace Sync',
                token_endpoint_auth_method: 'none',
                scope: 'read_products read_orders write_external_orders',
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Registered',
            headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
            content: {
              'application/json': {
                schema: ref('schemas', 'OAuthClient'),
                example: {
                  client_id: EXAMPLE_CLIENT_ID,
                  client_id_issued_at: 1762137600,
                  client_name: 'Acme Marketplace Sync',
                  redirect_uris: [EXAMPLE_REDIRECT],
                  grant_types: ['authorization_code', 'refresh_token'],
                  response_types: ['code'],
                  token_endpoint_auth_method: 'none',
                  scope: 'read_products read_orders write_external_orders',
                },
              },
            },
          },
          '400': oauthError(
            'Invalid metadata (`invalid_redirect_uri`, `invalid_client_metadata`)',
            'invalid_redirect_uri',
            'must be https, or http on a loopback IP (127.0.0.1 or [::1]) for native apps: http://localhost/cb',
          ),
          '415': oauthError(
            'The body is not `application/json`',
            'invalid_client_metadata',
            'Send the client metadata as application/json',
          ),
          '429': tooMany('20 an hour per IP address'),
        },
      },
    },
    '/oauth/authorize': {
      get: {
        operationId: 'authorizeOAuth',
        tags: ['OAuth'],
        summary: 'Start connecting an app to a store',
        description:
          'The browser is sent here by the app. A valid request is redirected to the Stockless sign-in and ' +
          'consent page, where a user of the store approves the scopes; the browser then returns to ' +
          '`redirect_uri` with `code`, `state` and `iss` (RFC 9207), or with `error`, `error_description`, ' +
          '`state` and `iss` (`access_denied`, `invalid_request`, `unsupported_response_type`, `invalid_scope`, ' +
          '`invalid_target`). An unknown `client_id` or an unregistered `redirect_uri` is never redirected: it ' +
          'answers an HTML error page.',
        security: [],
        parameters: [
          {
            in: 'query',
            name: 'response_type',
            required: true,
            description: 'Always `code`.',
            schema: { type: 'string', enum: ['code'] },
          },
          {
            in: 'query',
            name: 'client_id',
            required: true,
            description: 'From registration.',
            schema: { type: 'string', example: EXAMPLE_CLIENT_ID },
          },
          {
            in: 'query',
            name: 'redirect_uri',
            required: true,
            description: 'One of the registered redirect URIs, exactly.',
            schema: { type: 'string', example: EXAMPLE_REDIRECT },
          },
          {
            in: 'query',
            name: 'scope',
            required: false,
            description: 'Space-separated app scopes, among those registered; default: all registered.',
            schema: { type: 'string', example: 'read_products read_orders' },
          },
          {
            in: 'query',
            name: 'state',
            required: false,
            description: 'Opaque value returned unchanged on the redirect (CSRF protection for the app).',
            schema: { type: 'string', example: 'af0ifjsldkj' },
          },
          {
            in: 'query',
            name: 'code_challenge',
            required: true,
            description: 'PKCE: base64url(SHA-256(code_verifier)) without padding, 43 characters.',
            schema: {
              type: 'string',
              pattern: '^[A-Za-z0-9_-]{43}$',
              example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            },
          },
          {
            in: 'query',
            name: 'code_challenge_method',
            required: true,
            description: 'Only `S256` (`plain` is refused).',
            schema: { type: 'string', enum: ['S256'] },
          },
          {
            in: 'query',
            name: 'resource',
            required: true,
            description: 'RFC 8707: the API the token is for, `{base_url}/api/v1`.',
            schema: { type: 'string', example: 'https://api.stockless.example/api/v1' },
          },
        ],
        responses: {
          '302': {
            description:
              'To the sign-in and consent page (`/oauth/consent?request=…`), or back to `redirect_uri` with an error',
            headers: {
              Location: {
                description: 'Where the browser goes next.',
                schema: {
                  type: 'string',
                  example: `${EXAMPLE_REDIRECT}?error=invalid_scope&error_description=Unknown%20or%20unregistered%20scope%3A%20write_orders&state=af0ifjsldkj&iss=https%3A%2F%2Fapi.stockless.example`,
                },
              },
            },
          },
          '400': {
            description: 'Unknown client or unregistered redirect URI: an HTML error page, never a redirect',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/oauth/token': {
      post: {
        operationId: 'requestOAuthToken',
        tags: ['OAuth'],
        summary: 'Exchange a code, or refresh (RFC 6749 §4.1.3, §6)',
        description:
          '`authorization_code`: the code from the redirect with its PKCE verifier. `refresh_token`: a new ' +
          'access token and a new refresh token (rotation; a spent refresh token revokes the whole grant). ' +
          '`resource` is required in both. Access tokens live one hour, refresh tokens 30 days. Limited to ' +
          '60 requests a minute per client.',
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: ref('schemas', 'OAuthTokenRequest'),
              example: {
                grant_type: 'authorization_code',
                client_id: EXAMPLE_CLIENT_ID,
                code: 'k2m9q4x7v3hd8wz5tn6rcj1pyb0aesfglu4oixke',
                code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
                redirect_uri: EXAMPLE_REDIRECT,
                resource: 'https://api.stockless.example/api/v1',
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Tokens',
            headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
            content: {
              'application/json': {
                schema: ref('schemas', 'OAuthToken'),
                example: {
                  access_token: 'sl_at_v8k2m9q4x7h3dwz5tn6rcj1pyb0aesfglu4oix',
                  token_type: 'Bearer',
                  expires_in: 3600,
                  refresh_token: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi',
                  scope: 'read_products read_orders',
                },
              },
            },
          },
          '400': oauthError(
            'Refused (`invalid_request`, `invalid_grant`, `invalid_target`, `invalid_scope`, `unsupported_grant_type`)',
            'invalid_grant',
            'code_verifier does not match the code_challenge',
          ),
          '401': oauthError(
            'Unknown client (`invalid_client`)',
            'invalid_client',
            'Client authentication failed',
            {
              'WWW-Authenticate': { description: '`Basic realm="oauth"`', schema: { type: 'string' } },
            },
          ),
          '415': oauthError(
            'The body is not form-encoded',
            'invalid_request',
            'Send the parameters as application/x-www-form-urlencoded',
          ),
          '429': tooMany('60 a minute per client'),
        },
      },
    },
    '/oauth/revoke': {
      post: {
        operationId: 'revokeOAuthToken',
        tags: ['OAuth'],
        summary: 'Revoke a token (RFC 7009)',
        description:
          'Revoking a refresh token ends every token of the grant (the app must be connected again); revoking an ' +
          'access token ends that token. An unknown token also answers 200. Counts against the token ' +
          "endpoint's limit (60 a minute per client).",
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: ref('schemas', 'OAuthRevocationRequest'),
              example: { client_id: EXAMPLE_CLIENT_ID, token: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi' },
            },
          },
        },
        responses: {
          '200': {
            description: 'Revoked, or no such token (empty body)',
            headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
          },
          '400': oauthError('Missing `client_id` or `token`', 'invalid_request', 'token is required'),
          '401': oauthError('Unknown client', 'invalid_client', 'Client authentication failed', {
            'WWW-Authenticate': { description: '`Basic realm="oauth"`', schema: { type: 'string' } },
          }),
          '415': oauthError(
            'The body is not form-encoded',
            'invalid_request',
            'Send the parameters as application/x-www-form-urlencoded',
          ),
          '429': tooMany('60 a minute per client'),
        },
      },
    },
    '/.well-known/oauth-authorization-server': discovery(
      'Authorization server metadata (RFC 8414)',
      'Where the OAuth endpoints are and what they support.',
      'getAuthorizationServerMetadata',
      'AuthorizationServerMetadata',
      {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        scopes_supported: [...APP_SCOPES],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${base}/docs`,
      },
    ),
    '/.well-known/oauth-protected-resource': discovery(
      'Protected resource metadata of the API (RFC 9728)',
      'The metadata of the REST API, resource `{base_url}/api/v1`.',
      'getProtectedResourceMetadata',
      'ProtectedResourceMetadata',
      resourceMetadata(`${base}/api/v1`),
    ),
    '/.well-known/oauth-protected-resource/api/v1': discovery(
      'Protected resource metadata of the API, path-inserted form (RFC 9728 §3.1)',
      'The same document as `/.well-known/oauth-protected-resource`, at the URL a strict RFC 9728 client derives ' +
        'from the resource identifier `{base_url}/api/v1` (the one a 401 names in `WWW-Authenticate`).',
      'getApiProtectedResourceMetadata',
      'ProtectedResourceMetadata',
      resourceMetadata(`${base}/api/v1`),
    ),
    '/.well-known/oauth-protected-resource/mcp': discovery(
      'Protected resource metadata of the vendor MCP endpoint (RFC 9728)',
      'Resource `{base_url}/mcp`. App tokens of this API are never valid there.',
      'getMcpProtectedResourceMetadata',
      'ProtectedResourceMetadata',
      resourceMetadata(`${base}/mcp`),
    ),
  });
}

// ---------------------------------------------------------------------------------------------
// Webhook events: OpenAPI 3.1 top-level `webhooks`, one operation per event.

const EVENT_DESCRIPTIONS: Record<string, string> = {
  'order.created': 'A new order was placed on the store.',
  'order.updated': 'An order changed without changing status (for example its tracking number).',
  'order.fulfilled': 'An order moved to `fulfilled`.',
  'order.shipped': 'An order moved to `shipped`; its tax invoice is issued and emailed to the buyer.',
  'order.completed': 'An order completed: it moved to `delivered`.',
  'order.cancelled': 'An order was cancelled.',
  'order.held':
    'A marketplace order post was held, not created (an unmapped SKU, a line Stockless supplies, or not enough ' +
    'stock). It imports when posted again once resolved.',
  'invoice.issued': "The buyer's tax invoice of an order was issued (`invoice_number` is set).",
  'product.created': 'A product was listed in the store.',
  'product.updated':
    'A product in the store changed: details, price, variants, or the listing (repriced, retitled, shown or ' +
    'hidden on a channel).',
  'product.deleted': 'A product left the store: delisted, or withdrawn from the catalogue.',
  'inventory.updated':
    'Stock of a product in the store changed (an order reserved or released it, the supplier updated it, goods ' +
    'were received).',
  'site.published': 'The storefront was published.',
  'site.unpublished': 'The storefront was unpublished.',
  'webhook.ping':
    'A test event sent by POST /api/v1/vendor/webhooks/{id}/test, to that subscription only, whatever events it ' +
    'asked for.',
};

const ORDER_EVENTS = [
  'order.created',
  'order.updated',
  'order.fulfilled',
  'order.shipped',
  'order.completed',
  'order.cancelled',
  'invoice.issued',
];

/** The order's status in each order event's example. */
const ORDER_STATUS_AT: Record<string, string> = {
  'order.created': 'pending',
  'order.updated': 'processing',
  'order.fulfilled': 'fulfilled',
  'order.shipped': 'shipped',
  'order.completed': 'delivered',
  'order.cancelled': 'cancelled',
  'invoice.issued': 'shipped',
};

const WEBHOOK_PARAMETERS: Record<string, Json> = {
  WebhookDeliveryId: {
    in: 'header',
    name: 'X-Stockless-Delivery-Id',
    required: true,
    description: '`<subscription id>:<event_key>:<attempt>`: different on every attempt.',
    schema: { type: 'string', example: '7:order.shipped:9001:1' },
  },
  WebhookSignature: {
    in: 'header',
    name: 'X-Stockless-Signature',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex>`: `v1` is the lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed with the ' +
      'whole signing secret string (`whsec_…` included). Verify it over the raw body bytes, compare in ' +
      'constant time, and reject a `t` older than your tolerance (300 seconds is usual).',
    schema: {
      type: 'string',
      example: 't=1762137601,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
    },
  },
  StandardWebhookId: {
    in: 'header',
    name: 'webhook-id',
    required: true,
    description:
      'Standard Webhooks message id, `msg_<event id>`: the same on every attempt and resend of an event (a ' +
      'deduplication key).',
    schema: { type: 'string', example: 'msg_52817' },
  },
  StandardWebhookTimestamp: {
    in: 'header',
    name: 'webhook-timestamp',
    required: true,
    description: 'Standard Webhooks timestamp: unix seconds of this attempt.',
    schema: { type: 'string', example: '1762137601' },
  },
  StandardWebhookSignature: {
    in: 'header',
    name: 'webhook-signature',
    required: true,
    description:
      'Standard Webhooks signature `v1,<base64>`: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` ' +
      'keyed with the base64-decoded part of the secret after `whsec_`, so Standard Webhooks libraries verify it.',
    schema: { type: 'string', example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
  },
};

function eventKeyDescription(event: string): { description: string; example: string } {
  if (COALESCED_EVENTS.includes(event))
    return {
      description: '`<event>:<product_id>.<unix ms>`: one per coalescing window.',
      example: `${event}:1042.1762137630000`,
    };
  if (event === 'order.held')
    return { description: '`order.held:<id of the held post>`', example: 'order.held:311' };
  if (event.startsWith('site.')) return { description: `\`${event}:<store id>\``, example: `${event}:12` };
  if (event === 'webhook.ping')
    return {
      description: '`webhook.ping:<subscription id>.<unix ms>`',
      example: 'webhook.ping:7.1762137601000',
    };
  return { description: `\`${event}:<order id>\``, example: `${event}:9001` };
}

function addWebhookEvents(doc: Json) {
  const schemas = doc.components.schemas;
  schemas.OrderEventData = {
    type: 'object',
    description:
      'The order as GET /api/v1/orders/{id} shows it to an API key (buyer details included), rendered when the ' +
      'event is dispatched, normally well under a second after the change. In the rare case the order can no ' +
      'longer be read then, `order` is null and `order_id` names it.',
    required: ['order'],
    properties: {
      order: { anyOf: [ref('schemas', 'Order'), { type: 'null' }] },
      order_id: { type: 'integer', description: 'Only when `order` is null.', example: 9001 },
    },
  };
  schemas.ProductEventData = {
    type: 'object',
    description:
      'Ids only, coalesced: many changes to one product within the window (30 seconds by default) arrive as one ' +
      'delivery when the window closes. Re-read the product and its stock from the API; never treat the ' +
      'delivery as the new state.',
    required: ['product_id'],
    properties: {
      product_id: { type: 'integer', description: 'The catalogue product id.', example: 1042 },
      variant_id: {
        type: 'integer',
        description: 'Present when every change in the window was to this one variant.',
        example: 5531,
      },
    },
  };
  schemas.OrderHeldEventData = {
    type: 'object',
    required: ['marketplace', 'external_order_id', 'reason', 'lines'],
    properties: {
      marketplace: { type: 'string', example: 'etsy' },
      external_order_id: { type: 'string', example: '3141592653' },
      reason: { type: 'string', enum: ['unmapped_sku', 'service_supplied', 'insufficient_stock'] },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['sku', 'reason'],
          properties: {
            sku: { type: 'string', example: 'HH-VASE-01' },
            reason: { type: 'string', enum: ['unmapped_sku', 'service_supplied', 'insufficient_stock'] },
          },
        },
      },
    },
  };
  schemas.SiteEventData = {
    type: 'object',
    required: ['store_id', 'published', 'published_at'],
    properties: {
      store_id: { type: 'integer', example: 12 },
      published: { type: 'boolean', description: '`true` for site.published, `false` for site.unpublished.' },
      published_at: {
        anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
        description: 'When the storefront was published; null once unpublished.',
        example: '2026-11-02T09:30:00.000Z',
      },
    },
  };
  schemas.PingEventData = {
    type: 'object',
    required: ['webhook_id'],
    properties: { webhook_id: { type: 'integer', description: 'The subscription pinged.', example: 7 } },
  };
  doc.components.parameters = WEBHOOK_PARAMETERS;

  const dataOf = (event: string) => {
    if (ORDER_EVENTS.includes(event)) return 'OrderEventData';
    if (COALESCED_EVENTS.includes(event)) return 'ProductEventData';
    if (event === 'order.held') return 'OrderHeldEventData';
    if (event.startsWith('site.')) return 'SiteEventData';
    return 'PingEventData';
  };

  doc.webhooks = {};
  for (const event of WEBHOOK_EVENTS) {
    const key = eventKeyDescription(event);
    const payload = {
      type: 'object',
      description: `The body of a \`${event}\` delivery.`,
      required: ['event', 'event_key', 'created_at', 'data'],
      properties: {
        event: { type: 'string', const: event },
        event_key: {
          type: 'string',
          description: `${key.description} Key your processing on it: deliveries can arrive out of order and, rarely, more than once.`,
          example: key.example,
        },
        created_at: {
          type: 'string',
          format: 'date-time',
          description: 'When the event happened.',
          example: '2026-11-03T02:40:00.000Z',
        },
        data: ref('schemas', dataOf(event)),
      },
    };
    const example = sampleOf(doc, payload) as Json;
    if (event === 'site.unpublished') example.data = { store_id: 12, published: false, published_at: null };
    if (ORDER_EVENTS.includes(event)) {
      delete example.data.order_id;
      const status = ORDER_STATUS_AT[event] ?? 'shipped';
      Object.assign(example.data.order, { status });
      if (status !== 'shipped' && status !== 'delivered') {
        Object.assign(example.data.order, {
          tracking_number: null,
          invoice_number: null,
          invoice_issued_at: null,
        });
        for (const item of example.data.order.items) item.shipped_quantity = 0;
      }
    }
    doc.webhooks[event] = {
      post: {
        operationId: `${event.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase()).replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
        tags: ['Webhooks'],
        summary: event,
        description:
          `${EVENT_DESCRIPTIONS[event] ?? ''} Sent as a signed POST to every active subscription whose \`events\` ` +
          `name it (or \`*\`).${COALESCED_EVENTS.includes(event) ? ' Coalesced per product and ids-only.' : ''}`,
        security: [],
        parameters: [
          {
            in: 'header',
            name: 'X-Stockless-Event',
            required: true,
            description: 'The event name, as `event` in the body.',
            schema: { type: 'string', const: event, example: event },
          },
          ...Object.keys(WEBHOOK_PARAMETERS).map((p) => ref('parameters', p)),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: payload, example } },
        },
        responses: {
          '200': {
            description:
              'Any 2xx within 10 seconds acknowledges the delivery; the body is ignored. Redirects are not followed.',
          },
          '410': { description: 'Gone: the subscription is disabled at once.' },
          default: {
            description:
              'Any other answer, or none within 10 seconds: retried after 1m, 5m, 30m, 2h and 12h, then ' +
              'dead-lettered (the store owner is emailed).',
          },
        },
      },
    };
  }
}
