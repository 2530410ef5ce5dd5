import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestRecorder } from '../src/request-log/recorder.ts';
import type { RequestState } from '../src/trpc/request-state.ts';
import { IDEMPOTENCY_HEADER, parseIdempotencyKey } from './idempotency.ts';

/**
 * Hands a finished /api/v1 request to the request log when it resolved to a store (its credential was
 * read: a refusal after that, a 429 and a 5xx are recorded; an anonymous or unknown credential is not).
 * Only fields the edge already holds are copied: the cost a request pays is this and an array push.
 */
export function recordRequest(
  recorder: RequestRecorder | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  timing: { arrived: number; ms: number },
): void {
  if (!recorder) return;
  const actor = state.actor ?? state.keyed?.credential;
  const target = state.target;
  if (!actor || !target?.path.startsWith('/api/v1/')) return;
  const error = res.statusCode >= 400 ? state.error?.body : undefined;
  const key = req.headers[IDEMPOTENCY_HEADER];
  const agent = req.headers['user-agent'];
  recorder.record({
    storeId: actor.storeId,
    livemode: actor.livemode,
    requestId: state.id,
    method: state.sentMethod ?? 'GET',
    path: target.path,
    search: target.search,
    status: res.statusCode,
    errorType: error?.error ?? null,
    errorCode: error?.code ?? null,
    durationMs: timing.ms,
    credentialType: actor.kind,
    credentialId: actor.credentialId,
    appId: actor.appId ?? null,
    idempotencyKey: typeof key === 'string' ? parseIdempotencyKey(key) : null,
    replayed: res.getHeader('idempotent-replayed') === 'true',
    userAgent: typeof agent === 'string' ? agent : null,
    createdAt: timing.arrived,
  });
}
