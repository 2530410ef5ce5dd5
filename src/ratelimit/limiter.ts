import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { countRefusal } from '../metrics/registry.ts';

export interface LimitResult {
  limit: number;
  remaining: number;
  /** Seconds until the whole allowance is back. */
  resetSeconds: number;
  /** Seconds until one more request is allowed (0 when this one was). */
  retryAfterSeconds: number;
  allowed: boolean;
}

/**
 * GCRA (the generic cell rate algorithm: a token bucket kept as one timestamp) in PostgreSQL, so
 * every server process shares it exactly. `limit` requests may come at once; after that one more
 * every `window / limit`. No instant can let more through, unlike fixed windows, where a burst
 * across a window's end passed twice the limit. One upsert per request, atomic under any
 * concurrency: a refused request changes nothing.
 */
export async function hitLimit(
  em: EntityManager,
  key: string,
  limit: number,
  windowSeconds = 60,
  cost = 1,
): Promise<LimitResult> {
  // A request that stands for `cost` requests (an MCP batch) moves the key as far as they would.
  const unit = windowSeconds / limit;
  const interval = unit * cost;
  // `ahead`: how far the key's theoretical arrival time runs ahead of now, in seconds; a request is
  // allowed while that stays within the window. `granted` is null when it was refused.
  const [row] = await rows<{ granted: number | null; ahead: number }>(
    em,
    sql`WITH hit AS (
        INSERT INTO rate_limits AS r (key, tat)
        VALUES (${key}, now() + make_interval(secs => ${interval}))
        ON CONFLICT (key) DO UPDATE SET tat = GREATEST(r.tat, now()) + make_interval(secs => ${interval})
          WHERE GREATEST(r.tat, now()) + make_interval(secs => ${interval}) <= now() + make_interval(secs => ${windowSeconds})
        RETURNING tat)
      SELECT extract(epoch FROM (SELECT tat FROM hit) - now())::float8 AS granted,
        GREATEST(0, extract(epoch FROM (SELECT tat FROM rate_limits WHERE key = ${key}) - now()))::float8 AS ahead`,
  );
  const granted = row?.granted ?? null;
  if (granted !== null) {
    return {
      limit,
      // Float noise must not take a whole request away: 1e-6 s is far below any interval.
      remaining: Math.max(0, Math.floor((windowSeconds - granted) / unit + 1e-6)),
      resetSeconds: Math.max(1, Math.ceil(granted - 1e-6)),
      retryAfterSeconds: 0,
      allowed: true,
    };
  }
  countRefusal(key);
  // The statement's own read of the key may predate a concurrent request it waited for (it saw the
  // row as it was when the statement began): a refusal reads the key again, as it is now, so
  // Retry-After is never shorter than the real wait.
  const [now] = await rows<{ ahead: number }>(
    em,
    sql`SELECT GREATEST(0, extract(epoch FROM tat - now()))::float8 AS ahead FROM rate_limits WHERE key = ${key}`,
  );
  const ahead = Math.max(row?.ahead ?? 0, now?.ahead ?? windowSeconds);
  return {
    limit,
    remaining: 0,
    resetSeconds: Math.max(1, Math.ceil(ahead - 1e-6)),
    retryAfterSeconds: Math.max(1, Math.ceil(ahead + interval - windowSeconds - 1e-6)),
    allowed: false,
  };
}

export function limitHeaders(r: LimitResult): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(r.limit),
    'X-RateLimit-Remaining': String(r.remaining),
    'X-RateLimit-Reset': String(r.resetSeconds),
  };
}

/** Applies a limit: the headers for the answer, or a 429 carrying them and `Retry-After`. */
export async function enforceLimit(
  em: EntityManager,
  key: string,
  limit: number,
  cost = 1,
): Promise<Record<string, string>> {
  const r = await hitLimit(em, key, limit, 60, cost);
  const headers = limitHeaders(r);
  if (!r.allowed) {
    throw new AppError(
      'rate_limited',
      'RATE_LIMITED',
      `Rate limit of ${limit} requests per minute reached; retry later`,
      {
        headers: { ...headers, 'Retry-After': String(r.retryAfterSeconds) },
        extra: { retry_after: r.retryAfterSeconds },
      },
    );
  }
  return headers;
}

/** A key whose allowance is whole again is the same as no key: dropped by an hourly job. */
export async function pruneLimits(em: EntityManager): Promise<void> {
  await rows(em, sql`DELETE FROM rate_limits WHERE tat < now()`);
}

/** The limits a request was counted against: the headers its answer carries, or the 429 it gets. */
export interface ChargedLimits {
  headers: Record<string, string>;
  refusal?: AppError;
}
