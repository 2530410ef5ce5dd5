/**
 * Every error code the API answers, in one registry: its HTTP status, its category (the body's
 * `error`) and the reference text a partner reads when they meet it (what it means and its usual
 * cause, then the fix). `AppError`, the contract's examples and the raw routes take their codes from
 * here (the types refuse any other), and test/edge/error-codes.test.ts holds the code base to it.
 * Every error body links its code's entry (`doc_url`; OAuth's `error_uri`) on the error reference
 * page, which is built from this registry alone (server/docs/error-reference.ts): a code cannot ship
 * without its entry.
 */
/** The body's `error`: what kind of refusal, each with its usual status (STATUS_OF in errors.ts). */
export type ErrorCategory =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable_content'
  | 'rate_limited'
  | 'server_error';

export interface ErrorCodeEntry {
  status: number;
  category: ErrorCategory;
  /** What it means, and what usually causes it. */
  doc: string;
  /** What the caller does about it. */
  fix: string;
  /** A message the code answers with, as a partner would meet it (the reference page's example). */
  example: string;
}

const entry = (
  status: number,
  category: ErrorCategory,
  doc: string,
  fix: string,
  example: string,
): ErrorCodeEntry => ({ status, category, doc, fix, example });

const RETRY = 'Retry after the Retry-After delay.';

/** The request as sent: its target, headers, media type, body and parameters. */
const REQUEST = {
  VALIDATION_FAILED: entry(
    400,
    'bad_request',
    'A parameter or body field is missing, of the wrong type, out of range or unknown; `details` names each field.',
    'Correct the fields `details` lists, as the operation documents them.',
    'Invalid request: limit: must be at most 500',
  ),
  INVALID_JSON: entry(
    400,
    'bad_request',
    'The body is not valid JSON (or holds a key such as `__proto__` that no schema accepts).',
    'Send one JSON object, serialised by a JSON library.',
    'The body is not valid JSON: Unexpected token } in JSON at position 17',
  ),
  INVALID_CHARACTER: entry(
    400,
    'bad_request',
    'The input holds a character that cannot be stored, such as a NUL (U+0000) or an unpaired surrogate.',
    'Remove control characters and send valid UTF-8.',
    'The request contains a character that cannot be stored',
  ),
  UNSUPPORTED_MEDIA_TYPE: entry(
    415,
    'bad_request',
    'The body is not `application/json` in UTF-8 (a form, text, or another charset).',
    'Send `Content-Type: application/json` with a UTF-8 body.',
    'Send the body as application/json',
  ),
  PAYLOAD_TOO_LARGE: entry(
    413,
    'bad_request',
    'The body is larger than the API reads (1 MB).',
    'Split the work into smaller requests (bulk operations take batches).',
    'The body is larger than 1 MB',
  ),
  INVALID_REQUEST_TARGET: entry(
    400,
    'bad_request',
    'The request line names no valid path (an asterisk, or a URL that does not parse).',
    'Send an origin-form target such as `/api/v1/products`.',
    'The request target is not a valid path',
  ),
  MALFORMED_REQUEST: entry(
    400,
    'bad_request',
    'The HTTP message could not be parsed (a broken request line, header or chunked body).',
    'Use a conforming HTTP client.',
    'The request is not well-formed HTTP',
  ),
  HEADERS_TOO_LARGE: entry(
    431,
    'bad_request',
    'The request headers exceed the size the server reads.',
    'Send fewer or shorter headers (cookies are not needed by the API).',
    'The request line and headers are larger than the server accepts',
  ),
  REQUEST_TIMEOUT: entry(
    408,
    'bad_request',
    'The request did not arrive in full within the server’s time limit.',
    'Send the whole request promptly; retry on a fresh connection.',
    'The request was not received in time',
  ),
  BAD_REQUEST: entry(
    400,
    'bad_request',
    'The tRPC transport refused the call as malformed (the batch or input encoding).',
    'Call through the tRPC client, or the REST paths of the contract.',
    'The request could not be read',
  ),
  INVALID_CURSOR: entry(
    400,
    'bad_request',
    'The `cursor` is not one this list issued, or belongs to another list or filter.',
    'Start again without a cursor, and pass back `next_cursor` unchanged.',
    'updated_since is not a cursor this feed gave out for this store',
  ),
  UNKNOWN_CATEGORY: entry(
    400,
    'bad_request',
    'The category named is not one of the catalogue’s.',
    'Use a slug from the catalogue’s facets.',
    'No category with slug living-rooms',
  ),
  ROUTE_NOT_FOUND: entry(
    404,
    'not_found',
    'No operation has this path.',
    'Check the path against the API reference (`/api/v1/openapi.json`).',
    'No operation at /api/v1/product; see /api/v1/openapi.json',
  ),
  METHOD_NOT_ALLOWED: entry(
    405,
    'method_not_allowed',
    'The path exists but not with this method; `Allow` lists those it has.',
    'Use a method from the `Allow` header.',
    'DELETE is not allowed here; allowed: GET, HEAD, OPTIONS',
  ),
} as const;

