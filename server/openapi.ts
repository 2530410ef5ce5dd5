import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppScope, AppScopeRule } from '../src/auth/actor.ts';
import { appRouter } from '../src/router.ts';
import { proceduresMeta } from '../src/trpc/meta.ts';
import { addOAuthOperations } from './openapi-oauth.ts';
import { addServiceOperations } from './openapi-service.ts';
import { type Json, RATE_LIMIT_HEADERS, ref, sampleOf } from './openapi-shared.ts';
import { addWebhookEvents } from './openapi-webhooks.ts';

export const CONTRACT_VERSION = '1.0.4';
export const TAGS = ['Catalogue', 'Store', 'Listings', 'Orders', 'Webhooks', 'OAuth', 'Service'];

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
  Service: 'The status check and this contract, served without a credential.',
};

const API_DESCRIPTION = `The partner API of Stockless: the catalogue, the store's listings, orders and invoices, the inventory feed, marketplace orders, signed webhooks, and OAuth 2.1 for partner apps.

**Authentication.** Send \`Authorization: Bearer <credential>\` on every request: a vendor API key (\`sl_live_…\` or \`sl_test_…\`, server-side only) or an access token of a partner app the store connected. A \`read\` key may only GET (and HEAD); any other method answers 403 \`INSUFFICIENT_SCOPE\` with \`required_scope: read_write\`. App tokens need the operation's app scope (see each operation's PartnerApp scopes); operations without one refuse them (403 \`APP_TOKEN_NOT_ALLOWED\`). A 401 carries \`WWW-Authenticate: Bearer resource_metadata="…/.well-known/oauth-protected-resource/api/v1"\`.

**Conventions.** Money is integer cents (AUD unless stated); timestamps are ISO 8601. Lists are paged with \`page\` (1-based) and \`limit\` (default 20, at most 500) and answer a \`pagination\` object. Query booleans are exactly \`true\` or \`false\`; unknown query keys are ignored; a wrong type or an out-of-range value is a 400. HEAD works wherever GET does. Every response carries \`X-Request-Id\`; error bodies repeat it as \`request_id\`.

**Errors.** \`{ error, message, code?, details?, request_id }\`: \`error\` is the category (\`bad_request\`, \`unauthorized\`, \`forbidden\`, \`not_found\`, \`conflict\`, \`rate_limited\`, \`server_error\`), \`code\` a stable machine-readable code, \`details\` the invalid fields of a 400.

**Request bodies.** JSON objects sent as \`application/json\` (UTF-8), at most 1 MB and 32 levels deep; an operation without a body takes an empty one. Otherwise: 415 \`UNSUPPORTED_MEDIA_TYPE\`, 413 \`PAYLOAD_TOO_LARGE\`, or 400 \`INVALID_JSON\` (not UTF-8, not JSON, too deep, or a \`__proto__\` key). Text cannot contain NUL characters or unpaired UTF-16 surrogates, nor query values bytes that are not UTF-8: 400 \`VALIDATION_FAILED\` naming the field in \`details\`.

**Rate limits.** App tokens: 120 requests a minute per store per app. The inventory feed and marketplace orders have limits of their own. Limited operations send \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds) on every answer, and 429 with \`Retry-After\` (seconds until one more request is allowed) over the limit. Limits refill continuously (a limit of N a minute allows N at once, then one more every minute / N).

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
      description: 'On 429: seconds until one more request is allowed, as the Retry-After header.',
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
      'Requests allowed a minute; up to this many may be sent at once. Sent by rate-limited operations (the inventory feed, marketplace orders) and on every answer to an app token.',
    schema: { type: 'integer', minimum: 0, example: 120 },
  },
  RateLimitRemaining: {
    description: 'Requests that may be sent now. One more is earned back every minute / limit.',
    schema: { type: 'integer', minimum: 0, example: 117 },
  },
  RateLimitReset: {
    description: 'Seconds until the whole allowance is back (Remaining equals Limit again).',
    schema: { type: 'integer', minimum: 0, example: 42 },
  },
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
        withdrawn_at: null,
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

/**
 * The contract, generated from the routers so it cannot drift from the code. trpc-to-openapi
 * describes errors in tRPC's shape; every error response is rewritten to the contract's error body.
 * The raw routes (the invoice PDF, OAuth and discovery) and the webhook events are described here.
 */
const SECURITY_SCHEMES: Parameters<typeof generateOpenApiDocument>[1]['securitySchemes'] = {
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
};

/** What the routers' meta says of each operation, by operationId. */
interface OperationFacts {
  created: Map<string, number>;
  scopes: Map<string, AppScopeRule>;
  limited: Set<string>;
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
    securitySchemes: SECURITY_SCHEMES,
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

  const facts: OperationFacts = { created: createdOperations(), scopes: appScopes(), limited: rateLimited() };
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) describeOperation(doc, method, op, facts);
  }
  addInvoiceOperation(doc);
  addOAuthOperations(doc);
  addServiceOperations(doc);
  addWebhookEvents(doc);
  return doc;
}

/** One generated operation in the contract's terms: security, descriptions, statuses, examples. */
function describeOperation(doc: Json, method: string, op: Json, facts: OperationFacts) {
  const { created, scopes, limited } = facts;
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
    param.description ??= param.schema?.description ?? PARAMETER_DESCRIPTIONS[`${operationId} ${param.name}`];
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
  describeResponses(doc, op, { operationId, write, appScope, rateLimitedHere });
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
            typeof other.example === 'string' ? { ...media.example, result: other.example } : other.example,
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

/** Error responses in the contract's body; successes with their headers and examples. */
function describeResponses(
  doc: Json,
  op: Json,
  o: { operationId: string; write: boolean; appScope: AppScopeRule | undefined; rateLimitedHere: boolean },
) {
  const { operationId, write, appScope, rateLimitedHere } = o;
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
