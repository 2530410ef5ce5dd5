import type { oas31 } from './shared.ts';

const READY_OK = {
  status: 'ok',
  checks: {
    database: { status: 'ok', critical: true },
    migrations: { status: 'ok', critical: true },
    worker: { status: 'ok', critical: false, detail: 'last heartbeat 12s ago' },
  },
};
const READY_DOWN = {
  status: 'unavailable',
  checks: {
    database: { status: 'failing', critical: true, detail: 'no answer within 1000ms' },
    migrations: { status: 'failing', critical: true, detail: 'no answer within 1000ms' },
    worker: { status: 'failing', critical: false, detail: 'no answer within 1000ms' },
  },
};

const readyBody = (example: unknown): oas31.ContentObject => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['status', 'checks'],
      properties: {
        status: {
          type: 'string',
          enum: ['ok', 'unavailable'],
          description: '`unavailable` when a critical check failed.',
        },
        checks: {
          type: 'object',
          description:
            'Each check by name: `database` (answers within a second), `migrations` (every migration of this ' +
            'build applied), `worker` (a worker wrote its heartbeat within three minutes; not critical), and ' +
            'any the deployment adds.',
          additionalProperties: {
            type: 'object',
            required: ['status', 'critical'],
            properties: {
              status: { type: 'string', enum: ['ok', 'failing'] },
              critical: { type: 'boolean', description: 'Whether its failure makes the answer 503.' },
              detail: { type: 'string', description: 'What was found, for people.' },
            },
          },
        },
      },
    },
    example,
  },
});

/** `/health/live` and `/health/ready` (server/health-probes.ts): no credential, as `/health`. */
export function addHealthProbes(doc: oas31.OpenAPIObject, badTarget: oas31.ResponseObject) {
  doc.paths ??= {};
  const { paths } = doc;
  paths['/health/live'] = {
    get: {
      operationId: 'healthLive',
      tags: ['Service'],
      summary: 'Liveness probe',
      description:
        'Whether the process answers at all: always 200 while it runs, asking nothing of the database, so ' +
        'an outage of the database never has an orchestrator restart every process. No credential, no rate ' +
        'limit; HEAD works too. For a Kubernetes `livenessProbe`.',
      security: [],
      responses: {
        '200': {
          description: 'The process answers',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['status'],
                properties: { status: { type: 'string', enum: ['ok'] } },
              },
              example: { status: 'ok' },
            },
          },
        },
        '400': badTarget,
      },
    },
  };
  paths['/health/ready'] = {
    get: {
      operationId: 'healthReady',
      tags: ['Service'],
      summary: 'Readiness probe',
      description:
        'Whether this process should receive traffic: 200 when every critical check passes within a second, ' +
        '503 when one does not; the body names each check. No credential, no rate limit; HEAD works too. ' +
        'For a Kubernetes `readinessProbe`.',
      security: [],
      responses: {
        '200': { description: 'Ready', content: readyBody(READY_OK) },
        '400': badTarget,
        '503': { description: 'A critical check failed', content: readyBody(READY_DOWN) },
      },
    },
  };
}