/** Who calls, and what they may do. */
const ACCESS = {
  INVALID_CREDENTIAL: entry(
    401,
    'unauthorized',
    'No credential was sent, or the API key or access token is unknown, revoked or expired.',
    'Send `Authorization: Bearer <API key or access token>`; refresh an expired token.',
    'Missing credential: send Authorization: Bearer <API key or access token>',
  ),
  UNAUTHORIZED: entry(
    401,
    'unauthorized',
    'The tRPC transport refused the call without a credential.',
    'Send the credential the procedure needs.',
    'The credential is not valid',
  ),
  INSUFFICIENT_SCOPE: entry(
    403,
    'forbidden',
    'The credential lacks the scope this operation needs (a read-only key on a write, an app token without the scope); `required_scope` names it.',
    'Use a credential with `required_scope`, or ask the store to grant the app that scope.',
    'This operation needs the app scope read_products',
  ),
  APP_TOKEN_NOT_ALLOWED: entry(
    403,
    'forbidden',
    'This operation is for the store’s own API keys; app tokens cannot use it.',
    'Call it with one of the store’s API keys.',
    'App tokens cannot use this operation',
  ),
  FORBIDDEN: entry(
    403,
    'forbidden',
    'The credential may not perform this operation.',
    'Use a credential with the rights the operation documents.',
    'This key is read-only: it cannot change anything',
  ),
  TEST_MODE_ONLY: entry(
    403,
    'forbidden',
    'Test helpers act on test objects only, and the credential is in live mode: an `sl_live_` key, or an OAuth app or MCP token (these act in live mode).',
    'Call it with one of the store’s `sl_test_` API keys, on a test order (one placed with an `sl_test_` key).',
    'Test helpers work in test mode only: call them with an sl_test_ API key, on a test order',
  ),
  NOT_AN_APP_ORDER: entry(
    403,
    'forbidden',
    'Only orders posted through `/orders/external` can be cancelled there.',
    'Cancel other orders through the order’s own status change.',
    'Only orders posted through /orders/external can be cancelled here',
  ),
  RATE_LIMITED: entry(
    429,
    'rate_limited',
    'Too many requests under one allowance (per app and store, or the operation’s own limit); `retry_after` says when one more is allowed.',
    RETRY,
    'Rate limit of 120 requests per minute reached; retry later',
  ),
  FEATURE_DISABLED: entry(
    404,
    'not_found',
    'The operation is switched off on this platform.',
    'Ask the platform operator to enable it; a retry may succeed once it is on.',
    'Inventory reads are switched off on this platform',
  ),
} as const;

