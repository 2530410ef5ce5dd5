import type { ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../../src/metrics/registry.ts';
import type { DescribeOperation } from '../../src/request-log/entry.ts';
import type { RequestState } from '../../src/trpc/request-state.ts';
import { EXPORT_FILE_PATH } from '../export-file-route.ts';

export const httpRequests = new Counter({
  name: 'stockless_http_requests_total',
  help:
    "Requests answered, by operation (the contract's operationId, or a fixed name for the routes outside " +
    "it; every path no route knows is 'unmatched') and status code.",
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'stockless_http_request_duration_seconds',
  help: 'From the request reaching the server to its answer sent, by operation and status code.',
  labelNames: ['operation', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const httpInFlight = new Gauge({
  name: 'stockless_http_requests_in_flight',
  help: 'Requests this process has received and not yet answered (or seen closed).',
  registers: [registry],
});

export const idempotentReplays = new Counter({
  name: 'stockless_idempotent_replays_total',
  help: 'Keyed writes answered from the stored answer of an earlier request (Idempotent-Replayed: true), by operation.',
  labelNames: ['operation'] as const,
  registers: [registry],
});

export const statementBudgetHits = new Counter({
  name: 'stockless_statement_budget_hits_total',
  help:
    "API statements PostgreSQL cancelled: reason 'timeout' (the statement budget, API_STATEMENT_TIMEOUT) or " +
    "'cancelled' (anything else, e.g. an operator's pg_cancel_backend).",
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** The paths outside /api/v1's operations, each one label (`/health` and the contract's are operations). */
const FIXED: Record<string, string> = {
  '/health': 'health',
  '/health/live': 'healthLive',
  '/health/ready': 'healthReady',
  '/api/v1/openapi.json': 'getOpenApiDocument',
  '/mcp': 'mcp',
};

/**
 * A request's operation label: a bounded set whatever the client sends. A path that names an
 * operation of the contract is its operationId; tRPC, OAuth and the docs are one label each; the rest,
 * unknown paths included, fold into 'unmatched'.
 */
export function operationLabel(
  describe: DescribeOperation,
  method: string | undefined,
  path: string,
): string {
  const fixed = FIXED[path];
  if (fixed) return fixed;
  if (path.startsWith('/api/v1/')) {
    const op = describe(method ?? 'GET', path)?.operation;
    if (op) return op;
    return EXPORT_FILE_PATH.test(path) ? 'exportFile' : 'unmatched';
  }
  if (path.startsWith('/trpc/')) return 'trpc';
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/')) return 'oauth';
  if (path === '/docs' || path.startsWith('/docs/')) return 'docs';
  return 'unmatched';
}

/**
 * The HTTP metrics of one request, from its arrival: in flight until its response closes, then
 * counted and timed under its operation and status once it finished.
 */
export function observeRequest(
  describe: DescribeOperation,
  res: ServerResponse,
  state: RequestState,
  started: bigint,
): void {
  httpInFlight.inc();
  res.once('close', () => httpInFlight.dec());
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const operation = state.target
      ? operationLabel(describe, state.sentMethod, state.target.path)
      : 'unmatched';
    const labels = { operation, status: String(res.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, seconds);
    if (res.getHeader('idempotent-replayed') === 'true') idempotentReplays.inc({ operation });
  });
}
