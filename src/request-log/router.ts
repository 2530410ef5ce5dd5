import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { getRequest } from './get-request.ts';
import { listRequests } from './list-requests.ts';
import { getRequestInput, getRequestOutput, listRequestsInput, listRequestsOutput } from './schemas.ts';

const WHO_READS =
  'An API key (read keys too) reads the whole store in its own mode (a test key: test-mode requests); an app ' +
  "token, with any scope, reads only the requests its own app made. Requests are kept 7 days; a request's " +
  "body is never kept, nor an error's message (it may echo input): its `error` is the category and code.";

/** The request log: the store's own API requests for 7 days (recorded by the edge, src/request-log/recorder.ts). */
export const requestLogRouter = router({
  list: partnerProcedure
    .meta({
      appScope: '*',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/requests',
        operationId: 'listRequests',
        tags: ['Store'],
        summary: 'The request log',
        description:
          "The store's own API requests of the last 7 days, newest first: every /api/v1 request made with one of " +
          'its credentials, refusals (4xx), rate-limited and failed (5xx) ones included; a request without a valid ' +
          'credential belongs to no store and is not logged. A request shows within about a second of its answer. ' +
          WHO_READS,
        errorResponses: {
          400: 'Invalid parameter or cursor',
          401: 'Missing or invalid credential',
        },
      },
    })
    .input(listRequestsInput)
    .output(listRequestsOutput)
    .query(({ ctx, input }) => listRequests(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: '*',
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/requests/{request_id}',
        operationId: 'getRequest',
        tags: ['Store'],
        summary: 'One logged request',
        description: `One request of the store by its id (the \`X-Request-Id\` of its answer). ${WHO_READS}`,
        errorResponses: {
          400: 'Not a request id',
          401: 'Missing or invalid credential',
          404: 'No such request of this store in this mode',
        },
      },
    })
    .input(getRequestInput)
    .output(getRequestOutput)
    .query(({ ctx, input }) => getRequest(ctx, input)),
});
