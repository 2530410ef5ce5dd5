import { errorExample } from '../../src/trpc/operation-docs.ts';
import { errorResponse } from './error-body.ts';
import { type oas31, ref } from './shared.ts';

const WRITES = ['post', 'put', 'patch', 'delete'] as const;

const PARAMETER: oas31.ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry of this write safe (IETF draft-ietf-httpapi-idempotency-key-header): the first ' +
    'request with a key runs and its answer is kept for 24 hours for your store; a retry of the same ' +
    'request (same method, path and JSON body, whatever its key order) gets that answer again, with ' +
    '`Idempotent-Replayed: true`. The same key on another request is 422 `IDEMPOTENCY_KEY_REUSED`; a retry ' +
    'while the first still runs is 409 `IDEMPOTENCY_KEY_IN_USE` (retry after `Retry-After`). Requests ' +
    'refused before they ran (validation, credential, scope, rate limit) and server errors keep nothing, so ' +
    'the corrected request may reuse the key. The write and its kept answer commit together: a request ' +
    'that got no answer (a dropped connection, a crash on our side) either committed, and its retry gets the ' +
    'answer, or left nothing, and its retry runs; never both, never a wait. A replay or a refused reuse ' +
    "counts against the operation's rate limits as the request would. A replayed error carries this " +
    "request's `request_id` (as `X-Request-Id` does); `Original-Request` names the first. " +
    '1 to 255 printable ASCII characters, bare or as a quoted ' +
    'Structured Field string; a UUID v4 is a good key. The SDK sends one on every write.',
  schema: { type: 'string', minLength: 1, maxLength: 255, example: '8e03978e-40d5-43e8-bc93-6894a57f9324' },
};

const HEADERS: Record<string, oas31.HeaderObject> = {
  IdempotentReplayed: {
    description:
      '`true` when this answer is the kept answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  OriginalRequest: {
    description: 'On a replayed answer: the X-Request-Id of the request that produced it.',
    schema: { type: 'string' },
  },
};

const IN_USE = errorExample(
  'conflict',
  'IDEMPOTENCY_KEY_IN_USE',
  'A request with this Idempotency-Key is still being processed; retry shortly',
);
const REUSED = errorExample(
  'unprocessable_content',
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was used with a different request; send a new key for a new request',
);

/** The Idempotency-Key header on every write of `/api/v1`, with the answers it adds. */
export function addIdempotencyKeys(doc: oas31.OpenAPIObject) {
  doc.components ??= {};
  doc.components.parameters = { ...doc.components.parameters, IdempotencyKey: PARAMETER };
  doc.components.headers = { ...doc.components.headers, ...HEADERS };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const method of WRITES) {
      const op = item[method];
      if (op) describeKey(op);
    }
  }
}

function describeKey(op: oas31.OperationObject) {
  op.parameters = [...(op.parameters ?? []), ref('parameters', 'IdempotencyKey')];
  const responses: oas31.ResponsesObject = op.responses ?? {};
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) >= 300 || '$ref' in response) continue;
    response.headers = {
      ...response.headers,
      'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
      'Original-Request': ref('headers', 'OriginalRequest'),
    };
  }
  const conflict: oas31.ResponseObject | oas31.ReferenceObject | undefined = responses['409'];
  if (!conflict) {
    responses['409'] = errorResponse(
      'A request with the same Idempotency-Key is still running',
      '409',
      IN_USE,
    );
    responses['409'].headers = { ...responses['409'].headers, 'Retry-After': ref('headers', 'RetryAfter') };
  } else if (!('$ref' in conflict)) {
    conflict.description +=
      '; or `IDEMPOTENCY_KEY_IN_USE`: a request with the same Idempotency-Key is still running';
  }
  responses['422'] = errorResponse('The Idempotency-Key was used with a different request', '422', REUSED);
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
