import { eventId } from '../../events/envelope.ts';
import type { WebhookSettings } from '../../settings.ts';
import { inAttemptSpan } from './attempt-span.ts';
import { rememberUpTo } from './bounded-cache.ts';
import { postWebhook } from './post-webhook.ts';
import type { Claimed } from './round.ts';
import { signatureHeaders } from './signature-headers.ts';
import { decryptSecret } from './signing-secrets.ts';
import { resolveTarget } from './url-guard.ts';

export type Outcome = 'succeeded' | 'failed' | 'gone' | 'refused';

export interface Attempted {
  delivery: Claimed;
  outcome: Outcome;
  status: number | null;
  error: string | null;
  durationMs: number;
}

const secrets = rememberUpTo<string>(1000);

/** Decrypted once per stored ciphertext (a rotation stores a new one). */
function secretOf(key: Buffer, encrypted: string): string {
  return secrets(encrypted, () => decryptSecret(key, encrypted));
}

/** One attempt; never throws, so one broken delivery cannot stop the others. */
export function attemptDelivery(d: Claimed, s: WebhookSettings, key: Buffer): Promise<Attempted> {
  return inAttemptSpan(d, (traceHeaders) => sendOrFail(d, s, key, traceHeaders));
}

async function sendOrFail(
  d: Claimed,
  s: WebhookSettings,
  key: Buffer,
  traceHeaders: Record<string, string>,
): Promise<Attempted> {
  try {
    return await send(d, s, key, traceHeaders);
  } catch (err) {
    const error = `internal error: ${(err as Error).message ?? String(err)}`.slice(0, 300);
    return { delivery: d, outcome: 'failed', status: null, error, durationMs: 0 };
  }
}

async function send(
  d: Claimed,
  s: WebhookSettings,
  key: Buffer,
  traceHeaders: Record<string, string>,
): Promise<Attempted> {
  const started = performance.now();
  // Checked again at every delivery; the connection goes to the address checked here.
  const target = await resolveTarget(d.url, s.allowPrivate, s.timeoutMs);
  if (!('address' in target)) {
    const durationMs = Math.round(performance.now() - started);
    return { delivery: d, outcome: 'refused', status: null, error: target.message, durationMs };
  }
  const number = d.attempts + 1;
  const headers = {
    'x-stockless-event': d.event,
    // The event's id in the log (as `id` in the body): GET /api/v1/events/{id} answers the same envelope.
    'x-stockless-event-id': eventId(d.event_id),
    'x-stockless-delivery-id': `${d.subscription_id}:${d.event_key}:${number}`,
    ...signatureHeaders(secretOf(key, d.secret_encrypted), d.body, `msg_${d.event_id}`),
    // The attempt's trace context (W3C Trace Context), when tracing is on: not signed, as it is not the event.
    ...traceHeaders,
  };
  const r = await postWebhook(target, d.body, headers, s.timeoutMs);
  if (r.kind === 'error')
    return { delivery: d, outcome: 'failed', status: null, error: r.error, durationMs: r.durationMs };
  const outcome: Outcome =
    r.status >= 200 && r.status < 300 ? 'succeeded' : r.status === 410 ? 'gone' : 'failed';
  return { delivery: d, outcome, status: r.status, error: null, durationMs: r.durationMs };
}
