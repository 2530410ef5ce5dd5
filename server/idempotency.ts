import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { stringify } from 'safe-stable-stringify';
import type { Actor } from '../src/auth/actor.ts';
import { resolveCredential } from '../src/auth/credentials.ts';
import type { ErrorBody } from '../src/errors.ts';
import {
  claimKey,
  completeKey,
  type KeyScope,
  releaseKey,
  type StoredResponse,
} from '../src/idempotency/keys.ts';
import type { Logger } from './logger.ts';
import { sendError } from './respond.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Headers of an answer that belong to the one exchange, never to a replay of it. */
const PER_EXCHANGE = new Set([
  'x-request-id',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]);

/** Refusals that happen before an operation runs: nothing was done, so a retry must run afresh. */
const REFUSED_BEFORE_RUNNING = new Set([
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'ROUTE_NOT_FOUND',
  'INVALID_REQUEST_TARGET',
  'METHOD_NOT_ALLOWED',
  // A platform switch refuses the operation before it runs; it may be on for the retry.
  'FEATURE_DISABLED',
]);

export interface IdempotencyDeps {
  em(): EntityManager;
  publicUrl: string;
  log: Logger;
  /** Told the credential it resolved, so the operation need not look it up again. */
  resolved?(actor: Actor): void;
}

/**
 * The key as sent: a Structured Field string (`"…"`, as the IETF draft writes it) or the bare token
 * Stripe's clients send; printable ASCII, 1 to 255 characters. `null` when the value is unusable.
 */
export function parseIdempotencyKey(raw: string): string | null {
  let value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    // RFC 9651 §3.3.3: inside the quotes, `\` escapes only `"` and `\`; a bare `"` ends the string.
    const inner = /^(?:[^"\\]|\\["\\])*$/.exec(value.slice(1, -1));
    if (!inner) return null;
    value = inner[0].replace(/\\(["\\])/g, '$1');
  }
  if (value.length < 1 || value.length > 255 || !/^[\x20-\x7e]+$/.test(value)) return null;
  return value;
}

/**
 * The credential, method, path, query and the body's JSON with its keys sorted: a retry matches
 * however it is serialised, and only its own credential gets a kept answer back (another credential
 * of the store, perhaps with fewer rights, must never read it by knowing the key).
 */
function fingerprintOf(
  req: IncomingMessage & { body?: unknown },
  actor: Actor,
  target: { path: string; search: string },
): string {
  const credential = `${actor.kind}:${actor.credentialId}`;
  const text = `${credential}\n${req.method} ${target.path}?${target.search}\n${stringify(req.body ?? null)}`;
  return encodeHexLowerCase(sha256(new TextEncoder().encode(text)));
}

/** Whether an answer is the operation's outcome (kept) or a refusal before it ran or a failure (not kept). */
function keepsAnswer(status: number, body: string): boolean {
  if (status >= 500 || [401, 403, 405, 413, 415, 429].includes(status)) return false;
  if (status < 400) return true;
  try {
    const code = (JSON.parse(body) as Partial<ErrorBody>).code;
    return !(code && REFUSED_BEFORE_RUNNING.has(code));
  } catch {
    return false;
  }
}

function storedHeaders(res: ServerResponse): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined || PER_EXCHANGE.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}

function replay(res: ServerResponse, stored: StoredResponse, originalRequestId: string) {
  res.statusCode = stored.status;
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Original-Request', originalRequestId);
  res.setHeader('Content-Length', Buffer.byteLength(stored.body));
  res.end(stored.body);
}

/**
 * Holds the answer back until the key is settled, so a retry can never find the key still running
 * after its first request has answered, nor a kept answer missing.
 */
function settleOnAnswer(res: ServerResponse, settle: (answer: StoredResponse) => Promise<void>) {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    const body = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    void settle({ status: res.statusCode, headers: storedHeaders(res), body }).finally(() => end(chunk));
    return res;
  }) as ServerResponse['end'];
}

/**
 * `Idempotency-Key` on a write of the REST API (IETF draft-ietf-httpapi-idempotency-key-header): the
 * first request with a key runs and its answer is kept for 24 hours per store and mode; a retry of
 * the same request gets that answer again (`Idempotent-Replayed: true`), another request under the
 * key 422, a retry while the first still runs 409. Answers whether it answered the request itself;
 * otherwise the operation runs, and its answer settles the key. Requests without a credential that
 * resolves go on unclaimed: they are refused before anything runs.
 */
export async function applyIdempotency(
  req: IncomingMessage,
  res: ServerResponse,
  target: { path: string; search: string },
  requestId: string,
  deps: IdempotencyDeps,
): Promise<boolean> {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined || !WRITES.has(req.method ?? '')) return false;
  const key = parseIdempotencyKey(Array.isArray(raw) ? raw.join(', ') : raw);
  if (key === null) {
    const message = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
    const details = [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }];
    sendError(
      res,
      400,
      { error: 'bad_request', code: 'IDEMPOTENCY_KEY_INVALID', message, details },
      requestId,
    );
    return true;
  }
  const em = deps.em();
  const actor = await resolveCredential(em, req.headers.authorization, deps.publicUrl).catch(() => undefined);
  if (!actor) return false;
  deps.resolved?.(actor);
  const scope: KeyScope = { storeId: actor.storeId, livemode: actor.livemode, key };
  const claim = await claimKey(em, scope, fingerprintOf(req, actor, target), requestId);
  if (claim.outcome === 'replay') {
    replay(res, claim.response, claim.requestId);
    return true;
  }
  if (claim.outcome === 'reused') {
    const message =
      'This Idempotency-Key was used with a different request (or credential); send a new key for a new request';
    sendError(res, 422, { error: 'bad_request', code: 'IDEMPOTENCY_KEY_REUSED', message }, requestId);
    return true;
  }
  if (claim.outcome === 'in_use') {
    res.setHeader('Retry-After', '1');
    const message = 'A request with this Idempotency-Key is still being processed; retry shortly';
    sendError(res, 409, { error: 'conflict', code: 'IDEMPOTENCY_KEY_IN_USE', message }, requestId);
    return true;
  }
  settleOnAnswer(res, async (answer) => {
    try {
      if (keepsAnswer(answer.status, answer.body)) await completeKey(em, scope, claim.token, answer);
      else await releaseKey(em, scope, claim.token);
    } catch (err) {
      // The operation's answer still goes out; the claim is taken over once abandoned.
      deps.log.error({ err, request_id: requestId }, 'idempotency key not settled');
    }
  });
  return false;
}