/** Things a request names that do not exist for the caller's store and mode. */
const MISSING = {
  STORE_NOT_FOUND: entry(
    404,
    'not_found',
    'The store does not exist (or not in this mode).',
    'Check the store id, and live or test mode.',
    'Store not found',
  ),
  PRODUCT_NOT_FOUND: entry(
    404,
    'not_found',
    'No product has this id in the catalogue, or it was withdrawn.',
    'Use an id from the catalogue list.',
    'No catalogue product with id 1042',
  ),
  VARIANT_NOT_FOUND: entry(
    404,
    'not_found',
    'The product has no variant with this id.',
    'Use a variant id from the product’s `variants`.',
    'Product 1042 has no variant 5539',
  ),
  NOT_IN_STORE: entry(
    404,
    'not_found',
    'The product is not listed in this store.',
    'List it first (`POST /my-products`), or use a listed product.',
    'Product 1042 is not in your store',
  ),
  ORDER_NOT_FOUND: entry(
    404,
    'not_found',
    'The store has no order with this id in this mode.',
    'Use an id from the store’s order list.',
    'No order with id 9001',
  ),
  INVOICE_NOT_ISSUED: entry(
    404,
    'not_found',
    'The order has no tax invoice yet (it is issued once the order is paid).',
    'Fetch the invoice after the order is paid.',
    'This order has no tax invoice yet: it is issued when the order ships',
  ),
  WEBHOOK_NOT_FOUND: entry(
    404,
    'not_found',
    'The store has no webhook subscription with this id in this mode.',
    'Use an id from the webhook list.',
    'No webhook subscription with id 7',
  ),
  DELIVERY_NOT_FOUND: entry(
    404,
    'not_found',
    'The subscription has no delivery with this id.',
    'Use an id from the subscription’s attempts.',
    'No delivery 418 for webhook subscription 7',
  ),
  EVENT_NOT_FOUND: entry(
    404,
    'not_found',
    'The store has no event with this id in this mode.',
    'Use an id from the event list.',
    'No event with id evt_52817',
  ),
  REQUEST_NOT_FOUND: entry(
    404,
    'not_found',
    'The store has no logged request with this id in this mode (requests are kept 7 days; an app sees only its own).',
    'Use a `request_id` from a response (`X-Request-Id`) or from the request log, within 7 days.',
    'No logged request with id req_b3k2m4q5r6s7t8v9w2x3y4z5',
  ),
  KEY_NOT_FOUND: entry(
    404,
    'not_found',
    'The store has no active API key with this id.',
    'Use an id from the store’s keys; a revoked key stays revoked.',
    'No active API key with id 12',
  ),
} as const;

/** Catalogue, listings and stock. */
const CATALOGUE = {
  ALREADY_LISTED: entry(
    409,
    'conflict',
    'The product is already listed in this store.',
    'Update the listing instead of adding it again.',
    'Product 1042 is already in your store',
  ),
  ALREADY_WITHDRAWN: entry(
    409,
    'conflict',
    'The product is already withdrawn.',
    'Nothing to do; reinstate it to sell it again.',
    'Product 1042 is already withdrawn',
  ),
  NOT_WITHDRAWN: entry(
    409,
    'conflict',
    'The product is not withdrawn, so it cannot be reinstated.',
    'Nothing to do.',
    'Product 1042 is not withdrawn',
  ),
  NOTHING_LISTED: entry(
    409,
    'conflict',
    'The test store lists no product to trigger the event with.',
    'List a product in test mode first.',
    'Store 3 lists no product: list one first',
  ),
  NOTHING_TO_SELL: entry(
    409,
    'conflict',
    'The test store lists nothing a buyer can check out.',
    'List an in-stock product sold by card on the storefront first.',
    'Store 3 lists nothing a buyer can check out (in stock, sold by card, on the storefront): list a product first',
  ),
  SKU_TAKEN: entry(
    409,
    'conflict',
    'Another variant or own good already uses this SKU.',
    'Choose a SKU of your own that is not in use.',
    'SKU OAK-TBL-180 is already in the catalogue',
  ),
  SLUG_TAKEN: entry(
    409,
    'conflict',
    'Another product already uses this slug.',
    'Choose another slug.',
    'A store with slug oak-and-iron already exists',
  ),
  VARIANT_EXISTS: entry(
    409,
    'conflict',
    'The product already has a variant with these options.',
    'Update that variant instead.',
    'Variant 5539 already has these option values',
  ),
  VARIANT_RETIRED: entry(
    409,
    'conflict',
    'The variant is retired and can no longer be sold or changed.',
    'Use one of the product’s current variants.',
    'Variant 5539 is retired',
  ),
  LAST_VARIANT: entry(
    409,
    'conflict',
    'A product’s last variant cannot be retired.',
    'Withdraw the product instead.',
    'Variant 5539 is the last one of product 1042: withdraw the product instead',
  ),
  OPTIONS_MISMATCH: entry(
    400,
    'bad_request',
    'The variant’s options do not match the product’s option names.',
    'Give one value for each of the product’s options.',
    "The variant must name a value for each of the product's options: colour, size",
  ),
  PURCHASE_MODE_LOCKED: entry(
    409,
    'conflict',
    'The catalogue sells this product on quote only; it cannot be sold with card checkout.',
    'Keep the listing quote-only.',
    'This product is quote-only in the catalogue and cannot be sold with card checkout',
  ),
  PRICE_BELOW_MINIMUM: entry(
    400,
    'bad_request',
    'The retail price is below the product’s minimum; `minimum_price_cents` says what it is.',
    'Set a price of at least `minimum_price_cents`.',
    'The retail price must be at least 52500 cents for this product',
  ),
  STOCK_OUT_OF_RANGE: entry(
    400,
    'bad_request',
    'The stock would exceed 2147483647 units.',
    'Send a smaller quantity.',
    'That stock would exceed 2147483647 units',
  ),
} as const;

