import { EXAMPLE_REQUEST_ID } from '../../src/trpc/operation-docs.ts';
import { addHealthProbes } from './health-probes.ts';
import { type oas31, ref } from './shared.ts';

const HEALTH_OK = { status: 'ok', database: 'ok' };
const HEALTH_DOWN = { status: 'unavailable', database: 'unreachable' };

const healthBody = (example: unknown): oas31.ContentObject => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['status', 'database'],
      properties: {
        status: { type: 'string', enum: ['ok', 'unavailable'], description: 'The service as a whole.' },
        database: {
          type: 'string',
          enum: ['ok', 'unreachable'],
          description: 'Whether PostgreSQL answered within a second.',
        },
      },
    },
    example,
  },
});

/** Every route refuses a request target it cannot read before routing it (server/app.ts). */
const BAD_TARGET: oas31.ResponseObject = {
  description: 'The request target is not a valid path',
  content: {
    'application/json': {
      schema: ref('schemas', 'Error'),
      example: {
        error: 'bad_request',
        code: 'INVALID_REQUEST_TARGET',
        message: 'The request target is not a valid path',
        request_id: EXAMPLE_REQUEST_ID,
      },
    },
  },
};

/**
 * The routes the spec lists (and the two health probes) outside the API's own operations, served by the HTTP layer before
 * any router (server/app.ts): described by hand, with no credential.
 */
export function addServiceOperations(doc: oas31.OpenAPIObject) {
  doc.paths ??= {};
  doc.paths['/health'] = {
    get: {
      operationId: 'health',
      tags: ['Service'],
      summary: 'Status check',
      description:
        'Whether the service can serve requests: 200 when the database answers within a second, 503 when it ' +
        'does not. No credential, no rate limit; HEAD works too. For load balancers and uptime checks.',
      security: [],
      responses: {
        '200': { description: 'Serving', content: healthBody(HEALTH_OK) },
        '400': BAD_TARGET,
        '503': {
          description: 'The database did not answer within a second',
          content: healthBody(HEALTH_DOWN),
        },
      },
    },
  };
  addHealthProbes(doc, BAD_TARGET);
  doc.paths['/api/v1/openapi.json'] = {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['Service'],
      summary: 'This contract',
      description:
        'The OpenAPI 3.1 document of the partner API: this document, with `info.version` moving with every ' +
        'change logged in the changelog. No credential. Rendered for people at `/docs`.',
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document',
          headers: {
            'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } },
            'X-Request-Id': ref('headers', 'XRequestId'),
          },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description: 'An OpenAPI 3.1 document.',
                required: ['openapi', 'info', 'paths'],
                properties: {
                  openapi: { type: 'string', example: '3.1.0' },
                  info: {
                    type: 'object',
                    required: ['title', 'version'],
                    properties: { title: { type: 'string' }, version: { type: 'string', example: '1.0.3' } },
                  },
                  paths: { type: 'object', additionalProperties: true },
                },
                additionalProperties: true,
              },
              example: {
                openapi: '3.1.0',
                info: { title: 'Stockless Partner API', version: '1.0.3' },
                paths: {},
              },
            },
          },
        },
        '400': BAD_TARGET,
      },
    },
  };
}
