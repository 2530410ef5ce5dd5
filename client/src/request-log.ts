import type { ListRequestsQuery, ListRequestsResponse, LoggedRequest } from './generated/openapi-types.ts';

type ListPage = (query: ListRequestsQuery, signal?: AbortSignal) => Promise<ListRequestsResponse>;

/**
 * Every logged request matching `query`, newest first, page after page (`next_cursor`); breaking out
 * of the loop stops the reads.
 */
export async function* iterateRequests(
  list: ListPage,
  query: ListRequestsQuery = {},
  signal?: AbortSignal,
): AsyncGenerator<LoggedRequest, void, undefined> {
  let cursor = query.cursor;
  for (;;) {
    const page = await list({ ...query, cursor }, signal);
    yield* page.requests;
    if (!page.has_more || !page.next_cursor) return;
    cursor = page.next_cursor;
  }
}

/** The request log's filters a tail takes (no cursor, no time: it follows from now). */
export type RequestTailFilters = Omit<ListRequestsQuery, 'cursor' | 'created_gte' | 'created_lt' | 'limit'>;

export interface RequestTailOptions extends RequestTailFilters {
  /** Between polls, in ms (default 1 000). */
  intervalMs?: number;
  /**
   * How far back each poll looks, in ms (default 60 000): a request shows in the log when its answer
   * was sent and its batch written, so a slow one arrives later than requests after it.
   */
  lookbackMs?: number;
  signal?: AbortSignal;
  /** The clock (tests). */
  now?: () => number;
}

/** The request log's own reads: the tail's polls would otherwise print themselves. */
const OWN_READS = new Set(['listRequests', 'getRequest']);

/**
 * Follows the store's request log like `stripe logs tail`: polls the newest requests with the log's
 * filters and yields each request once, oldest first, from the moment it starts (what was already
 * logged is not shown). Each poll reads the last `lookbackMs` and skips the ids it has shown, so a
 * request that shows late (a long request, another process's batch) still appears. The log's own
 * reads (the tail's polls among them) are left out unless `operation` asks for one.
 */
export async function* tailRequests(
  list: ListPage,
  options: RequestTailOptions = {},
): AsyncGenerator<LoggedRequest, void, undefined> {
  const { intervalMs = 1000, lookbackMs = 60_000, signal, now = Date.now, ...filters } = options;
  const seen = new Map<string, number>();
  let first = true;
  while (!signal?.aborted) {
    const since = now() - lookbackMs;
    const fresh: LoggedRequest[] = [];
    for await (const r of iterateRequests(
      list,
      { ...filters, created_gte: new Date(since).toISOString(), limit: 100 },
      signal,
    )) {
      const key = `${r.id} ${r.created_at}`;
      if (seen.has(key)) continue;
      seen.set(key, Date.parse(r.created_at));
      if (!first && (filters.operation || !OWN_READS.has(r.operation ?? ''))) fresh.push(r);
    }
    for (const [key, at] of seen) if (at < since - lookbackMs) seen.delete(key);
    first = false;
    yield* fresh.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    await pause(intervalMs, signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** One line per request, as the tail prints it: time, status, method, path, duration, request id (and an error's code). */
export function describeRequest(r: LoggedRequest): string {
  const path = r.query ? `${r.path}?${r.query}` : r.path;
  const code = r.error?.code ? `  ${r.error.code}` : '';
  const replay = r.replayed ? '  (replayed)' : '';
  return `${r.created_at}  ${r.status}  ${r.method.padEnd(6)} ${path}  ${r.duration_ms.toFixed(1)} ms  ${r.id}${code}${replay}`;
}
