import { createHmac, randomBytes } from 'node:crypto';
import type { Stockless } from './client.ts';
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
  signal?: AbortSignal;
  /** How each delivery is sent (default: the global `fetch`). */
  fetch?: typeof globalThis.fetch;
  /** How long the local endpoint may take, in ms (default 10 000, as a real delivery). */
  timeoutMs?: number;
}

/** POSTs one event to the local endpoint as a delivery would arrive, and reports its answer. */
export async function forwardEvent(event: StocklessEvent, o: ListenOptions): Promise<Forwarded> {
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
 * in the log's order. Answers the cursor to resume from.
 */
export async function listen(client: Stockless, o: ListenOptions): Promise<string | undefined> {
  const type = o.events?.length ? o.events : undefined;
  // From now on unless resuming: the log keeps 30 days, a listener wants what happens next. The
  // newest event's position is the server's "now" (a client clock ahead of it would drop events).
  const cursor =
    o.cursor ?? (await client.events.list({ order: 'desc', limit: 1 }, { signal: o.signal })).next_cursor;
  const stream = client.events.iterate({
    cursor,
    type,
    order: 'asc',
    follow: 25,
    limit: 100,
    signal: o.signal,
  });
  try {
    for await (const event of stream) o.onForward?.(await forwardEvent(event, o));
  } catch (err) {
    if (!o.signal?.aborted) throw err;
  }
  return stream.cursor;
}

/** One line per forwarded event: `12:01:02  order.created  evt_12  → 200 (14 ms)`. */
export function describeForwarded(f: Forwarded): string {
  const time = new Date().toISOString().slice(11, 19);
  const answer = f.status === undefined ? `failed: ${f.error}` : String(f.status);
  return `${time}  ${f.event.event.padEnd(18)} ${f.event.id.padEnd(12)} → ${answer} (${Math.round(f.ms)} ms)`;
}
