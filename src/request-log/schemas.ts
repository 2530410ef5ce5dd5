import { z } from 'zod';
import { described, intParam, isoDateTimeParam } from '../trpc/params.ts';

/** A request id as the edge keeps it: ours (`req_…`) or the client's own `X-Request-Id` (server/request-id.ts). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,200}$/;

const time = (description: string) =>
  isoDateTimeParam().meta({ description, example: '2026-11-29T00:00:00Z' }).optional();

export const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;

export const listRequestsInput = z.object({
  status: intParam(100, 599, described('Only requests answered with this HTTP status.')).optional(),
  status_class: z
    .enum(STATUS_CLASSES)
    .optional()
    .meta(described('Only successes (`2xx`), refusals (`4xx`) or failures (`5xx`).')),
  operation: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]{0,99}$/, 'must be an operationId of the contract, e.g. listOrders')
    .optional()
    .meta({
      description: "Only requests of this operation (the contract's operationId).",
      example: 'listOrders',
    }),
  created_gte: time('Only requests that arrived at or after this time (ISO 8601 with an offset or Z).'),
  created_lt: time('Only requests that arrived before this time (ISO 8601 with an offset or Z).'),
  idempotency_key: z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters')
    .optional()
    .meta(described('Only requests sent with this Idempotency-Key (the first run and its replays).')),
  credential: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,200}$/, "must be an API key's prefix (sl_live_abcd) or an app's client_id")
    .optional()
    .meta({
      description:
        'Only requests made with this API key (its prefix, as the log shows it) or this app (its client_id).',
      example: 'sl_live_abcd',
    }),
  limit: intParam(1, 100, described('Requests per page, 1 to 100; default 20.')).optional(),
  cursor: z
    .string()
    .max(300)
    .optional()
    .meta(described('A next_cursor from an earlier page of the same filters; absent = the newest first.')),
});
export type ListRequestsInput = z.output<typeof listRequestsInput>;

export const loggedRequest = z
  .object({
    id: z.string().meta({
      description: "The request's id: its `X-Request-Id` (and an error body's `request_id`).",
      example: 'req_b3k2m4q5r6s7t8v9w2x3y4z5',
    }),
    method: z.string().meta({ example: 'POST' }),
    path: z.string().meta({ description: 'The path, without the query.', example: '/api/v1/orders' }),
    query: z
      .string()
      .nullable()
      .meta({
        description:
          "The query's parameters the operation declares, with their values (a `search` term as `[redacted]`); " +
          'parameters it does not declare are left out. Null without one.',
        example: 'status=pending&limit=50',
      }),
    operation: z.string().nullable().meta({
      description: "The contract's operationId (null for a path no operation has).",
      example: 'createWholesaleOrder',
    }),
    status: z.int().meta({ example: 409 }),
    error: z
      .object({
        type: z.string().meta({ description: "The error body's `error` (category).", example: 'conflict' }),
        code: z
          .string()
          .nullable()
          .meta({ description: "The error body's `code`.", example: 'PRICE_CHANGED' }),
      })
      .nullable()
      .meta(
        described('For an error answer, its category and code; never its message (see the description).'),
      ),
    duration_ms: z
      .number()
      .meta({ description: 'Time from arrival to the last byte sent, in ms.', example: 41.37 }),
    credential: z
      .object({
        type: z.enum(['api_key', 'app', 'mcp']).meta({ example: 'api_key' }),
        prefix: z.string().nullable().meta({
          description: "An API key's public prefix (never the secret); null for an app token.",
          example: 'sl_live_abcd',
        }),
      })
      .meta(described('Which credential made the request.')),
    app: z
      .object({
        client_id: z.string().meta({ example: 'cl_7hq2m' }),
        name: z.string().meta({ example: 'Shelf Sync' }),
      })
      .nullable()
      .meta(described('The OAuth app whose token made the request; null for an API key.')),
    idempotency_key: z.string().nullable().meta({ example: 'order-2026-11-29-0042' }),
    replayed: z.boolean().meta({
      description: 'Answered from a kept answer of an earlier request with the same Idempotency-Key.',
      example: false,
    }),
    user_agent: z.string().nullable().meta({ example: 'stockless-node/2.0.1' }),
    created_at: z.iso
      .datetime()
      .meta({ description: 'When the request arrived.', example: '2026-11-29T03:12:45.120Z' }),
    livemode: z
      .boolean()
      .meta({ description: '`false` for a request made with an `sl_test_` key.', example: true }),
  })
  .meta({
    id: 'LoggedRequest',
    description: 'A request the store made to the API, as the request log keeps it.',
  });
export type LoggedRequest = z.output<typeof loggedRequest>;

export const listRequestsOutput = z.object({
  requests: z.array(loggedRequest),
  next_cursor: z
    .string()
    .nullable()
    .meta(
      described(
        'Pass back as `cursor` for the next (older) page; null when this page is the last. With an API ' +
          'key and at most one of `operation`, `credential`, `idempotency_key` or `status` (a time range ' +
          'or not), a page reads only matching requests and holds `limit` of them unless it is the last. ' +
          "Otherwise (`status_class`, filters combined, or an app token's filtered list) it reads at most " +
          "2,000 of the log's requests, so a rare match can answer a short or even empty page with a " +
          '`next_cursor`: keep following it until `has_more` is false.',
      ),
    ),
  has_more: z
    .boolean()
    .meta(described('Older requests may match beyond this page: true whenever `next_cursor` is set.')),
});

export const getRequestInput = z.object({
  request_id: z
    .string()
    .regex(REQUEST_ID, 'must be a request id: 1 to 200 of A-Z a-z 0-9 . _ : -')
    .meta({ description: "The request's id (`X-Request-Id`).", example: 'req_b3k2m4q5r6s7t8v9w2x3y4z5' }),
});
export type GetRequestInput = z.output<typeof getRequestInput>;

export const getRequestOutput = z.object({ request: loggedRequest });
