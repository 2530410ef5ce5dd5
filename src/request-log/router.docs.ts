import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { requestLogRouter } from './router.ts';
import type { LoggedRequest } from './schemas.ts';

/** A refused wholesale order as the log keeps it. */
const REFUSED: LoggedRequest = {
  id: 'req_b3k2m4q5r6s7t8v9w2x3y4z5',
  method: 'POST',
  path: '/api/v1/orders',
  query: null,
  operation: 'createWholesaleOrder',
  status: 409,
  error: { type: 'conflict', code: 'PRICE_CHANGED' },
  duration_ms: 41.37,
  credential: { type: 'api_key', prefix: 'sl_live_abcd' },
  app: null,
  idempotency_key: 'order-2026-11-29-0042',
  replayed: false,
  user_agent: 'stockless-node/2.0.1',
  created_at: '2026-11-29T03:12:45.120Z',
  livemode: true,
};

/** A page read by a partner app. */
const LISTED: LoggedRequest = {
  ...REFUSED,
  id: 'req_c4m3n5r6s7t8v9w2x3y4z5a6',
  method: 'GET',
  path: '/api/v1/orders',
  query: 'status=pending&limit=50',
  operation: 'listOrders',
  status: 200,
  error: null,
  duration_ms: 12.08,
  credential: { type: 'app', prefix: null },
  app: { client_id: 'cl_7hq2m', name: 'Shelf Sync' },
  idempotency_key: null,
  created_at: '2026-11-29T03:12:44.002Z',
};

const INVALID_CURSOR = errorExample(
  'bad_request',
  'INVALID_CURSOR',
  'cursor is not a next_cursor this list gave for these filters',
  { details: [{ path: 'cursor', message: 'not a next_cursor of this list and filters' }] },
);

/** The request log's contract prose beyond its schemas (see src/trpc/operation-docs.ts). */
export const requestLogDocs: RouterDocs<typeof requestLogRouter> = {
  list: {
    parameters: {
      cursor:
        'A `next_cursor` from an earlier page: the next older page under the same filters (a cursor belongs to the ' +
        'store, the mode and the filters it was given with).',
      status_class: 'Only `2xx` successes, `4xx` refusals or `5xx` failures.',
      operation: "Only requests of this operation (the contract's operationId, e.g. `listOrders`).",
      idempotency_key: 'Only requests sent with this Idempotency-Key: the first run and its replays.',
      credential:
        'Only requests made with this API key (its prefix as the log shows it, `sl_live_abcd`) or this app (its ' +
        '`client_id`).',
    },
    sampleQuery: { status_class: '4xx', limit: 20 },
    responseExample: () => ({
      requests: [REFUSED, LISTED],
      next_cursor: 'cnExOjEyOjE6YWIxMjpjZDM0OjUyODE2.Jq3Vx0bZ4nR8wYc2LdAk9Q',
      has_more: true,
    }),
    errors: {
      '400': errorDoc(
        'A parameter is invalid (`created_lt` not after `created_gte`, a `status` outside `status_class`), or ' +
          '`cursor` is not one this list gave for these filters',
        INVALID_CURSOR,
        errorExample(
          'bad_request',
          'VALIDATION_FAILED',
          'Invalid request: created_lt: must be after created_gte',
          {
            details: [{ path: 'created_lt', message: 'must be after created_gte' }],
          },
        ),
      ),
    },
  },
  get: {
    responseExample: () => ({ request: REFUSED }),
    errors: {
      '404': errorDoc(
        'No such request of the store in this mode (requests are kept 7 days; an app token sees only its own)',
        errorExample(
          'not_found',
          'REQUEST_NOT_FOUND',
          'No logged request with id req_b3k2m4q5r6s7t8v9w2x3y4z5',
        ),
      ),
    },
  },
};
