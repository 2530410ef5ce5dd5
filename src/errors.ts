import { type ErrorCategory, type ErrorCode, errorDocUrl } from './error-codes.ts';

/**
 * The domain's one error type, free of any transport: services throw `AppError`; each transport
 * (tRPC and REST in src/trpc/errors.ts, the raw invoice and OAuth routes, MCP, the CLI) maps it to
 * HTTP through `httpError`. Its codes, with their statuses and reference text, are src/error-codes.ts.
 */

/** Declared beside the codes; most callers find it here, beside AppError. */
export type { ErrorCategory };

export const STATUS_OF: Record<ErrorCategory, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  unprocessable_content: 422,
  rate_limited: 429,
  server_error: 500,
};

/** One input field at fault: its path as validation errors name it (`items.0.price_cents`) and why. */
export interface FieldDetail {
  path: string;
  message: string;
}

/** The contract's error body (contract.md, "Errors"). */
export interface ErrorBody {
  error: ErrorCategory;
  message: string;
  code?: ErrorCode;
  details?: FieldDetail[];
  [extra: string]: unknown;
}

export interface AppErrorOptions {
  /** Fields added to the body beside `error`, `message` and `code`. */
  extra?: Record<string, unknown>;
  /** Response headers the error brings (Retry-After, WWW-Authenticate, …). */
  headers?: Record<string, string>;
  /** When the category's usual status is not the one (413, 415, 405 are bad requests too). */
  status?: number;
  /** The input fields at fault, as validation errors name them: an error about one field names it. */
  details?: FieldDetail[];
}

export class AppError extends Error {
  override readonly name: string = 'AppError';
  readonly category: ErrorCategory;
  readonly appCode: ErrorCode | undefined;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly status: number;
  readonly details: FieldDetail[] | undefined;

  constructor(
    category: ErrorCategory,
    code: ErrorCode | undefined,
    message: string,
    opts: AppErrorOptions = {},
  ) {
    super(message);
    this.category = category;
    this.appCode = code;
    this.extra = opts.extra ?? {};
    this.headers = opts.headers ?? {};
    this.status = opts.status ?? STATUS_OF[category];
    this.details = opts.details;
  }
}

/** The one field an error concerns, for `AppErrorOptions.details`. */
export const field = (path: string, message: string): FieldDetail[] => [{ path, message }];

/** A value's JSON type as error messages name it (`null` and `array` are not `object`). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Text a client sent, quoted and escaped for an error message, and never longer than `max`. */
export function quoted(text: string, max = 40): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * A wrong-type message in the contract's words (`expected integer, got string`), the same for every
 * field; an absent value is `required`. A string is shown (capped) where strings are an accepted form
 * of the type, so a query value like `limit=ten` reads `expected integer, got string "ten"`.
 */
export function wrongType(expected: string, input: unknown, showString = false): string {
  if (input === undefined) return 'required';
  const got = jsonTypeOf(input);
  if (typeof input === 'string' && showString) return `expected ${expected}, got string ${quoted(input)}`;
  if (typeof input === 'number' && expected === 'integer') return `expected integer, got ${input}`;
  return `expected ${expected}, got ${got}`;
}

export const notFound = (message: string, code?: ErrorCode) => new AppError('not_found', code, message);
export const badRequest = (message: string, code?: ErrorCode, extra?: Record<string, unknown>) =>
  new AppError('bad_request', code, message, { extra });

export interface ShapedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** An AppError as the contract answers it. */
export function httpError(error: AppError): ShapedError {
  const body: ErrorBody = { error: error.category, message: error.message, ...error.extra };
  if (error.appCode) body.code = error.appCode;
  if (error.details) body.details = error.details;
  return { status: error.status, body, headers: error.headers };
}

/** Where an error answer is written from: the request's id, and the deployment's public URL. */
export interface ErrorOrigin {
  readonly id: string;
  readonly publicUrl: string;
  /** The error answered, once written (a request's state keeps it: the request log reads its code). */
  error?: ShapedError;
}

/**
 * The body as written: the shaped error, the address of its code's entry on the error reference page
 * (`doc_url`), and the request's id. Every writer of an error body goes through this.
 */
export function wireErrorBody(body: ErrorBody, origin: ErrorOrigin): ErrorBody & { request_id: string } {
  const doc = body.code ? { doc_url: errorDocUrl(origin.publicUrl, body.code) } : {};
  return { ...body, ...doc, request_id: origin.id };
}

/** The answer to a failure that is not the domain's: nothing in it tells the caller more than that. */
export const INTERNAL_ERROR_BODY: ErrorBody = {
  error: 'server_error',
  code: 'INTERNAL_ERROR',
  message: 'Internal server error',
};

/** PostgreSQL's `query_canceled`: a statement timeout (the statement budget), or `pg_cancel_backend`. */
export const QUERY_CANCELED = '57014';

/**
 * The answer to a request whose statement PostgreSQL cancelled for running past the API's statement
 * budget (docs/decisions.md, "Statement budget"). 503 with Retry-After: the request was valid, and a
 * request's cost being bounded is our side of the contract, so it is a server error that may pass;
 * being 5xx, it is never kept under an Idempotency-Key, and a retry runs afresh.
 */
export const STATEMENT_BUDGET = {
  code: 'QUERY_TOO_EXPENSIVE' satisfies ErrorCode,
  status: 503,
  /** It waited on rows another request was changing: contention, which passes in a moment. */
  contended: {
    retryAfter: 1,
    message:
      'This request waited too long on other changes to the same records, so it was stopped; retry it in a moment',
  },
  /** It was more work than one request may do. */
  expensive: {
    retryAfter: 5,
    message:
      'This request needed more database time than one request may use, so it was stopped; narrow it (a category ' +
      'or brand, a tighter price range, a longer search term, a smaller limit) or retry later',
  },
} as const;

/** The budget's answer; `contended` when the statement was waiting on a row lock when it was stopped. */
export function statementBudgetExceeded(contended: boolean): AppError {
  const { retryAfter, message } = contended ? STATEMENT_BUDGET.contended : STATEMENT_BUDGET.expensive;
  return new AppError('server_error', STATEMENT_BUDGET.code, message, {
    status: STATEMENT_BUDGET.status,
    headers: { 'Retry-After': String(retryAfter) },
    extra: { retry_after: retryAfter },
  });
}
