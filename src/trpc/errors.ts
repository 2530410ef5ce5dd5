import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';

export type ErrorCategory =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'server_error';

const STATUS: Record<ErrorCategory, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  server_error: 500,
};

const TRPC_CODE: Record<ErrorCategory, TRPCError['code']> = {
  bad_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  rate_limited: 'TOO_MANY_REQUESTS',
  server_error: 'INTERNAL_SERVER_ERROR',
};

export interface ErrorBody {
  error: ErrorCategory;
  message: string;
  code?: string;
  details?: { path: string; message: string }[];
  [extra: string]: unknown;
}

/** The one error type of the domain. Services throw it; the transports map it once. */
export class AppError extends TRPCError {
  readonly category: ErrorCategory;
  readonly appCode: string | undefined;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly status: number;

  constructor(
    category: ErrorCategory,
    code: string | undefined,
    message: string,
    opts: { extra?: Record<string, unknown>; headers?: Record<string, string>; status?: number } = {},
  ) {
    super({ code: TRPC_CODE[category], message });
    this.category = category;
    this.appCode = code;
    this.extra = opts.extra ?? {};
    this.headers = opts.headers ?? {};
    this.status = opts.status ?? STATUS[category];
  }
}

export const notFound = (message: string, code?: string) => new AppError('not_found', code, message);
export const badRequest = (message: string, code?: string, extra?: Record<string, unknown>) =>
  new AppError('bad_request', code, message, { extra });

/** tRPC's own failures (routing, body parsing, media type) in the contract's terms. */
const TRANSPORT: Partial<
  Record<TRPCError['code'], { category: ErrorCategory; code: string; status: number }>
> = {
  PARSE_ERROR: { category: 'bad_request', code: 'INVALID_JSON', status: 400 },
  BAD_REQUEST: { category: 'bad_request', code: 'BAD_REQUEST', status: 400 },
  UNSUPPORTED_MEDIA_TYPE: { category: 'bad_request', code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  PAYLOAD_TOO_LARGE: { category: 'bad_request', code: 'PAYLOAD_TOO_LARGE', status: 413 },
  METHOD_NOT_SUPPORTED: { category: 'bad_request', code: 'METHOD_NOT_ALLOWED', status: 405 },
  NOT_FOUND: { category: 'not_found', code: 'ROUTE_NOT_FOUND', status: 404 },
  UNAUTHORIZED: { category: 'unauthorized', code: 'UNAUTHORIZED', status: 401 },
  FORBIDDEN: { category: 'forbidden', code: 'FORBIDDEN', status: 403 },
  TOO_MANY_REQUESTS: { category: 'rate_limited', code: 'RATE_LIMITED', status: 429 },
};

export interface ShapedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

function zodDetails(err: ZodError) {
  return err.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
}

/** Maps any error thrown inside a procedure to the contract's status, body and headers. */
export function shapeError(error: TRPCError): ShapedError {
  if (error instanceof AppError) {
    const body: ErrorBody = { error: error.category, message: error.message, ...error.extra };
    if (error.appCode) body.code = error.appCode;
    return { status: error.status, body, headers: error.headers };
  }
  // Only the input parser reports BAD_REQUEST; a ZodError under any other code is our own output
  // failing its schema: a server error, never the caller's fault.
  if (error.code === 'BAD_REQUEST' && error.cause instanceof ZodError) {
    const details = zodDetails(error.cause);
    const summary = details.map((d) => `${d.path}: ${d.message}`).join('; ');
    return {
      status: 400,
      body: {
        error: 'bad_request',
        code: 'VALIDATION_FAILED',
        message: `Invalid request: ${summary}`,
        details,
      },
      headers: {},
    };
  }
  const sqlState = (error.cause as { code?: unknown } | undefined)?.code;
  if (sqlState === '22021' || sqlState === '22P05') {
    return {
      status: 400,
      body: {
        error: 'bad_request',
        code: 'INVALID_CHARACTER',
        message: 'The request contains a character that cannot be stored',
      },
      headers: {},
    };
  }
  if (sqlState === '40P01' || sqlState === '40001') {
    return {
      status: 409,
      body: {
        error: 'conflict',
        code: 'CONCURRENT_UPDATE',
        message: 'A concurrent change got in the way; retry the request',
      },
      headers: {},
    };
  }
  const mapped = TRANSPORT[error.code];
  if (mapped) {
    return {
      status: mapped.status,
      body: { error: mapped.category, code: mapped.code, message: error.message },
      headers: {},
    };
  }
  return { status: 500, body: { error: 'server_error', message: 'Internal server error' }, headers: {} };
}
