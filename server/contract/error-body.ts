import type { AppScopeRule } from '../../src/auth/actor.ts';
import { STATEMENT_BUDGET } from '../../src/errors.ts';
import { type ErrorDoc, type ErrorExample, errorExample } from '../../src/trpc/operation-docs.ts';
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
        'method_not_allowed',
        'conflict',
        'unprocessable_content',
        'rate_limited',
        'server_error',
      ],
      description: 'Error category.',
    },
    message: { type: 'string', description: 'Human-readable explanation.' },
    code: { type: 'string', description: 'Machine-readable code, e.g. INSUFFICIENT_SCOPE.' },
    doc_url: {
      type: 'string',
      format: 'uri',
      description:
        "With every `code`: the code's entry on the error reference page (`/docs/errors/<code>`): what it means, " +
        'its usual cause, the fix and an example.',
    },
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
      description:
        'On 429: seconds until one more request is allowed; on 503 QUERY_TOO_EXPENSIVE: seconds to wait before ' +
        'retrying. As the Retry-After header.',
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
    status: {
      type: 'string',
      description: "With INVALID_TRANSITION: the order's status now, which the move was refused from.",
    },
    export_id: {
      type: 'string',
      description: 'With EXPORT_ALREADY_RUNNING: the export queued or running, to wait for.',
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

/** What an operation answers with one error status: its text, and an example body per code. */
export interface ErrorAnswer {
  description: string;
  examples: readonly [ErrorExample, ...ErrorExample[]];
}

/** What the contract knows of an operation when its docs say nothing of a status. */
export interface ErrorContext {
  write: boolean;
  appScope: AppScopeRule;
  /** Counts against a limit of its own (the inventory feed, marketplace orders). */
  rateLimited: boolean;
  op?: oas31.OperationObject;
}

/**
 * Statuses whose codes every operation shares (validation, credentials, scopes, limits, the statement
 * budget): an operation's own codes come first and these after. 404 and 409 are each operation's own.
 */
const SHARED_STATUSES = new Set(['400', '401', '403', '429', '503']);

/**
 * The answer of one error status of one operation: its docs' (with the shared codes after, where
 * the status has some), else the shared one, else the text its meta gives, else a neutral one
 * ("Not found"). Never another operation's: trpc-to-openapi's response texts are not used.
 */
export function errorAnswer(
  status: string,
  own: ErrorDoc | undefined,
  metaText: string | undefined,
  context: ErrorContext,
): ErrorAnswer {
  const shared = SHARED_STATUSES.has(status) ? sharedAnswer(status, context) : undefined;
  if (own) {
    // A shared example the operation shows already (same code, same scope) is not repeated.
    const same = (e: ErrorExample) => `${e.code}:${String(e.required_scope ?? '')}`;
    const shown = new Set(own.examples.map(same));
    const rest = shared?.examples.filter((e) => !shown.has(same(e))) ?? [];
    const [first, ...more] = own.examples;
    return { description: own.description, examples: [first, ...more, ...rest] };
  }
  if (shared) return shared;
  const neutral = neutralAnswer(status);
  if (!metaText) return neutral;
  const [example] = neutral.examples;
  return { description: metaText, examples: [{ ...example, message: metaText }] };
}

/**
 * An error response of the contract's shape: the text with every code it answers (those it does not
 * name in backticks are listed after it), an example of each, and the status's headers.
 */
export function answerResponse(status: string, answer: ErrorAnswer): oas31.ResponseObject {
  const codes = [...new Set(answer.examples.flatMap((e) => (e.code ? [`\`${e.code}\``] : [])))].filter(
    (code) => !answer.description.includes(code),
  );
  const headers: oas31.HeadersObject = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (status === '401') headers['WWW-Authenticate'] = ref('headers', 'WWWAuthenticate');
  if (status === '429')
    Object.assign(headers, { 'Retry-After': ref('headers', 'RetryAfter') }, RATE_LIMIT_HEADERS);
  if (status === '503') headers['Retry-After'] = ref('headers', 'RetryAfter');
  const [first, ...more] = answer.examples;
  const media: oas31.MediaTypeObject = { schema: ref('schemas', 'Error') };
  if (more.length === 0) media.example = first;
  else media.examples = namedExamples(answer.examples);
  return {
    description: codes.length ? `${answer.description} (${codes.join(', ')})` : answer.description,
    headers,
    content: { 'application/json': media },
  };
}

/** An error response with one example (its code listed after the text unless the text names it). */
export function errorResponse(
  description: string,
  status: string,
  example: ErrorExample,
): oas31.ResponseObject {
  return answerResponse(status, { description, examples: [example] });
}

/** Examples by code (a code met twice, as two scope refusals, is told apart by its scope). */
function namedExamples(examples: readonly ErrorExample[]): Record<string, oas31.ExampleObject> {
  const out: Record<string, oas31.ExampleObject> = {};
  for (const value of examples) {
    let name: string = value.code ?? value.error;
    if (name in out) name = `${name} (${String(value.required_scope ?? Object.keys(out).length)})`;
    out[name] = { summary: value.message, value };
  }
  return out;
}

/** The shared codes of a status, as the operation's method and scopes decide them. */
function sharedAnswer(status: string, context: ErrorContext): ErrorAnswer | undefined {
  switch (status) {
    case '400':
      return { description: 'Invalid request', examples: [validationError(inputField(context.op))] };
    case '401':
      return {
        description: 'Missing or invalid credential',
        examples: [
          errorExample(
            'unauthorized',
            'INVALID_CREDENTIAL',
            'Missing credential: send Authorization: Bearer <API key or access token>',
          ),
        ],
      };
    case '403':
      return scopeAnswer(context);
    case '503':
      return budgetAnswer(context);
    case '429':
      return {
        description: context.rateLimited
          ? `Rate limited: this operation has a limit of its own${context.appScope === null ? '' : ', and app tokens 120 requests a minute per store per app'}`
          : 'Rate limited (app tokens: 120 requests a minute per store per app)',
        examples: [
          errorExample(
            'rate_limited',
            'RATE_LIMITED',
            'Rate limit of 120 requests per minute reached; retry later',
            { retry_after: 42 },
          ),
        ],
      };
    default:
      return undefined;
  }
}

/**
 * The statement budget (docs/decisions.md, "Statement budget"): no statement of a request may run
 * longer than the platform's budget (2 s by default). A read is most often stopped for its filters,
 * a write for waiting on other changes to the same records.
 */
function budgetAnswer({ write }: ErrorContext): ErrorAnswer {
  const answer = write ? STATEMENT_BUDGET.contended : STATEMENT_BUDGET.expensive;
  const retry = 'retry after `Retry-After` seconds';
  const description = write
    ? 'Stopped by the statement budget: the request waited too long on other changes to the same records, or ' +
      'needed more database time than one request may use (2 s by default). What it had not committed was ' +
      `rolled back; ${retry}, with the same Idempotency-Key`
    : 'Stopped by the statement budget: the request needed more database time than one request may use (2 s ' +
      `by default). Narrow its filters, or ${retry}`;
  return {
    description,
    examples: [
      errorExample('server_error', STATEMENT_BUDGET.code, answer.message, { retry_after: answer.retryAfter }),
    ],
  };
}

/** A status the operation says nothing more of. */
function neutralAnswer(status: string): ErrorAnswer {
  switch (status) {
    case '404':
      return { description: 'Not found', examples: [errorExample('not_found', undefined, 'Not found')] };
    case '409':
      return { description: 'Conflict', examples: [errorExample('conflict', undefined, 'Conflict')] };
    default:
      return {
        description: 'Error',
        examples: [errorExample('server_error', 'INTERNAL_ERROR', 'Internal server error')],
      };
  }
}

/** Who is refused: a read-only credential on a write, and app tokens without the operation's scope. */
function scopeAnswer({ write, appScope }: ErrorContext): ErrorAnswer {
  const refusals: { who: string; example: ErrorExample }[] = [];
  if (write)
    refusals.push({
      who: 'a read-only credential on a write',
      example: errorExample(
        'forbidden',
        'INSUFFICIENT_SCOPE',
        'This credential is read-only; this operation needs read_write',
        { required_scope: 'read_write' },
      ),
    });
  if (appScope === null)
    refusals.push({
      who: 'an app token (this operation is for API keys)',
      example: errorExample('forbidden', 'APP_TOKEN_NOT_ALLOWED', 'App tokens cannot use this operation'),
    });
  else if (appScope !== '*')
    refusals.push({
      who: `an app token without \`${appScope}\``,
      example: errorExample(
        'forbidden',
        'INSUFFICIENT_SCOPE',
        `This operation needs the app scope ${appScope}`,
        {
          required_scope: appScope,
        },
      ),
    });
  const [first, ...more] = refusals;
  if (!first)
    return { description: 'Forbidden', examples: [errorExample('forbidden', 'FORBIDDEN', 'Forbidden')] };
  return {
    description: `Refused: ${refusals.map((r) => r.who).join(', or ')}`,
    examples: [first.example, ...more.map((r) => r.example)],
  };
}

function validationError(field: string): ErrorExample {
  const message = field === 'limit' ? 'must be at most 500' : 'expected integer, got string "abc"';
  return errorExample('bad_request', 'VALIDATION_FAILED', `Invalid request: ${field}: ${message}`, {
    details: [{ path: field, message }],
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
