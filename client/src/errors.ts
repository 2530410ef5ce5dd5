import type { ErrorBody } from './generated/openapi-types.ts';

/** The contract's error categories (`error` in every error body). */
export type ErrorCategory = ErrorBody['error'];

/** One invalid field of a validation error. */
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

const CATEGORY_BY_STATUS: Record<number, ErrorCategory> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  422: 'unprocessable_content',
  415: 'bad_request',
  429: 'rate_limited',
};

/**
 * An API answer that is not a success: the contract's error body, typed. `category`, `status` and
 * `requestId` are always set (the category is derived from the status when the body is not the
 * contract's, e.g. a proxy's 502); quote `requestId` to support.
 */
export class StocklessError extends Error {
  override readonly name = 'StocklessError';
  readonly category: ErrorCategory;
  /** Machine-readable code, e.g. `INSUFFICIENT_SCOPE`, `INVALID_CURSOR`. */
  readonly code: string | undefined;
  readonly status: number;
  /** `request_id` of the body, else the `X-Request-Id` header. */
  readonly requestId: string | undefined;
  /** On validation errors: one entry per invalid field. */
  readonly details: ErrorDetail[] | undefined;
  /** On 403 `INSUFFICIENT_SCOPE`: the scope the credential lacks. */
  readonly requiredScope: string | undefined;
  /** On 429: seconds to wait (`Retry-After`), when the server said. */
  readonly retryAfter: number | undefined;
  /** The code's entry on the API's error reference page: what it means, the usual cause, the fix. */
  readonly docUrl: string | undefined;
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    category?: ErrorCategory;
    message: string;
    code?: string;
    requestId?: string;
    details?: ErrorDetail[];
    requiredScope?: string;
    retryAfter?: number;
    docUrl?: string;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.category =
      init.category ??
      CATEGORY_BY_STATUS[init.status] ??
      (init.status >= 500 ? 'server_error' : 'bad_request');
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.requiredScope = init.requiredScope;
    this.retryAfter = init.retryAfter;
    this.docUrl = init.docUrl;
    this.body = init.body;
  }

  /** Builds the error from a non-2xx response (reads its body). */
  static async fromResponse(res: Response, retryAfter?: number): Promise<StocklessError> {
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const headerId = res.headers.get('x-request-id') ?? undefined;
    if (isErrorBody(body)) {
      return new StocklessError({
        status: res.status,
        category: body.error,
        message: body.message,
        code: body.code,
        requestId: body.request_id ?? headerId,
        details: body.details,
        requiredScope: body.required_scope,
        retryAfter,
        docUrl: body.doc_url,
        body,
      });
    }
    return new StocklessError({
      status: res.status,
      message: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`,
      requestId: headerId,
      retryAfter,
      body,
    });
  }
}

const CATEGORIES = new Set<string>(Object.values(CATEGORY_BY_STATUS).concat('server_error'));

function isErrorBody(body: unknown): body is Partial<ErrorBody> & Pick<ErrorBody, 'error' | 'message'> {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return typeof b.error === 'string' && CATEGORIES.has(b.error) && typeof b.message === 'string';
}

/** Why a webhook delivery was refused by `verifyWebhook`. */
export type WebhookVerificationReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'signature_mismatch'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'invalid_payload';

/** A webhook delivery that must not be trusted (answer it with 400 and do not process it). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * The API could not be reached at all (refused, unknown host, reset, timed out) after the client's
 * retries: no answer, so no status. `url` says where it tried; `cause` is the network error.
 */
export class StocklessConnectionError extends Error {
  override readonly name = 'StocklessConnectionError';
  readonly url: string;
  readonly method: string;

  constructor(method: string, url: string, cause: unknown) {
    const reason = networkReason(cause);
    const where = URL.canParse(url) ? new URL(url).origin : url;
    super(`Cannot reach the Stockless API at ${where} (${reason}): is it running, and is baseUrl right?`, {
      cause,
    });
    this.url = url;
    this.method = method;
  }
}

/** `ECONNREFUSED`, `ENOTFOUND`, …: what undici's `fetch failed` hides in its cause. */
function networkReason(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return cause instanceof Error ? cause.message : String(cause);
}