/** Orders, checkout and payment. */
const ORDERS = {
  INSUFFICIENT_STOCK: entry(
    400,
    'bad_request',
    'Some lines ask for more than is in stock; `lines` gives what is available.',
    'Lower those quantities to `available`, or drop the lines.',
    'Not enough stock for every line; nothing was reserved',
  ),
  PRICE_CHANGED: entry(
    409,
    'conflict',
    'A wholesale price changed since the caller read it; `lines` gives the current prices.',
    'Confirm the new prices and send the order again with them.',
    'A wholesale price has changed; review the current prices',
  ),
  PRICE_MISMATCH: entry(
    400,
    'bad_request',
    'A line’s price does not match the listing’s price.',
    'Read the listing again and send its current price.',
    'A price_cents sent is not the wholesale price',
  ),
  TOTAL_MISMATCH: entry(
    400,
    'bad_request',
    'The order total does not equal the sum of its lines, shipping and tax.',
    'Compute the total from the lines, or leave it out.',
    'total_cents is 9500 but the lines add up to 9000',
  ),
  PAYMENT_MISMATCH: entry(
    400,
    'bad_request',
    'The payment does not equal the order total; `total_cents` gives the total.',
    'Send a payment of exactly `total_cents`.',
    'payment.amount_cents (50000) must equal the order total (52000)',
  ),
  PRODUCT_NOT_ORDERABLE: entry(
    400,
    'bad_request',
    'A line’s product cannot be ordered (withdrawn, quote-only, or not listed); `product_id` names it.',
    'Drop that line, or list the product for card checkout.',
    'Product 1042 cannot be ordered: it has no images',
  ),
  PRODUCT_NOT_FOR_SALE: entry(
    400,
    'bad_request',
    'A line’s product is not for sale in this store; `product_id` names it.',
    'Drop that line.',
    'Product 1042 is not for sale in this store',
  ),
  VARIANT_REQUIRED: entry(
    400,
    'bad_request',
    'The product has several variants and the line names none; `variant_ids` lists them.',
    'Send `variant_id`, one of `variant_ids`.',
    'Product 1042 has 2 variants: name one with variant_id',
  ),
  ORDER_TOO_LARGE: entry(
    400,
    'bad_request',
    'The order has more lines or units than one order may.',
    'Split it into several orders.',
    'The order total is too large',
  ),
  ORDER_NOT_CANCELLABLE: entry(
    409,
    'conflict',
    'The order has moved past the point where it can be cancelled.',
    'Handle it as a return instead.',
    'A delivered order cannot be cancelled',
  ),
  INVALID_TRANSITION: entry(
    409,
    'conflict',
    'The order cannot move from its current status to the one asked; `status` is the current one.',
    'Move it to a status the message names.',
    'Order SL-1001 is delivered; it cannot move any further',
  ),
  TRACKING_REQUIRED: entry(
    400,
    'bad_request',
    'An order is shipped with a tracking number.',
    'Send `tracking` with the shipment.',
    'A tracking number is needed to ship an order',
  ),
} as const;

