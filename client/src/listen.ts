import { createHmac, randomBytes } from 'node:crypto';
import type { Stockless } from './client.ts';
import { StocklessConnectionError, StocklessError } from './errors.ts';
import type { StocklessEvent } from './pagination.ts';
import { signWebhook } from './webhooks.ts';

/** A signing secret for local development, shaped as a subscription's (`whsec_` + base64 of 32 bytes). */
export function developmentSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The headers a real delivery carries for this body, signed with `secret` as Stockless signs: the
 * `X-Stockless-Signature` (`t=…,v1=…`) and the Standard Webhooks trio, so either library verifies it.
 */
export function deliveryHeaders(
  event: Pick<StocklessEvent, 'id' | 'event' | 'event_key'>,
  body: string,
  secret: string,
  now = new Date(),
): Record<string, string> {
  const t = Math.floor(now.getTime() / 1000);
  // As real deliveries: the Standard Webhooks id is the event's (`msg_<n>` for `evt_<n>`), so a consumer
  // that de-duplicates on it behaves here as in production.
  const messageId = `msg_${event.id.replace(/^evt_/, '')}`;
  const deliveryId = `listen:${event.event_key}:1`;
  const standardKey = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const standard = createHmac('sha256', standardKey).update(`${messageId}.${t}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'user-agent': 'Stockless-Listen/1',
    'x-stockless-event': event.event,
    'x-stockless-event-id': event.id,
    'x-stockless-delivery-id': deliveryId,
    'x-stockless-signature': signWebhook(body, secret, t),
    'webhook-id': messageId,
    'webhook-timestamp': String(t),
    'webhook-signature': `v1,${standard}`,
  };
}

/** One event forwarded, with the local endpoint's answer (or why there was none). */
export interface Forwarded {
  event: StocklessEvent;
  status?: number;
  error?: string;
  ms: number;
}

/** The listener's link to the API: lost (with when it tries again) and back. */
export type ConnectionChange =
  | { state: 'lost'; error: string; retryInMs: number }
  | { state: 'restored'; downMs: number };

export interface ListenOptions {
  /** Where each event is POSTed, e.g. `http://localhost:4242/hook`. */
  forwardTo: string;
  /** The signing secret the deliveries are signed with (default: a new development secret). */
  secret: string;
  /** Event names and `<group>.*` prefixes; absent = every event the credential can read. */
  events?: readonly string[];
  /** Where to start: a stored `next_cursor`, or absent for events from now on. */
  cursor?: string;
  /** Told of every forwarded event, in order. */
  onForward?: (forwarded: Forwarded) => void;
  /** Told when the API cannot be reached (a restart, a network cut) and when it answers again. */
  onConnection?: (change: ConnectionChange) => void;
  signal?: AbortSignal;
  /** How each delivery is sent (default: the global `fetch`). */
  fetch?: typeof globalThis.fetch;
  /** How long the local endpoint may take, in ms (default 10 000, as a real delivery). */
  timeoutMs?: number;
  /** The longest wait between reconnection attempts, in ms (default 30 000). */
  maxBackoffMs?: number;
}

/** What forwarding one event needs. */
export type ForwardOptions = Pick<ListenOptions, 'forwardTo' | 'secret' | 'fetch' | 'timeoutMs' | 'signal'>;

/** POSTs one event to the local endpoint as a delivery would arrive, and reports its answer. */
export async function forwardEvent(event: StocklessEvent, o: ForwardOptions): Promise<Forwarded> {
  const body = JSON.stringify(event);
  const started = performance.now();
  const signal = AbortSignal.any([
    AbortSignal.timeout(o.timeoutMs ?? 10_000),
    ...(o.signal ? [o.signal] : []),
  ]);
  try {
    const res = await (o.fetch ?? globalThis.fetch)(o.forwardTo, {
      method: 'POST',
      headers: deliveryHeaders(event, body, o.secret),
      body,
      redirect: 'manual',
      signal,
    });
    await res.body?.cancel();
    return { event, status: res.status, ms: performance.now() - started };
  } catch (err) {
    const error =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return { event, error, ms: performance.now() - started };
  }
}

/**
 * Follows the store's event log (a long poll on GET /api/v1/events) and forwards each event to a local
 * URL, signed exactly as a webhook delivery: a webhook consumer can be developed on localhost with no
 * certificate, no public address and no subscription. Runs until `signal` aborts; one event at a time,
 * in the log's order. When the API cannot be reached (it restarts, the network drops), it waits with
 * backoff and resumes from where it was, never skipping an event. Answers the cursor to resume from.
 */
export async function listen(client: Stockless, o: ListenOptions): Promise<string | undefined> {
  const type = o.events?.length ? o.events.join(',') : undefined;
  const link = new Link(o);
  const { signal } = o;
  // From now on unless resuming: the log keeps 30 days, a listener wants what happens next. The
  // newest event's position is the server's "now" (a client clock ahead of it would drop events).
  let cursor =
    o.cursor ??
    (await link.call(() => client.events.list({ order: 'desc', limit: 1 }, { signal })))?.next_cursor;
  while (!signal?.aborted) {
    const page = await link.call(() =>
      client.events.list({ cursor, type, order: 'asc', wait: 25, limit: 100 }, { signal }),
    );
    if (!page) break;
    for (const event of page.events) o.onForward?.(await forwardEvent(event, o));
    cursor = page.next_cursor;
  }
  return cursor;
}

/** What waiting for the API needs: when to give up, whom to tell, how long to wait at most. */
export type ReachOptions = Pick<ListenOptions, 'signal' | 'onConnection' | 'maxBackoffMs'>;

/**
 * Runs `call` until the API answers it: a refused connection, a 5xx or a 429 is waited out with
 * backoff (told to `onConnection`), anything else is thrown. Undefined once `signal` aborts.
 */
export function whenReachable<T>(call: () => Promise<T>, o: ReachOptions): Promise<T | undefined> {
  return new Link(o).call(call);
}

/** The API's reachability as one caller sees it: backoff while down, one message each way. */
class Link {
  #failures = 0;
  #downSince: number | undefined;
  readonly #o: ReachOptions;

  constructor(o: ReachOptions) {
    this.#o = o;
  }

  async call<T>(call: () => Promise<T>): Promise<T | undefined> {
    while (!this.#o.signal?.aborted) {
      try {
        const answer = await call();
        this.#up();
        return answer;
      } catch (err) {
        if (this.#o.signal?.aborted) break;
        if (!transient(err)) throw err;
        await this.#down(err as Error);
      }
    }
    return undefined;
  }

  async #down(err: Error) {
    this.#downSince ??= Date.now();
    const retryInMs = Math.min(this.#o.maxBackoffMs ?? 30_000, 1000 * 2 ** this.#failures++);
    this.#o.onConnection?.({ state: 'lost', error: err.message, retryInMs });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, retryInMs);
      this.#o.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #up() {
    if (this.#downSince !== undefined)
      this.#o.onConnection?.({ state: 'restored', downMs: Date.now() - this.#downSince });
    this.#downSince = undefined;
    this.#failures = 0;
  }
}

/** A failure a restart or a network cut explains: worth waiting out. */
function transient(err: unknown): boolean {
  if (err instanceof StocklessConnectionError) return true;
  return err instanceof StocklessError && (err.status >= 500 || err.status === 429);
}

/**
 * Forwards one event again, by id (`evt_…`): what a listener prints when the local endpoint was down
 * or answered an error. Signed afresh, as a real delivery's retry is.
 */
export async function resendEvent(client: Stockless, id: string, o: ForwardOptions): Promise<Forwarded> {
  const { event } = await client.events.retrieve(id, { signal: o.signal });
  return forwardEvent(event, o);
}

/** One line per forwarded event: `12:01:02  order.created  evt_12  → 200 (14 ms)`. */
export function describeForwarded(f: Forwarded): string {
  const time = new Date().toISOString().slice(11, 19);
  const answer = f.status === undefined ? `failed: ${f.error}` : String(f.status);
  // A receiver that was down or failed can be sent the event again once fixed.
  const again = f.status === undefined || f.status >= 400 ? `  (resend: --resend ${f.event.id})` : '';
  return `${time}  ${f.event.event.padEnd(18)} ${f.event.id.padEnd(12)} → ${answer} (${Math.round(f.ms)} ms)${again}`;
}

/** One line for a change of the listener's link: `… Retrying in 4 s.` / `Connected again after 9 s; resuming.` */
export function describeConnection(change: ConnectionChange, hint = ''): string {
  if (change.state === 'restored')
    return `Connected again after ${Math.round(change.downMs / 1000)} s; resuming.`;
  return `${change.error} Retrying in ${Math.round(change.retryInMs / 1000)} s${hint ? ` (${hint})` : ''}.`;
}
