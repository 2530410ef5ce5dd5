import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../trpc/errors.ts';

export interface LimitResult {
  limit: number;
  remaining: number;
  resetSeconds: number;
  allowed: boolean;
}

/**
 * A fixed-window counter kept in PostgreSQL, so every server process shares it: one upsert per
 * request, atomic under any concurrency.
 */
export async function hitLimit(
  em: EntityManager,
  key: string,
  limit: number,
  windowSeconds = 60,
): Promise<LimitResult> {
  const [row] = await rows<{ hits: number; reset: number }>(
    em,
    sql`INSERT INTO rate_limit_windows (key, window_start, hits)
      VALUES (${key}, to_timestamp(floor(extract(epoch FROM now()) / ${windowSeconds}) * ${windowSeconds}), 1)
      ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
      RETURNING hits, GREATEST(1, ceil(extract(epoch FROM window_start + ${windowSeconds} * interval '1 second' - now())))::integer AS reset`,
  );
  const hits = row?.hits ?? 1;
  return {
    limit,
    remaining: Math.max(0, limit - hits),
    resetSeconds: row?.reset ?? windowSeconds,
    allowed: hits <= limit,
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
): Promise<Record<string, string>> {
  const r = await hitLimit(em, key, limit);
  const headers = limitHeaders(r);
  if (!r.allowed) {
    throw new AppError(
      'rate_limited',
      'RATE_LIMITED',
      `Rate limit of ${limit} requests per minute reached; retry later`,
      {
        headers: { ...headers, 'Retry-After': String(r.resetSeconds) },
        extra: { retry_after: r.resetSeconds },
      },
    );
  }
  return headers;
}

/** Old windows are useless after their minute: dropped by an hourly job. */
export async function pruneLimitWindows(em: EntityManager): Promise<void> {
  await rows(em, sql`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '1 hour'`);
}

/** The per-store, per-app request limit's key. */
export const appLimitKey = (actor: { storeId: number; appId?: number }) =>
  `app:${actor.storeId}:${actor.appId ?? 0}`;
