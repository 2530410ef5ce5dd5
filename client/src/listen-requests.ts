import type { Stockless } from './client.ts';
import { describeRequest, type RequestTailFilters } from './request-log.ts';

type Values = Record<string, string | boolean | undefined>;

/** The tail's filters from the command's flags; a malformed one ends the command with its usage. */
export function requestFilters(
  values: Values,
  str: (v: string | boolean | undefined) => string | undefined,
  fail: (message: string) => never,
): RequestTailFilters {
  const statusClass = str(values['status-class']);
  if (statusClass !== undefined && !['2xx', '4xx', '5xx'].includes(statusClass))
    fail(`--status-class ${statusClass}: expected 2xx, 4xx or 5xx`);
  const status = str(values.status);
  if (status !== undefined && !/^[1-5]\d\d$/.test(status))
    fail(`--status ${status}: expected an HTTP status`);
  return {
    status_class: statusClass as RequestTailFilters['status_class'],
    status: status === undefined ? undefined : Number(status),
    operation: str(values.operation),
    credential: str(values.credential),
  };
}

/**
 * `listen --requests`: prints each new request of the store's log, one line each, until Ctrl-C (exit
 * 0); a refused credential or filter prints the API's own words (exit 1).
 */
export async function followRequests(
  client: Stockless,
  filters: RequestTailFilters,
  print: (line: string) => void = console.log,
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, onSignal);
  try {
    print("Following the store's request log (Ctrl-C to stop)");
    for await (const r of client.requests.tail({ ...filters, signal: stop.signal }))
      print(describeRequest(r));
    return 0;
  } catch (err) {
    if (stop.signal.aborted) return 0;
    print(err instanceof Error ? err.message : String(err));
    return 1;
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, onSignal);
  }
}
