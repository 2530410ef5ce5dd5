import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import type { DescribeOperation, RequestRecord } from './entry.ts';
import { keptQuery } from './kept-query.ts';

const MAX_PATH = 1000;
const MAX_AGENT = 500;

/** The batch as one array per column, in the INSERT's order: a single statement whatever its size. */
function columns(batch: readonly RequestRecord[], describe: DescribeOperation | undefined) {
  const described = batch.map((r) => describe?.(r.method, r.path));
  const col = <T>(f: (r: RequestRecord, i: number) => T) => batch.map(f);
  return {
    store_id: col((r) => r.storeId),
    livemode: col((r) => r.livemode),
    request_id: col((r) => r.requestId),
    method: col((r) => r.method),
    path: col((r) => r.path.slice(0, MAX_PATH)),
    query: col((r, i) => keptQuery(r.search, described[i]?.query)),
    operation: col((_, i) => described[i]?.operation ?? null),
    status: col((r) => r.status),
    error_type: col((r) => r.errorType),
    error_code: col((r) => r.errorCode),
    duration_ms: col((r) => Math.round(r.durationMs * 100) / 100),
    credential_type: col((r) => r.credentialType),
    credential_id: col((r) => r.credentialId),
    app_id: col((r) => r.appId),
    idempotency_key: col((r) => r.idempotencyKey),
    replayed: col((r) => r.replayed),
    user_agent: col((r) => r.userAgent?.slice(0, MAX_AGENT) ?? null),
    created_ms: col((r) => r.createdAt),
  };
}

/**
 * Writes a batch of finished requests in one multi-row INSERT (arrays unnested), with the credential's
 * display prefix (never its secret: `api_keys.token_prefix`) and the app's client id and name looked
 * up in the same statement, so they survive the key's revocation or the client's rename. A row of a
 * store deleted while it waited in the buffer is dropped (the join), not the whole batch with it.
 */
export async function writeBatch(
  em: EntityManager,
  batch: readonly RequestRecord[],
  describe?: DescribeOperation,
): Promise<void> {
  if (batch.length === 0) return;
  const c = columns(batch, describe);
  await rows(
    em,
    sql`INSERT INTO request_log (store_id, livemode, request_id, method, path, query, operation, status,
        error_type, error_code, duration_ms, credential_type, credential_id, credential_prefix, app_id,
        app_client_id, app_name, idempotency_key, replayed, user_agent, created_at)
      SELECT r.store_id, r.livemode, r.request_id, r.method, r.path, r.query, r.operation, r.status,
        r.error_type, r.error_code, r.duration_ms, r.credential_type, r.credential_id, k.token_prefix, r.app_id,
        c.client_id, c.client_name, r.idempotency_key, r.replayed, r.user_agent,
        to_timestamp(r.created_ms / 1000.0)
      FROM unnest(${c.store_id}::integer[], ${c.livemode}::boolean[], ${c.request_id}::text[],
        ${c.method}::text[], ${c.path}::text[], ${c.query}::text[], ${c.operation}::text[],
        ${c.status}::smallint[], ${c.error_type}::text[], ${c.error_code}::text[],
        ${c.duration_ms}::double precision[], ${c.credential_type}::text[], ${c.credential_id}::integer[],
        ${c.app_id}::integer[], ${c.idempotency_key}::text[], ${c.replayed}::boolean[],
        ${c.user_agent}::text[], ${c.created_ms}::double precision[])
        AS r(store_id, livemode, request_id, method, path, query, operation, status, error_type, error_code,
          duration_ms, credential_type, credential_id, app_id, idempotency_key, replayed, user_agent, created_ms)
      JOIN stores s ON s.id = r.store_id
      LEFT JOIN api_keys k ON r.credential_type = 'api_key' AND k.id = r.credential_id
      LEFT JOIN oauth_clients c ON c.id = r.app_id`,
  );
}
