/**
 * Failures that are the replica's, not the read's: the read runs again on the primary, and the
 * partner never sees them (docs/scaling.md §4).
 */

/** Replay cancelled the statement (a recovery conflict): 40001, or 40P01 for a buffer-pin deadlock. */
const CONFLICT_CODES = new Set(['40001', '40P01']);
/**
 * The replica cannot serve: it is shutting down or starting (57P01-57P03), connection exceptions
 * (class 08), or the socket-level errors of a server that is gone.
 */
const DOWN_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
const DOWN_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect/i;

export type ReplicaFailure = 'conflict' | 'down';

/** What the failure says about the replica, looking through the wrappers (tRPC's, MikroORM's). */
export function replicaFailure(err: unknown): ReplicaFailure | undefined {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { code, sqlState, message } = e as { code?: unknown; sqlState?: unknown; message?: unknown };
    for (const c of [code, sqlState]) {
      if (typeof c !== 'string') continue;
      if (CONFLICT_CODES.has(c)) return 'conflict';
      if (DOWN_CODES.has(c) || c.startsWith('08')) return 'down';
    }
    if (typeof message === 'string' && DOWN_MESSAGES.test(message)) return 'down';
  }
  return undefined;
}
