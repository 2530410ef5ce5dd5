import { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';
import { AppError, type ErrorCategory, httpError, type ShapedError } from '../errors.ts';

const TRPC_CODE: Record<ErrorCategory, TRPCError['code']> = {
  bad_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  rate_limited: 'TOO_MANY_REQUESTS',
  server_error: 'INTERNAL_SERVER_ERROR',
};

/** The JSON-RPC code a tRPC client sees for a contract error category. */
export function jsonRpcCodeOf(category: ErrorCategory): number {
  return TRPC_ERROR_CODES_BY_KEY[TRPC_CODE[category]];
}

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

function zodDetails(err: ZodError) {
  return err.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
}

/**
 * Maps any error thrown inside a procedure to the contract's status, body and headers. tRPC wraps
 * what a procedure throws in a TRPCError (its `cause`); an AppError there is the domain's answer.
 */
export function shapeError(thrown: unknown): ShapedError {
  const domain = thrown instanceof TRPCError ? thrown.cause : thrown;
  if (domain instanceof AppError) return httpError(domain);
  const error =
    thrown instanceof TRPCError ? thrown : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: thrown });
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
