import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';

/** The header Stockless signs every delivery with: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'x-stockless-signature';

/** The envelope every delivery carries. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  /** The event's id (`evt_…`): `client.events.retrieve(id)` answers the same envelope. */
  id: string;
  event: string;
  /** Key your processing on this: deliveries can repeat and arrive out of order. */
  event_key: string;
  created_at: string;
  /** `true` for live data. */
  livemode: boolean;
  data: Data;
}

export interface VerifyOptions {
  /** Largest accepted distance, in seconds, between the signature's time and now (default 300). */
  tolerance?: number;
  /** The current time (a Date or epoch milliseconds); for tests. */
  now?: Date | number;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The `v1` signature of a body: hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the whole `whsec_…` secret. */
export function computeSignature(rawBody: string | Uint8Array, timestamp: number, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(bytesOf(rawBody)).digest('hex');
}

/** A signature header for a body, as Stockless sends it (for testing your receiver). */
export function signWebhook(
  rawBody: string | Uint8Array,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${computeSignature(rawBody, timestamp, secret)}`;
}

function parseHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 1) throw new WebhookVerificationError('malformed_signature', 'Signature header is not t=…,v1=…');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) {
        throw new WebhookVerificationError('malformed_signature', 'Signature header has a bad timestamp');
      }
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // other schemes (v0, future versions) are ignored
  }
  if (timestamp === undefined)
    throw new WebhookVerificationError('malformed_signature', 'Signature header has no t=');
  if (signatures.length === 0)
    throw new WebhookVerificationError('malformed_signature', 'Signature header has no v1=');
  return { timestamp, signatures };
}

/**
 * Verifies a Stockless webhook delivery and returns its parsed event.
 *
 * - `rawBody`: the request body exactly as received (bytes or string), before any JSON parsing.
 * - `signatureHeader`: the `X-Stockless-Signature` header (`t=…,v1=…`, possibly several `v1`
 *   entries, e.g. during a secret rotation: any one matching is enough).
 * - `secret`: the subscription's signing secret, the whole `whsec_…` string.
 *
 * Throws `WebhookVerificationError` (with a `reason`) when the header is missing or malformed, no
 * `v1` matches (compared in constant time), or the timestamp is further than `tolerance` seconds
 * (default 300) in the past or the future.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent<Data> {
  if (!secret) throw new TypeError('verifyWebhook: the signing secret is required');
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(',') : signatureHeader;
  if (!header) throw new WebhookVerificationError('missing_signature', 'No X-Stockless-Signature header');
  const { timestamp, signatures } = parseHeader(header);

  const expected = Buffer.from(computeSignature(rawBody, timestamp, secret), 'hex');
  let matched = false;
  for (const signature of signatures) {
    if (!HEX_SHA256.test(signature)) continue;
    // Every candidate is compared in full (no early exit), each in constant time.
    if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
  }
  if (!matched)
    throw new WebhookVerificationError('signature_mismatch', 'No v1 signature matches this body and secret');

  const tolerance = options.tolerance ?? 300;
  const nowMs =
    options.now === undefined
      ? Date.now()
      : typeof options.now === 'number'
        ? options.now
        : options.now.getTime();
  const age = Math.floor(nowMs / 1000) - timestamp;
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `Signature is ${age}s old (tolerance ${tolerance}s)`,
    );
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `Signature is ${-age}s in the future (tolerance ${tolerance}s)`,
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(bytesOf(rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON');
  }
  if (!event || typeof event !== 'object' || typeof (event as WebhookEvent).event !== 'string') {
    throw new WebhookVerificationError('invalid_payload', 'The body is not a Stockless event');
  }
  return event as WebhookEvent<Data>;
}
