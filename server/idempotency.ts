import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { stringify } from 'safe-stable-stringify';
import type { Actor } from '../src/auth/actor.ts';
import { authorize } from '../src/auth/authorize.ts';
import { resolveCredential } from '../src/auth/credentials.ts';
import type { ErrorCode } from '../src/error-codes.ts';
import { AppError, type ErrorBody, type ErrorOrigin, INTERNAL_ERROR_BODY } from '../src/errors.ts';
import {
  type KeyScope,
  keepAnswer,
  type Lookup,
  lookUpKey,
  type StoredResponse,
} from '../src/idempotency/keys.ts';
import type { ChargedLimits } from '../src/ratelimit/limiter.ts';
import type { DomainSettings } from '../src/trpc/context.ts';
import type { Meta } from '../src/trpc/init.ts';
import { chargeLimits } from '../src/trpc/procedures.ts';
import type { RequestState } from '../src/trpc/request-state.ts';
import type { Logger } from './logger.ts';
import { sendCode, sendError } from './respond.ts';

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
const REFUSED_BEFORE_RUNNING = new Set<ErrorCode>([
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'ROUTE_NOT_FOUND',
  'INVALID_REQUEST_TARGET',
  'METHOD_NOT_ALLOWED',
  // A platform switch refuses the operation before it runs; it may be on for the retry.
  'FEATURE_DISABLED',
]);

export interface IdempotencyDeps {
  /** A new EntityManager of its own (not the request's). */
  em(): EntityManager;
  publicUrl: string;
  log: Logger;
  settings: DomainSettings;
  /** Seals kept answers at rest (src/db/at-rest.ts, label ANSWERS_KEY_LABEL). */
  answersKey: Buffer;
  /** Runs a keyed operation that commits in steps when the pool can spare it (`stepsGate`). */
  steps: <T>(run: () => Promise<T>) => Promise<T>;
}

/** A keyed write admitted to run: its key, and what was settled about its request before it. */
export interface KeyedWrite {
  scope: KeyScope;
  fingerprint: string;
  charged: ChargedLimits;
  /** The operation commits in steps of its own (bulk by filter): it runs beside the key's transaction. */
  commitsInSteps: boolean;
}

/** The operation's answer as it would go on the wire, held back until its key is settled. */
export interface HeldAnswer extends StoredResponse {
  /** An error answer's code, as the request's error was shaped (never read back from the body). */
  code?: ErrorCode;
  send(): void;
  /** Lets the response be answered otherwise: this answer is dropped. */
  drop(): void;
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

/**
 * Failures of one attempt that changed nothing and say "retry": a deadlock or serialisation failure
 * between concurrent writes. Kept, they would answer every retry with "retry".
 */
const TRANSIENT = new Set<ErrorCode>(['CONCURRENT_UPDATE']);

/** Whether an answer is the operation's outcome (kept) or a refusal before it ran or a failure (not kept). */
function keepsAnswer({ status, code }: HeldAnswer): boolean {
  if (status >= 500 || [401, 403, 405, 413, 415, 429].includes(status)) return false;
  if (status < 400) return true;
  return !(code && (REFUSED_BEFORE_RUNNING.has(code) || TRANSIENT.has(code)));
}

export function storedHeaders(res: ServerResponse): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined || PER_EXCHANGE.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}

/**
 * A kept answer, sent again: its status, headers and body, with this exchange's own request id (an
 * error body's `request_id` is this request's, as `X-Request-Id` is; the contract says they match) and
 * rate-limit headers, and `Original-Request` naming the request that ran.
 */
