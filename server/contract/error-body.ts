import type { AppScopeRule } from '../../src/auth/actor.ts';
import { type ErrorExample, errorExample } from '../../src/trpc/operation-docs.ts';
import { RATE_LIMIT_HEADERS } from './headers.ts';
import { type oas31, ref } from './shared.ts';

/** The error body of every `/api/v1` operation (components.schemas.Error). */
export const ERROR_SCHEMA: oas31.SchemaObject = {
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
};

/** An error response of the contract's shape, with its example and headers. */
export function errorResponse(
  description: string,
  status: string,
  example: ErrorExample,
): oas31.ResponseObject {
  const headers: oas31.HeadersObject = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (status === '401') headers['WWW-Authenticate'] = ref('headers', 'WWWAuthenticate');
  if (status === '429')
    Object.assign(headers, { 'Retry-After': ref('headers', 'RetryAfter') }, RATE_LIMIT_HEADERS);
  return {
    description,
    headers,
    content: { 'application/json': { schema: ref('schemas', 'Error'), example } },
  };
}

/** The example of a status where the operation has none of its own. */
export function genericError(
  status: string,
  write: boolean,
  appScope: AppScopeRule,
  op?: oas31.OperationObject,
): ErrorExample {
  switch (status) {
    case '400':
      return validationError(inputField(op));
    case '401':
      return errorExample(
        'unauthorized',
        'INVALID_CREDENTIAL',
        'Missing credential: send Authorization: Bearer <API key or access token>',
      );
    case '403':
      return scopeError(write, appScope);
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

function validationError(field: string): ErrorExample {
  const message = field === 'limit' ? 'Too big: expected number to be <=500' : 'Invalid input';
  return errorExample('bad_request', 'VALIDATION_FAILED', `Invalid request: ${field}: ${message}`, {
    details: [{ path: field, message }],
  });
}

function scopeError(write: boolean, appScope: AppScopeRule): ErrorExample {
  if (write)
    return errorExample(
      'forbidden',
      'INSUFFICIENT_SCOPE',
      'This credential is read-only; this operation needs read_write',
      { required_scope: 'read_write' },
    );
  if (appScope === null)
    return errorExample('forbidden', 'APP_TOKEN_NOT_ALLOWED', 'App tokens cannot use this operation');
  if (appScope === '*') return errorExample('forbidden', 'FORBIDDEN', 'Forbidden');
  return errorExample('forbidden', 'INSUFFICIENT_SCOPE', `This operation needs the app scope ${appScope}`, {
    required_scope: appScope,
  });
}

/** The field a validation error example names: `limit` where there is one, else the first input. */
function inputField(op: oas31.OperationObject | undefined): string {
  const params = (op?.parameters ?? []).map((p) => ('name' in p ? p.name : undefined));
  if (params.includes('limit')) return 'limit';
  const requestBody = op?.requestBody;
  const schema =
    requestBody && 'content' in requestBody ? requestBody.content['application/json']?.schema : undefined;
  const properties = schema && 'properties' in schema ? schema.properties : undefined;
  return Object.keys(properties ?? {})[0] ?? params[0] ?? 'id';
}
