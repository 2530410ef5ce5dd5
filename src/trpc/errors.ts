import { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { ZodError, z } from 'zod';
import type { ApiErrorCode } from '../error-codes.ts';
import {
  AppError,
  type ErrorCategory,
  type FieldDetail,
  httpError,
  INTERNAL_ERROR_BODY,
  jsonTypeOf,
  QUERY_CANCELED,
  quoted,
  type ShapedError,
  statementBudgetExceeded,
  wrongType,
} from '../errors.ts';

const TRPC_CODE: Record<ErrorCategory, TRPCError['code']> = {
  bad_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_SUPPORTED',
  conflict: 'CONFLICT',
  unprocessable_content: 'UNPROCESSABLE_CONTENT',
  rate_limited: 'TOO_MANY_REQUESTS',
  server_error: 'INTERNAL_SERVER_ERROR',
};

/** The JSON-RPC code a tRPC client sees for a contract error category. */
export function jsonRpcCodeOf(category: ErrorCategory): number {
  return TRPC_ERROR_CODES_BY_KEY[TRPC_CODE[category]];
}

/** tRPC's own failures (routing, body parsing, media type) in the contract's terms. */
const TRANSPORT: Partial<
  Record<TRPCError['code'], { category: ErrorCategory; code: ApiErrorCode; status: number }>
> = {
  PARSE_ERROR: { category: 'bad_request', code: 'INVALID_JSON', status: 400 },
  BAD_REQUEST: { category: 'bad_request', code: 'BAD_REQUEST', status: 400 },
  UNSUPPORTED_MEDIA_TYPE: { category: 'bad_request', code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  PAYLOAD_TOO_LARGE: { category: 'bad_request', code: 'PAYLOAD_TOO_LARGE', status: 413 },
  METHOD_NOT_SUPPORTED: { category: 'method_not_allowed', code: 'METHOD_NOT_ALLOWED', status: 405 },
  NOT_FOUND: { category: 'not_found', code: 'ROUTE_NOT_FOUND', status: 404 },
  UNAUTHORIZED: { category: 'unauthorized', code: 'UNAUTHORIZED', status: 401 },
  FORBIDDEN: { category: 'forbidden', code: 'FORBIDDEN', status: 403 },
  TOO_MANY_REQUESTS: { category: 'rate_limited', code: 'RATE_LIMITED', status: 429 },
};

/** zod's names for what it expected, in JSON's terms (the contract documents JSON Schema types). */
const EXPECTED: Record<string, string> = {
  int: 'integer',
  record: 'object',
  tuple: 'array',
  map: 'object',
  set: 'array',
};
const INTEGER_FORMATS = new Set(['safeint', 'int32', 'uint32', 'int64', 'uint64']);

function expectedName(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidType>): string {
  const format = (issue.inst as { _zod?: { def?: { format?: string } } } | undefined)?._zod?.def?.format;
  if (issue.expected === 'number' && format && INTEGER_FORMATS.has(format)) return 'integer';
  return EXPECTED[issue.expected] ?? issue.expected;
}

type Bound = z.core.$ZodRawIssue<z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig>;

/** A range refusal: `must be at most 500`, `must be at least 2 characters`, `must not be empty`. */
function boundMessage(issue: Bound, limit: number | bigint, small: boolean): string | undefined {
  const n = Number(limit);
  const plural = (unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const edge = small ? 'at least' : 'at most';
  switch (issue.origin) {
    case 'number':
    case 'int':
    case 'bigint':
      if (issue.inclusive === false) return `must be ${small ? 'greater' : 'less'} than ${limit}`;
      return `must be ${edge} ${limit}`;
    case 'string':
      if (issue.exact) return `must be exactly ${plural('character')}`;
      if (small && n === 1) return 'must not be empty';
      return `must be ${edge} ${plural('character')}`;
    case 'array':
    case 'set':
      if (issue.exact) return `must have exactly ${plural('item')}`;
      if (small && n === 1) return 'must not be empty';
      return `must have ${edge} ${plural('item')}`;
    default:
      return undefined;
  }
}

/**
 * The contract's words for zod's commonest refusals, for every schema in the process (installed with
 * the error mapping, so every transport that parses a procedure's input answers alike): a wrong type
 * says what was expected and what came (`expected integer, got string`), a missing field `required`,
 * a range its bound. A schema's own message (`.min(1, '…')`) still wins; anything else is zod's.
 */
function contractIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return wrongType(expectedName(issue), issue.input);
    case 'too_small':
      return boundMessage(issue, issue.minimum, true);
    case 'too_big':
      return boundMessage(issue, issue.maximum, false);
    case 'invalid_value': {
      if (issue.input === undefined) return 'required';
      const options = issue.values.map((v) => (typeof v === 'string' ? quoted(v) : String(v)));
      const expected = options.length === 1 ? options[0] : `one of ${options.join(', ')}`;
      const got = typeof issue.input === 'string' ? quoted(issue.input) : jsonTypeOf(issue.input);
      return `expected ${expected}, got ${got}`;
    }
    default:
      return undefined;
  }
}
z.config({ customError: contractIssueMessage });

/** A key of the client's shown in a path: any text is allowed in JSON keys, so it is capped. */
const keyText = (key: PropertyKey) => {
  const text = String(key);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
};

/** At most this many refusals are spelled out in the message; `details` has them all. */
const SUMMARY_MAX = 10;

/**
 * zod's issues as the contract's `details`: one per field, its path dotted (`items.0.quantity`). An
 * unknown key (zod reports the keys on their parent) becomes one detail per key, at the key's path.
 */
function zodDetails(err: ZodError): FieldDetail[] {
  return err.issues.flatMap((issue) => {
    const at = issue.path.map(keyText);
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ path: [...at, keyText(key)].join('.'), message: 'unknown field' }));
    return [{ path: at.join('.') || '(root)', message: issue.message }];
  });
}

function summaryOf(details: FieldDetail[]): string {
  const shown = details.slice(0, SUMMARY_MAX).map((d) => `${d.path}: ${d.message}`);
  const more = details.length - SUMMARY_MAX;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/**
 * PostgreSQL's `query_canceled` (57014) in a failure's causes: a statement the API's statement budget
 * (`statement_timeout`) stopped, whether it reached us from kysely (pg's own error) or from MikroORM
 * (its DriverException copies pg's fields), or wrapped by the code that ran it.
 */
function cancelledStatement(cause: unknown): { where?: unknown } | undefined {
  let at = cause;
  for (let depth = 0; depth < 5 && typeof at === 'object' && at !== null; depth++) {
    if ((at as { code?: unknown }).code === QUERY_CANCELED) return at as { where?: unknown };
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether the stopped statement was waiting on a row another transaction holds: PostgreSQL then names
 * the row in the error's context (`while locking tuple (0,5) in relation "product_variants"`, `while
 * checking uniqueness of tuple …`, `while updating tuple …`).
 */
function waitedOnRow({ where }: { where?: unknown }): boolean {
  return typeof where === 'string' && /(?:^|\n)while [^\n]*\btuple\b/.test(where);
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
    const summary = summaryOf(details);
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
  const cancelled = cancelledStatement(error.cause);
  if (cancelled) return httpError(statementBudgetExceeded(waitedOnRow(cancelled)));
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
  return { status: 500, body: INTERNAL_ERROR_BODY, headers: {} };
}