function replay(res: ServerResponse, stored: StoredResponse, originalRequestId: string, origin: ErrorOrigin) {
  let body = stored.body;
  if (stored.status >= 400) {
    try {
      const kept = JSON.parse(body) as ErrorBody;
      origin.error = { status: stored.status, body: kept, headers: {} };
      body = JSON.stringify({ ...kept, request_id: origin.id });
    } catch {
      // Not JSON: sent as kept.
    }
  }
  res.statusCode = stored.status;
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Original-Request', originalRequestId);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Admits a REST write that carries `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header)
 * to run under its key: parses the key, resolves and authorises the credential and counts the request
 * against its limits first, so a replay or a refused reuse costs what the request would (a refusal
 * here is left to the procedure, which answers it as for any request, and keeps nothing). Answers
 * `answered` when it answered the request itself, `undefined` when the request goes on unkeyed.
 */
export async function admitKeyed(
  req: IncomingMessage,
  res: ServerResponse,
  target: { path: string; search: string },
  meta: Meta | undefined,
  deps: IdempotencyDeps,
  state: RequestState,
): Promise<KeyedWrite | 'answered' | undefined> {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined || !WRITES.has(req.method ?? '') || !meta) return undefined;
  const key = parseIdempotencyKey(Array.isArray(raw) ? raw.join(', ') : raw);
  if (key === null) {
    const message = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
    const details = [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }];
    sendCode(res, 'IDEMPOTENCY_KEY_INVALID', message, state, details);
    return 'answered';
  }
  const em = deps.em();
  // A credential refused (401) is answered by the procedure as for any request, keeping nothing; any
  // other failure is a 500 that keeps nothing. Never "go on unkeyed": the write would run unguarded.
  const actor = await resolveCredential(em, req.headers.authorization, deps.publicUrl).catch(
    (err: unknown) => {
      if (err instanceof AppError) return undefined;
      throw err;
    },
  );
  if (!actor) return undefined;
  state.keyed = { credential: actor };
  try {
    authorize(actor, { write: true, appScope: meta.appScope ?? null, mcpScope: meta.mcpScope });
  } catch {
    return undefined;
  }
  const charged = await chargeLimits(em, actor, meta, deps.settings);
  state.precharged = charged;
  if (charged.refusal) return undefined;
  const scope: KeyScope = { storeId: actor.storeId, livemode: actor.livemode, key };
  const fingerprint = fingerprintOf(req, actor, target);
  const commitsInSteps = meta.commitsInSteps?.((req as IncomingMessage & { body?: unknown }).body) === true;
  return { scope, fingerprint, charged, commitsInSteps };
}

/**
 * A counting gate for keyed operations that commit in steps: each holds a connection for its key's
 * transaction and takes another for its steps, so more of them at once than half the pool could each
 * wait for a connection another holds. Taken before the key's connection, never while holding one.
 */
