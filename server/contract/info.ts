import type { AppScope } from '../../src/auth/actor.ts';
import type { oas31 } from './shared.ts';

// The document's own prose: what the API is, its tags and its security schemes.

export const TAGS = [
  'Catalogue',
  'Store',
  'Listings',
  'Orders',
  'Webhooks',
  'Test helpers',
  'OAuth',
  'Service',
];

export const TAG_DESCRIPTIONS: Record<string, string> = {
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
  'Test helpers':
    'Test mode only (`sl_test_` keys): move a test order along its lifecycle as the platform would, to see ' +
    'every order event, the test invoice and your webhook handling without an operator. Live keys and OAuth ' +
    'tokens are refused with 403 `TEST_MODE_ONLY`.',
  OAuth:
    'Connecting a partner app to a store: OAuth 2.1 authorization code with PKCE (S256) for public clients, ' +
    'dynamic client registration (RFC 7591), revocation (RFC 7009) and discovery (RFC 8414, RFC 9728). These ' +
    'endpoints answer errors in the RFC 6749 form `{ error, error_description }`.',
  Service: 'The status check and this contract, served without a credential.',
};

export const API_DESCRIPTION = `The partner API of Stockless: the catalogue, the store's listings, orders and invoices, the inventory feed, marketplace orders, signed webhooks, and OAuth 2.1 for partner apps.

**Authentication.** Send \`Authorization: Bearer <credential>\` on every request: a vendor API key (\`sl_live_…\` or \`sl_test_…\`, server-side only) or an access token of a partner app the store connected. A \`read\` key may only GET (and HEAD); any other method answers 403 \`INSUFFICIENT_SCOPE\` with \`required_scope: read_write\`. App tokens need the operation's app scope (see each operation's PartnerApp scopes); operations without one refuse them (403 \`APP_TOKEN_NOT_ALLOWED\`). A 401 carries \`WWW-Authenticate: Bearer resource_metadata="…/.well-known/oauth-protected-resource/api/v1"\`.

**Conventions.** Money is integer cents (AUD unless stated); timestamps are ISO 8601. Lists are paged with \`page\` (1-based) and \`limit\` (default 20, at most 500) and answer a \`pagination\` object. Query booleans are exactly \`true\` or \`false\`; a query parameter the operation does not declare is a 400 \`VALIDATION_FAILED\` naming each in \`details\` (with the declared one it most likely meant), as is a wrong type or an out-of-range value. HEAD works wherever GET does. Every response carries \`X-Request-Id\`; error bodies repeat it as \`request_id\`.

**Errors.** \`{ error, message, code?, details?, doc_url?, request_id }\`: \`error\` is the category (\`bad_request\`, \`unauthorized\`, \`forbidden\`, \`not_found\`, \`method_not_allowed\`, \`conflict\`, \`unprocessable_content\`, \`rate_limited\`, \`server_error\`; each answers one HTTP status, except \`bad_request\`, which also answers 413 and 415), \`code\` a stable machine-readable code, \`details\` the invalid fields of a 400, \`doc_url\` the code's entry on the [error reference](/docs/errors) (what it means, its usual cause, the fix, an example). The OAuth endpoints link the same page as \`error_uri\`.

**Request bodies.** JSON objects sent as \`application/json\` (UTF-8), at most 1 MB and 32 levels deep; an operation without a body takes an empty one. Otherwise: 415 \`UNSUPPORTED_MEDIA_TYPE\`, 413 \`PAYLOAD_TOO_LARGE\`, or 400 \`INVALID_JSON\` (not UTF-8, not JSON, too deep, or a \`__proto__\` key). Text cannot contain NUL characters or unpaired UTF-16 surrogates, nor query values bytes that are not UTF-8: 400 \`VALIDATION_FAILED\` naming the field in \`details\`.

**Rate limits.** App tokens: 120 requests a minute per store per app. The inventory feed and marketplace orders have limits of their own. Limited operations send \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds) on every answer, and 429 with \`Retry-After\` (seconds until one more request is allowed) over the limit. Limits refill continuously (a limit of N a minute allows N at once, then one more every minute / N). Test mode (\`sl_test_\` keys) has allowances of its own: sandbox traffic never uses up the live allowance.

**Tracing.** A request may carry a W3C Trace Context \`traceparent\` (and \`tracestate\`): where the platform traces, its spans continue your trace, and the webhook deliveries the request causes send it on (\`traceparent\` of the delivery). A malformed one is ignored, never an error.

**Versioning.** One API at \`/api/v1\`, additive by default. \`info.version\` moves with every change: patch for an addition, minor for a deprecation, major for a removal or a changed meaning, and a removal only after a deprecation that named a sunset date. Every change is in the [changelog](/docs/changelog).`;

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

export const SECURITY_SCHEMES: Record<string, oas31.SecuritySchemeObject> = {
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