/** Webhook subscriptions. */
const WEBHOOKS = {
  INVALID_WEBHOOK_URL: entry(
    400,
    'bad_request',
    'The webhook URL is not an absolute https URL (or has credentials or a fragment).',
    'Give an https URL of your receiver.',
    'url must use https://',
  ),
  WEBHOOK_URL_NOT_PUBLIC: entry(
    400,
    'bad_request',
    'The webhook URL points at a private, loopback or otherwise non-public address.',
    'Give a receiver reachable on the public internet.',
    'the host hooks.example.com resolves to a private or reserved address; webhook endpoints must be public',
  ),
  WEBHOOK_HOST_UNRESOLVABLE: entry(
    400,
    'bad_request',
    'The webhook URL’s host does not resolve in DNS.',
    'Check the host name and its DNS records.',
    'the host hooks.example.com does not resolve',
  ),
  WEBHOOK_LIMIT_REACHED: entry(
    409,
    'conflict',
    'The store has the most webhook subscriptions a mode allows.',
    'Delete a subscription first, or subscribe one to more events.',
    'A store can have at most 10 webhook subscriptions; delete one first',
  ),
  WEBHOOK_DISABLED: entry(
    409,
    'conflict',
    'The subscription is disabled, so it sends nothing.',
    'Enable it (`PATCH` with `enabled: true`) first.',
    'The subscription is disabled; set it active first',
  ),
} as const;

/** Idempotency keys, contention and the statement budget. */
const RETRIES = {
  IDEMPOTENCY_KEY_INVALID: entry(
    400,
    'bad_request',
    '`Idempotency-Key` is not 1 to 255 printable ASCII characters.',
    'Send a key such as a UUID.',
    'Idempotency-Key must be 1 to 255 printable ASCII characters',
  ),
  IDEMPOTENCY_KEY_REUSED: entry(
    422,
    'unprocessable_content',
    'The `Idempotency-Key` was used with a different request or credential.',
    'Use a new key for a new request; resend the same request to get its answer.',
    'This Idempotency-Key was used with a different request; send a new key for a new request',
  ),
  IDEMPOTENCY_KEY_IN_USE: entry(
    409,
    'conflict',
    'A request with this `Idempotency-Key` is still running.',
    RETRY,
    'A request with this Idempotency-Key is still being processed; retry shortly',
  ),
  CONCURRENT_UPDATE: entry(
    409,
    'conflict',
    'A concurrent change to the same records got in the way; nothing was changed.',
    'Retry the request (with the same Idempotency-Key).',
    'A concurrent change got in the way; retry the request',
  ),
  QUERY_TOO_EXPENSIVE: entry(
    503,
    'server_error',
    'The request needed more database time than one request may use, or waited too long on other changes; `retry_after` says when to retry.',
    'Narrow the filters, or retry after the delay.',
    'This request needed more database time than one request may use, so it was stopped; narrow it (a category or brand, a tighter price range, a longer search term, a smaller limit) or retry later',
  ),
  INTERNAL_ERROR: entry(
    500,
    'server_error',
    'Something failed on our side. A write that answers it changed nothing: it runs in one transaction, rolled back.',
    'Retry with the same Idempotency-Key; if it persists, contact support with the `request_id`.',
    'Internal server error',
  ),
  USER_EXISTS: entry(
    409,
    'conflict',
    'A user with this email already exists.',
    'Sign in with that user, or use another email.',
    'A user with the email owner@example.com exists',
  ),
} as const;