export function stepsGate(atOnce: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (running >= atOnce) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** Thrown inside the key's transaction to roll it back: the answer goes out, or is kept, after. */
class RolledBack extends Error {
  readonly held: HeldAnswer;
  readonly why: 'not kept' | 'refused' | 'raced';
  constructor(held: HeldAnswer, why: RolledBack['why']) {
    super(why);
    this.held = held;
    this.why = why;
  }
}

type Settled = Exclude<Lookup, { outcome: 'run' }> | { outcome: 'ran'; held: HeldAnswer };

/**
 * Runs a keyed write in one transaction with its key: the key's lookup (and its advisory lock), the
 * operation and the kept answer commit together, and the answer is sent only after they did. A crash
 * at any point before the commit leaves nothing (the retry runs), after it the whole answer (the
 * retry replays it). A refusal by the operation (400 INSUFFICIENT_STOCK, 404, 409 …) rolls back what
 * it wrote and is kept on its own; answers that are not kept (5xx, refusals before running) roll back
 * and keep nothing.
 */
export async function runKeyed(
  res: ServerResponse,
  origin: ErrorOrigin & Pick<RequestState, 'afterCommit'>,
  keyed: KeyedWrite,
  deps: IdempotencyDeps,
  operate: (em: EntityManager) => Promise<HeldAnswer>,
): Promise<void> {
  const requestId = origin.id;
  // What the app put on every answer before the operation (nosniff, no-store, the request id).
  const base = { ...storedHeaders(res), ...keyed.charged.headers };
  let held: HeldAnswer | undefined;
  const answerInstead = () => {
    held?.drop();
    for (const name of res.getHeaderNames()) if (name !== 'x-request-id') res.removeHeader(name);
    for (const [name, value] of Object.entries(base)) res.setHeader(name, value);
  };
  let settled: Settled;
  try {
    const inOneTransaction = () =>
      deps.em().transactional(
        async (tx): Promise<Settled> => {
          const found = await lookUpKey(tx, keyed.scope, keyed.fingerprint, deps.answersKey);
          if (found.outcome !== 'run') return found;
          // Bulk by filter commits range by range (docs/decisions.md): it runs on its own while this
          // transaction holds the key, and is safe to run again, as its ranges add what is missing.
          held = await operate(keyed.commitsInSteps ? deps.em() : tx);
          if (!keepsAnswer(held)) throw new RolledBack(held, 'not kept');
          if (held.status >= 400) throw new RolledBack(held, 'refused');
          if (!(await keepAnswer(tx, keyed.scope, keyed.fingerprint, requestId, held, deps.answersKey)))
            throw new RolledBack(held, 'raced');
          return { outcome: 'ran', held };
        },
        // The operation's own transactions join this one: it is rolled back whole or kept whole.
        { ignoreNestedTransactions: true },
      );
    settled = await (keyed.commitsInSteps ? deps.steps(inOneTransaction) : inOneTransaction());
    if (settled.outcome === 'ran') {
      await origin.afterCommit?.(deps.em());
      return settled.held.send();
    }
  } catch (err) {
    if (err instanceof RolledBack && err.why === 'not kept') return err.held.send();
    try {
      if (!(err instanceof RolledBack)) throw err;
      settled = await settleRolledBack(err, keyed, requestId, deps);
      if (settled.outcome === 'ran') return settled.held.send();
    } catch (failure) {
      // The lookup, the operation's connection or the commit failed: whether the write committed is
      // unknown here, and the key knows (a retry with it replays or runs). Never "resubmit".
      deps.log.error({ err: failure, request_id: requestId }, 'idempotent write not settled');
      answerInstead();
      const message = 'Internal server error; retry this request with the same Idempotency-Key';
      return sendError(res, 500, { ...INTERNAL_ERROR_BODY, message }, origin);
    }
  }
  answerInstead();
  answerLookup(res, settled, origin);
}

/**
 * After a rollback: keeps the operation's refusal in a transaction of its own under the key's lock
 * again, or finds the answer that beat it. A rolled-back success (it lost the race for the key) is
 * never sent: the winner's answer is, or 409 until it is kept.
 */
async function settleRolledBack(
  err: RolledBack,
  keyed: KeyedWrite,
  requestId: string,
  deps: IdempotencyDeps,
): Promise<Settled> {
  const { scope, fingerprint } = keyed;
  return deps.em().transactional(async (tx): Promise<Settled> => {
    // Twice at most: a second lookup is a new snapshot, which sees an answer committed just before
    // this transaction took the lock (the first lookup's snapshot predates it).
    for (let round = 0; round < 2; round++) {
      const found = await lookUpKey(tx, scope, fingerprint, deps.answersKey);
      if (found.outcome !== 'run') return found;
      if (err.why !== 'refused') break;
      if (await keepAnswer(tx, scope, fingerprint, requestId, err.held, deps.answersKey))
        return { outcome: 'ran', held: err.held };
    }
    return { outcome: 'in_use' };
  });
}

function answerLookup(res: ServerResponse, found: Exclude<Settled, { outcome: 'ran' }>, origin: ErrorOrigin) {
  if (found.outcome === 'replay') return replay(res, found.response, found.requestId, origin);
  if (found.outcome === 'reused') {
    const message =
      'This Idempotency-Key was used with a different request (or credential); send a new key for a new request';
    return sendCode(res, 'IDEMPOTENCY_KEY_REUSED', message, origin);
  }
  res.setHeader('Retry-After', '1');
  const message = 'A request with this Idempotency-Key is still being processed; retry shortly';
  sendCode(res, 'IDEMPOTENCY_KEY_IN_USE', message, origin);
}

/**
 * Holds the operation's answer back: `end` records the body as it would be sent (after `shape`, the
 * transport's last touch) instead of sending it, and the held answer sends it later. `codeOf` gives
 * the code of the error it answers, if any.
 */
export function holdAnswer(
  res: ServerResponse,
  shape: (chunk: unknown) => unknown,
  codeOf: () => ErrorCode | undefined,
): { held: Promise<HeldAnswer>; release(): void } {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  const held = new Promise<HeldAnswer>((resolve) => {
    res.end = ((chunk?: unknown) => {
      const out = shape(chunk);
      const body = typeof out === 'string' ? out : Buffer.isBuffer(out) ? out.toString('utf8') : '';
      resolve({
        status: res.statusCode,
        headers: storedHeaders(res),
        body,
        code: res.statusCode >= 400 ? codeOf() : undefined,
        send: () => {
          res.end = end as ServerResponse['end'];
          end(out);
        },
        drop: () => {
          res.end = end as ServerResponse['end'];
        },
      });
      return res;
    }) as ServerResponse['end'];
  });
  return { held, release: () => (res.end = end as ServerResponse['end']) };
}
