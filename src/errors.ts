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

/** The contract's error body (contract.md, "Errors"). */
export interface ErrorBody {
  error: ErrorCategory;
  message: string;
  code?: string;
  details?: { path: string; message: string }[];
  [extra: string]: unknown;
}

export interface AppErrorOptions {
  /** Fields added to the body beside `error`, `message` and `code`. */
  extra?: Record<string, unknown>;
  /** Response headers the error brings (Retry-After, WWW-Authenticate, …). */
  headers?: Record<string, string>;
  /** When the category's usual status is not the one (413, 415, 405 are bad requests too). */
  status?: number;
}

export class AppError extends Error {
  override readonly name: string = 'AppError';
  readonly category: ErrorCategory;
  readonly appCode: string | undefined;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly status: number;

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
  }
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
  return { status: error.status, body, headers: error.headers };
}