/** Bulk exports (src/exports/). */
const EXPORTS = {
  EXPORT_ALREADY_RUNNING: entry(
    409,
    'conflict',
    'The store already has an export queued or running in this mode (one at a time); `export_id` names it.',
    'Wait for that export to complete (poll GET /api/v1/exports/{id} or listen for export.completed), then create yours.',
    'Export exp_41 of this store is still queued or running; one export runs at a time',
  ),
  EXPORT_DAILY_LIMIT: entry(
    429,
    'rate_limited',
    'The store created as many exports in this mode in the last 24 hours as a day allows.',
    'Reuse a completed export (its url is re-signed on each GET for 7 days), or retry after the Retry-After delay.',
    'The store created 50 exports in this mode in the last 24 hours; 50 is the most a day allows',
  ),
  EXPORT_NOT_FOUND: entry(
    404,
    'not_found',
    'The store has no export with this id in this mode.',
    'Use an id from POST or GET /api/v1/exports, with a key of the same mode.',
    'No export with id exp_42',
  ),
  EXPORT_URL_INVALID: entry(
    403,
    'forbidden',
    'The download URL’s signature does not match: it was edited, truncated or is for another export.',
    'Use the `url` of GET /api/v1/exports/{id} unchanged.',
    'The download url is not one this API signed for this export',
  ),
  EXPORT_URL_EXPIRED: entry(
    403,
    'forbidden',
    'The download URL’s `expires` has passed (a url is valid for one hour).',
    'GET /api/v1/exports/{id} again: every answer carries a freshly signed url.',
    'The download url has expired: GET the export again for a fresh one',
  ),
  EXPORT_FAILED: entry(
    500,
    'server_error',
    'The export job could not write the file (the `error` of a failed export, never an HTTP answer).',
    'Create a new export; if it fails again, contact support with the export id.',
    'The export could not be written. Create a new export; if it fails again, contact support.',
  ),
  EXPORT_FILE_GONE: entry(
    404,
    'not_found',
    'The export has no file to download: it is not completed yet, it failed, or it expired and its file was deleted.',
    'Check the export’s `status`; create a new export for an expired one.',
    'The export has no file to download (not completed, failed, or expired)',
  ),
} as const;

/** Every code of the API's own error body (`{ error, code, message, request_id }`). */
export const API_ERROR_CODES = {
  ...REQUEST,
  ...ACCESS,
  ...MISSING,
  ...CATALOGUE,
  ...ORDERS,
  ...WEBHOOKS,
  ...EXPORTS,
  ...RETRIES,
} as const satisfies Record<string, ErrorCodeEntry>;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;

/**
 * RFC 6749's `error` values the OAuth endpoints answer in that RFC's form (`{ error,
 * error_description }`), and the authorization redirect carries back.
 */
export const OAUTH_ERROR_CODES = {
  invalid_request: entry(
    400,
    'bad_request',
    'The request is missing a parameter, repeats one, or is not a form (415) or not the endpoint’s method (405).',
    'Send each parameter the endpoint needs once, form encoded.',
    'redirect_uri is required',
  ),
  invalid_client: entry(
    401,
    'unauthorized',
    'Client authentication failed: an unknown `client_id`, or a wrong secret.',
    'Send the `client_id` registered, and its secret if it has one.',
    'Unknown client_id',
  ),
  invalid_grant: entry(
    400,
    'bad_request',
    'The code or refresh token is unknown, used, expired, or was issued to another client or redirect URI.',
    'Start the authorization again.',
    'The authorization code has expired or was already used',
  ),
  invalid_scope: entry(
    400,
    'bad_request',
    'A scope asked for is unknown, not registered for the client, or not available for the resource.',
    'Ask only for scopes the client registered and the resource offers.',
    'The scope manage_webhooks is not available for this resource',
  ),
  invalid_target: entry(
    400,
    'bad_request',
    'The `resource` is missing, repeated, or not the one authorized (RFC 8707).',
    'Send the API’s or the MCP endpoint’s URL as `resource`, as when authorizing.',
    'resource must be the URL authorized',
  ),
  unsupported_grant_type: entry(
    400,
    'bad_request',
    'The `grant_type` is not one the server supports.',
    'Use `authorization_code` or `refresh_token`.',
    'grant_type must be authorization_code or refresh_token',
  ),
  unsupported_response_type: entry(
    400,
    'bad_request',
    'The authorization request asks for a response type other than `code`.',
    'Send `response_type=code`.',
    'response_type must be code',
  ),
  access_denied: entry(
    400,
    'bad_request',
    'The store owner denied the app access.',
    'Ask the owner to approve; nothing else will change it.',
    'The store owner denied the request',
  ),
  invalid_client_metadata: entry(
    400,
    'bad_request',
    'The registration’s client metadata is invalid (not JSON, or a field the server does not accept).',
    'Send the metadata as application/json with the fields RFC 7591 defines.',
    'token_endpoint_auth_method must be none or client_secret_post',
  ),
  invalid_redirect_uri: entry(
    400,
    'bad_request',
    'A redirect URI is not https (or loopback http), or has a fragment.',
    'Register https redirect URIs, or http on a loopback address.',
    'redirect_uris must be https, or http on a loopback address',
  ),
  temporarily_unavailable: entry(
    429,
    'rate_limited',
    'Too many requests from this address or client.',
    RETRY,
    'Too many requests; retry later',
  ),
  server_error: entry(
    500,
    'server_error',
    'The authorization server failed to complete the request.',
    'Retry the authorization later.',
    'The authorization server could not complete the request',
  ),
  not_found: entry(
    404,
    'not_found',
    'No OAuth endpoint or document has this path.',
    'Use the endpoints the authorization server metadata lists.',
    'No such OAuth endpoint',
  ),
} as const satisfies Record<string, ErrorCodeEntry>;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_CODES;

