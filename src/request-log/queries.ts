import type { Actor } from '../auth/actor.ts';
import { ownedBy } from '../db/owned-by.ts';
import { type RawBuilder, sql } from '../db/sql.ts';
import type { Position } from './cursor.ts';
import type { ListRequestsInput, LoggedRequest } from './schemas.ts';

/** A row as the log answers it (timestamps as ISO text from PostgreSQL, `position` for the cursor). */
export interface LogRow {
  id: string;
  position: string;
  request_id: string;
  method: string;
  path: string;
  query: string | null;
  operation: string | null;
  status: number;
  error_type: string | null;
  error_code: string | null;
  duration_ms: number;
  credential_type: LoggedRequest['credential']['type'];
  credential_prefix: string | null;
  app_client_id: string | null;
  app_name: string | null;
  idempotency_key: string | null;
  replayed: boolean;
  user_agent: string | null;
  created_at: string;
  livemode: boolean;
}

const COLUMNS = sql`r.id::text AS id, r.created_at::text AS position, r.request_id, r.method, r.path, r.query,
  r.operation, r.status, r.error_type, r.error_code, r.duration_ms, r.credential_type, r.credential_prefix,
  r.app_client_id, r.app_name, r.idempotency_key, r.replayed, r.user_agent,
  to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.livemode`;

/**
 * Whose rows the credential reads: an API key (and the store owner's MCP assistant with
 * manage_webhooks) the store's whole log in its mode; an app token only the requests its own app made.
 */
function readable(actor: Actor): RawBuilder<unknown> {
  const owned = ownedBy(actor, 'request_log as r');
  const wholeStore = actor.kind === 'api_key' || actor.mcpScopes?.has('manage_webhooks') === true;
  return wholeStore ? owned : sql`${owned} AND r.app_id = ${actor.appId ?? -1}`;
}

const CLASS_BOUNDS = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

function filters(input: ListRequestsInput): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [];
  if (input.status !== undefined) conds.push(sql`r.status = ${input.status}`);
  if (input.status_class) {
    const [lo, hi] = CLASS_BOUNDS[input.status_class];
    conds.push(sql`r.status BETWEEN ${lo} AND ${hi}`);
  }
  if (input.operation) conds.push(sql`r.operation = ${input.operation}`);
  if (input.created_gte) conds.push(sql`r.created_at >= ${input.created_gte}::timestamptz`);
  if (input.created_lt) conds.push(sql`r.created_at < ${input.created_lt}::timestamptz`);
  if (input.idempotency_key) conds.push(sql`r.idempotency_key = ${input.idempotency_key}`);
  if (input.credential) {
    conds.push(sql`(r.credential_prefix = ${input.credential} OR r.app_client_id = ${input.credential})`);
  }
  return conds;
}

/**
 * A page of the log, newest first by arrival (ties by id), after `from`. The store's rows of 7 days are
 * walked backwards on `request_log_list_idx` (or `request_log_status_idx` for one status), so a page
 * costs its rows plus the rows the filters pass over.
 */
export function pageQuery(actor: Actor, input: ListRequestsInput, from: Position | null, limit: number) {
  const conds = [readable(actor), ...filters(input)];
  if (from) conds.push(sql`(r.created_at, r.id) < (${from.createdAt}::timestamptz, ${from.id}::bigint)`);
  return sql<LogRow>`SELECT ${COLUMNS} FROM request_log r WHERE ${sql.join(conds, sql` AND `)}
    ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit}`;
}

/** One request by its id (a client may reuse its own X-Request-Id: the newest such request). */
export function requestQuery(actor: Actor, requestId: string) {
  return sql<LogRow>`SELECT ${COLUMNS} FROM request_log r
    WHERE ${readable(actor)} AND r.request_id = ${requestId}
    ORDER BY r.created_at DESC, r.id DESC LIMIT 1`;
}

export function toLoggedRequest(r: LogRow): LoggedRequest {
  return {
    id: r.request_id,
    method: r.method,
    path: r.path,
    query: r.query,
    operation: r.operation,
    status: r.status,
    error: r.error_type ? { type: r.error_type, code: r.error_code } : null,
    duration_ms: r.duration_ms,
    credential: { type: r.credential_type, prefix: r.credential_prefix },
    app: r.app_client_id ? { client_id: r.app_client_id, name: r.app_name ?? '' } : null,
    idempotency_key: r.idempotency_key,
    replayed: r.replayed,
    user_agent: r.user_agent,
    created_at: r.created_at,
    livemode: r.livemode,
  };
}
