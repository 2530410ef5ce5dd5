/**
 * The domain's one error type, free of any transport: services throw `AppError`; each transport
 * (tRPC and REST in src/trpc/errors.ts, the raw invoice and OAuth routes, MCP, the CLI) maps it to
 * HTTP through `httpError`.
 */
export type ErrorCategory =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'server_error';

export const STATUS_OF: Record<ErrorCategory, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
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
  code?: string;
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
  readonly appCode: string | undefined;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly status: number;
  readonly details: FieldDetail[] | undefined;

  constructor(
    category: ErrorCategory,
    code: string | undefined,
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

export const notFound = (message: string, code?: string) => new AppError('not_found', code, message);
export const badRequest = (message: string, code?: string, extra?: Record<string, unknown>) =>
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