/**
 * RFC 6750's `error` in a `WWW-Authenticate: Bearer` challenge, beside the body's own code: MCP
 * clients read the challenge to start or step up authorization.
 */
export const BEARER_CHALLENGE_CODES = {
  invalid_token: entry(
    401,
    'unauthorized',
    'The access token is expired, revoked, or for another resource than this endpoint.',
    'Refresh the token, or authorize for this resource (`resource` in the token request).',
    'The access token expired',
  ),
  insufficient_scope: entry(
    403,
    'forbidden',
    'The token lacks a scope the call needs; the challenge’s `scope` lists those to ask for.',
    'Authorize again with the scopes the challenge names.',
    'This tool needs the scope write_orders',
  ),
} as const satisfies Record<string, ErrorCodeEntry>;

export type BearerChallengeCode = keyof typeof BEARER_CHALLENGE_CODES;

/** Any code the service answers in an error body. */
export type ErrorCode = ApiErrorCode | OAuthErrorCode;

/** Every code with an entry on the error reference page, each once. */
export const ERROR_REFERENCE = {
  ...API_ERROR_CODES,
  ...OAUTH_ERROR_CODES,
  ...BEARER_CHALLENGE_CODES,
} as const;
export type ReferencedCode = keyof typeof ERROR_REFERENCE;

/** How the body carrying a code is written: the API's own, RFC 6749's, or RFC 6750's challenge. */
export type ErrorForm = 'api' | 'oauth' | 'bearer';

/** The reference page's sections, in its order: every code of ERROR_REFERENCE is in exactly one. */
export const ERROR_REFERENCE_SECTIONS: readonly {
  title: string;
  form: ErrorForm;
  codes: Readonly<Record<string, ErrorCodeEntry>>;
}[] = [
  { title: 'The request', form: 'api', codes: REQUEST },
  { title: 'Credentials, scopes and limits', form: 'api', codes: ACCESS },
  { title: 'Not found', form: 'api', codes: MISSING },
  { title: 'Catalogue, listings and stock', form: 'api', codes: CATALOGUE },
  { title: 'Orders, checkout and payment', form: 'api', codes: ORDERS },
  { title: 'Webhook subscriptions', form: 'api', codes: WEBHOOKS },
  { title: 'Bulk exports', form: 'api', codes: EXPORTS },
  { title: 'Retries, idempotency and the statement budget', form: 'api', codes: RETRIES },
  { title: 'OAuth endpoints (RFC 6749)', form: 'oauth', codes: OAUTH_ERROR_CODES },
  { title: 'Bearer challenges (RFC 6750)', form: 'bearer', codes: BEARER_CHALLENGE_CODES },
];

/** The error reference page, and where each code's entry of it lives. */
export const ERROR_REFERENCE_PATH = '/docs/errors';
export const errorDocUrl = (publicUrl: string, code: ReferencedCode): string =>
  `${publicUrl}${ERROR_REFERENCE_PATH}/${code}`;
