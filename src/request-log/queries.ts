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
  return wholeStore(actor) ? owned : sql`${owned} AND r.app_id = ${actor.appId ?? -1}`;
}

function wholeStore(actor: Actor): boolean {
  return actor.kind === 'api_key' || actor.mcpScopes?.has('manage_webhooks') === true;
}

const CLASS_BOUNDS = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

/** At most this many of the log's rows are read for one page of combined filters. */
export const WINDOW_ROWS = 2_000;

/**
 * How a page is read: `branches` are the driving conditions, each walked newest first on an index of
 * its own (more than one: merged, as `credential` names a key prefix or an app); `residual` are the
 * filters checked on the rows walked. With no residual a page reads only matching rows; with one, it
 * reads at most WINDOW_ROWS rows, so a rare combination answers a short page rather than walking the
 * store's week.
 */
interface ReadPlan {
  base: RawBuilder<unknown>[];
  branches: RawBuilder<unknown>[];
  residual: RawBuilder<unknown>[];
}

function credentialIs(value: string, driving: boolean): RawBuilder<unknown>[] {
  const app = sql`r.app_id = (SELECT c.id FROM oauth_clients c WHERE c.client_id = ${value})`;
  const prefix = sql`r.credential_prefix = ${value}`;
  return driving ? [prefix, app] : [sql`(${prefix} OR ${app})`];
}

function readPlan(actor: Actor, input: ListRequestsInput, from: Position | null): ReadPlan {
  const base = [readable(actor)];
  if (input.created_gte) base.push(sql`r.created_at >= ${input.created_gte}::timestamptz`);
  if (input.created_lt) base.push(sql`r.created_at < ${input.created_lt}::timestamptz`);
  if (from) base.push(sql`(r.created_at, r.id) < (${from.createdAt}::timestamptz, ${from.id}::bigint)`);
  const filters: [keyof ListRequestsInput, () => RawBuilder<unknown>[], boolean][] = [
    ['idempotency_key', () => [sql`r.idempotency_key = ${input.idempotency_key}`], false],
    ['credential', () => credentialIs(input.credential ?? '', true), false],
    ['operation', () => [sql`r.operation = ${input.operation}`], false],
    ['status', () => [sql`r.status = ${input.status}`], false],
  ];
  // An app token's own list is already one index (its app's rows): every filter is checked on it.
  const appOnly = !wholeStore(actor);
  const chosen = appOnly ? undefined : filters.find(([name]) => input[name] !== undefined);
  const residual: RawBuilder<unknown>[] = [];
  for (const [name, conds] of filters) {
    if (input[name] === undefined || name === chosen?.[0]) continue;
    residual.push(...(name === 'credential' ? credentialIs(input.credential ?? '', false) : conds()));
  }
  // A status is already in its class (the list refuses one that is not).
  if (input.status_class && input.status === undefined) {
    const [lo, hi] = CLASS_BOUNDS[input.status_class];
    residual.push(sql`r.status BETWEEN ${lo} AND ${hi}`);
  }
  return { base, branches: chosen ? chosen[1]() : [sql`true`], residual };
}

/** The rows the plan walks, newest first, at most `limit` of them (each branch on its own index). */
function walked(plan: ReadPlan, columns: RawBuilder<unknown>, limit: number) {
  const branch = (cond: RawBuilder<unknown>) =>
    sql`(SELECT ${columns} FROM request_log r WHERE ${sql.join([...plan.base, cond], sql` AND `)}
      ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit})`;
  if (plan.branches.length === 1) return branch(plan.branches[0] as RawBuilder<unknown>);
  return sql`(SELECT * FROM (${sql.join(plan.branches.map(branch), sql` UNION ALL `)}) b
    ORDER BY b.created_at DESC, b.id DESC LIMIT ${limit})`;
}

/** A page's row; under combined filters, also the window read (on every row, and on one row with no match). */
export type PageRow = LogRow & {
  window_rows: number | null;
  edge_position: string | null;
  edge_id: string | null;
};

/**
 * A page of the log, newest first by arrival (ties by id), after `from`: `limit` rows at most, from
 * the rows the plan walks (all matching ones, or a window of WINDOW_ROWS when filters combine). A
 * windowed page also answers how many rows its window held and the oldest of them (where the next page
 * reads on), in the same statement: with no match it is one row of those alone.
 */
export function pageQuery(actor: Actor, input: ListRequestsInput, from: Position | null, limit: number) {
  const plan = readPlan(actor, input, from);
  if (plan.residual.length === 0) {
    return {
      windowed: false,
      query: sql<PageRow>`SELECT ${COLUMNS}, NULL::integer AS window_rows, NULL::text AS edge_position,
          NULL::text AS edge_id
        FROM ${walked(plan, sql`r.*`, limit)} r ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit}`,
    };
  }
  return {
    windowed: true,
    query: sql<PageRow>`WITH w AS MATERIALIZED ${walked(plan, sql`r.*`, WINDOW_ROWS)},
      edge AS (SELECT (SELECT count(*) FROM w)::integer AS window_rows, e.created_at::text AS edge_position,
          e.id::text AS edge_id
        FROM (SELECT 1) one
        LEFT JOIN LATERAL (SELECT w.created_at, w.id FROM w ORDER BY w.created_at, w.id LIMIT 1) e ON true)
      SELECT p.*, edge.* FROM edge LEFT JOIN LATERAL (
        SELECT ${COLUMNS}, r.created_at AS sort_at, r.id AS sort_id FROM w r
        WHERE ${sql.join(plan.residual, sql` AND `)}
        ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit}) p ON true
      ORDER BY p.sort_at DESC NULLS LAST, p.sort_id DESC`,
  };
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
