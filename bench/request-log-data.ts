import type pg from 'pg';
import { buildOpenApiDocument } from '../server/contract/document.ts';

/**
 * A store's request log and export history as a busy store leaves them, for the read paths' benches
 * (GET /requests, GET /exports at the named size): rows spread over the 7 days the log keeps.
 */

/** Statuses as a busy partner meets them: mostly 200s, some refusals, the odd conflict and 500. */
const STATUSES = [
  ...Array<number>(88).fill(200),
  ...[201, 201, 202, 400, 400, 400, 404, 404, 409, 422, 429, 429, 401, 403],
];
const ERROR = {
  400: ['invalid_request_error', 'VALIDATION_FAILED'],
  401: ['authentication_error', 'INVALID_API_KEY'],
  403: ['permission_error', 'INSUFFICIENT_SCOPE'],
  404: ['invalid_request_error', 'RESOURCE_NOT_FOUND'],
  409: ['invalid_request_error', 'INVALID_TRANSITION'],
  422: ['invalid_request_error', 'INSUFFICIENT_STOCK'],
  429: ['rate_limit_error', 'RATE_LIMITED'],
} as const;

/** The contract's operations: reads far more often than writes, as partners call them. */
export function loggedOperations(): { operation: string; method: string; path: string }[] {
  const doc = buildOpenApiDocument();
  const out: { operation: string; method: string; path: string }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      const id = (op as { operationId?: string }).operationId;
      if (!id) continue;
      // GETs weigh four times a write.
      const copies = method === 'get' ? 4 : 1;
      for (let i = 0; i < copies; i++) out.push({ operation: id, method: method.toUpperCase(), path });
    }
  }
  return out;
}

/** The credentials a store's requests come from: its keys' prefixes, and apps. */
export interface LogCredentials {
  keys: { id: number; prefix: string }[];
  apps: { id: number; clientId: string; name: string }[];
}

/**
 * Loads `n` rows of `storeId`'s live log over the last 7 days, in time order, one transaction per
 * 100,000: a tenth from apps, POSTs with an Idempotency-Key (a few replayed), statuses and errors as
 * above.
 */
export async function seedRequestLog(
  pool: pg.Pool,
  storeId: number,
  n: number,
  who: LogCredentials,
): Promise<void> {
  const ops = loggedOperations();
  const errorOf = (s: number) => ERROR[s as keyof typeof ERROR] ?? [null, null];
  for (let done = 0; done < n; done += 100_000) {
    const batch = Math.min(100_000, n - done);
    await pool.query(
      `INSERT INTO request_log (store_id, livemode, request_id, method, path, query, operation, status,
         error_type, error_code, duration_ms, credential_type, credential_id, credential_prefix, app_id,
         app_client_id, app_name, idempotency_key, replayed, user_agent, created_at)
       SELECT $1, true, 'req_bench' || ($2::int + g), op.method, op.path, NULL, op.operation, st.s,
         ($9::text[])[st.i], ($10::text[])[st.i], 1 + (g % 97) / 3.0,
         CASE WHEN app THEN 'app' ELSE 'api_key' END,
         CASE WHEN app THEN ($13::int[])[1 + g % cardinality($13)] ELSE ($11::int[])[1 + g % cardinality($11)] END,
         CASE WHEN app THEN NULL ELSE ($12::text[])[1 + g % cardinality($12)] END,
         CASE WHEN app THEN ($13::int[])[1 + g % cardinality($13)] END,
         CASE WHEN app THEN ($14::text[])[1 + g % cardinality($14)] END,
         CASE WHEN app THEN ($15::text[])[1 + g % cardinality($15)] END,
         CASE WHEN op.method = 'POST' THEN 'idem-' || ($2::int + g) END,
         op.method = 'POST' AND g % 50 = 0, 'stockless-bench/1.0',
         now() - interval '7 days' + (($2::int + g) * (interval '7 days' / $3::int))
       FROM generate_series(1, $4::int) g,
         LATERAL (SELECT g % 10 = 0 AS app) a,
         LATERAL (SELECT ($5::text[])[1 + ((g::bigint * 7919) % cardinality($5))::int] AS operation,
                         ($6::text[])[1 + ((g::bigint * 7919) % cardinality($5))::int] AS method,
                         ($7::text[])[1 + ((g::bigint * 7919) % cardinality($5))::int] AS path) op,
         LATERAL (SELECT ($8::int[])[1 + ((g::bigint * 104729) % cardinality($8))::int] AS s,
                         1 + ((g::bigint * 104729) % cardinality($8))::int AS i) st`,
      [
        storeId,
        done,
        n,
        batch,
        ops.map((o) => o.operation),
        ops.map((o) => o.method),
        ops.map((o) => o.path),
        STATUSES,
        STATUSES.map((s) => errorOf(s)[0]),
        STATUSES.map((s) => errorOf(s)[1]),
        who.keys.map((k) => k.id),
        who.keys.map((k) => k.prefix),
        who.apps.map((a) => a.id),
        who.apps.map((a) => a.clientId),
        who.apps.map((a) => a.name),
      ],
    );
  }
}

/** `n` finished exports of the store over the last 7 days (50 a day at most, as the limit allows). */
export async function seedExports(pool: pg.Pool, storeId: number, n: number): Promise<void> {
  await pool.query(
    `INSERT INTO exports (store_id, livemode, type, status, rows_written, row_count, bytes, file_key,
       created_at, started_at, completed_at, expires_at)
     SELECT $1, true, (ARRAY['catalogue', 'listings', 'orders'])[1 + g % 3],
       CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'completed' END, 1000, 1000, 65536, NULL,
       now() - interval '7 days' + g * (interval '7 days' / $2::int), now(), now(), now() + interval '7 days'
     FROM generate_series(1, $2::int) g`,
    [storeId, n],
  );
}

/** The store's keys as the log names them, and three apps (ids no real app has). */
export async function logCredentials(pool: pg.Pool, storeId: number): Promise<LogCredentials> {
  const { rows } = await pool.query<{ id: number; prefix: string }>(
    'SELECT id, token_prefix AS prefix FROM api_keys WHERE store_id = $1 AND mode = $2 ORDER BY id LIMIT 5',
    [storeId, 'live'],
  );
  const apps = [1, 2, 3].map((i) => ({
    id: 900_000 + i,
    clientId: `bench-app-${i}`,
    name: `Bench App ${i}`,
  }));
  return { keys: rows.length ? rows : [{ id: 0, prefix: 'sl_live_bench' }], apps };
}
