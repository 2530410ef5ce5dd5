import type { EntityManager } from '@mikro-orm/postgresql';
import { seal, unseal } from '../db/at-rest.ts';
import { ownedBy } from '../db/owned-by.ts';
import { rows, sql } from '../db/sql.ts';

/** How long a key's answer is kept (the IETF draft leaves it to the server; Stripe keeps 24 hours). */
export const KEY_LIFETIME = '24 hours';

/** The SECRET_KEY-derived label of the key that seals kept answers (src/db/at-rest.ts). */
export const ANSWERS_KEY_LABEL = 'idempotency-answers';

export interface KeyScope {
  storeId: number;
  livemode: boolean;
  key: string;
}

/** What the first request with a key answered, kept to be replayed. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Lookup =
  | { outcome: 'run' }
  | { outcome: 'in_use' }
  | { outcome: 'reused' }
  | { outcome: 'replay'; response: StoredResponse; requestId: string };

/** A kept answer is bound to its key: sealed under one key, it does not open under another. */
const aadOf = (scope: KeyScope) =>
  `idempotency:${scope.storeId}:${scope.livemode ? 'live' : 'test'}:${scope.key}`;

/** The transaction-scoped advisory lock that stands for "a request with this key is running". */
const lockOf = (scope: KeyScope) => sql<string>`hashtextextended(${aadOf(scope)}, 0)`;

interface KeptRow {
  locked: boolean;
  fingerprint: string | null;
  request_id: string | null;
  status: number | null;
  answer: string | null;
  /** Answers kept in clear before they were sealed (until they expire, 24 h after the upgrade). */
  headers: Record<string, string> | null;
  body: string | null;
}

/**
 * Looks a key up inside the transaction its request will run in, and takes the key's advisory lock
 * there: held until that transaction ends, however it ends. So a request that is running holds the
 * key (a concurrent one answers 409 at once, without waiting), a request whose process died holds
 * nothing (its transaction, lock and writes vanish together), and a kept answer exists exactly when
 * the write it answers committed. One round trip.
 */
export async function lookUpKey(
  tx: EntityManager,
  scope: KeyScope,
  fingerprint: string,
  answersKey: Buffer,
): Promise<Lookup> {
  const [row] = await rows<KeptRow>(
    tx,
    sql`SELECT pg_try_advisory_xact_lock(${lockOf(scope)}) AS locked,
        k.fingerprint, k.request_id, k.status, k.answer, k.headers, k.body
      FROM (VALUES (1)) AS one (n)
      LEFT JOIN idempotency_keys k ON ${ownedBy(scope, 'idempotency_keys as k')}
        AND k.key = ${scope.key} AND k.created_at >= now() - ${KEY_LIFETIME}::interval`,
  );
  if (row?.status != null && row.request_id !== null) {
    if (row.fingerprint !== fingerprint) return { outcome: 'reused' };
    const kept =
      row.answer !== null
        ? (JSON.parse(unseal(answersKey, aadOf(scope), row.answer)) as Omit<StoredResponse, 'status'>)
        : { headers: row.headers ?? {}, body: row.body ?? '' };
    return { outcome: 'replay', response: { status: row.status, ...kept }, requestId: row.request_id };
  }
  return row?.locked ? { outcome: 'run' } : { outcome: 'in_use' };
}

/**
 * Keeps a request's answer, sealed, in the transaction of the write it answers. False when another
 * request's answer is already kept under the key (it committed between this request's lookup and its
 * lock): the caller rolls its write back and replays that answer instead.
 */
export async function keepAnswer(
  tx: EntityManager,
  scope: KeyScope,
  fingerprint: string,
  requestId: string,
  response: StoredResponse,
  answersKey: Buffer,
): Promise<boolean> {
  const answer = seal(
    answersKey,
    aadOf(scope),
    JSON.stringify({ headers: response.headers, body: response.body }),
  );
  // Raw SQL: the upsert's WHERE reads the conflicting row, which the builder types poorly.
  const kept = await rows<{ kept: number }>(
    tx,
    sql`INSERT INTO idempotency_keys AS k (store_id, livemode, key, fingerprint, request_id, status, answer)
      VALUES (${scope.storeId}, ${scope.livemode}, ${scope.key}, ${fingerprint}, ${requestId},
        ${response.status}, ${answer})
      ON CONFLICT (store_id, livemode, key) DO UPDATE SET fingerprint = excluded.fingerprint,
        request_id = excluded.request_id, status = excluded.status, answer = excluded.answer,
        headers = NULL, body = NULL, created_at = now()
      WHERE k.created_at < now() - ${KEY_LIFETIME}::interval
        -- A claim of the previous release's scheme whose request died (its 5-minute takeover).
        OR (k.status IS NULL AND k.created_at < now() - interval '5 minutes')
      RETURNING 1 AS kept`,
  );
  return kept.length === 1;
}

/** Drops keys past their lifetime, a batch at a time; answers how many went. */
export async function pruneKeys(em: EntityManager, batch = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    // Raw SQL: a batch by physical row id, which the builder has no type for.
    const gone = await rows<{ n: number }>(
      em,
      sql`WITH gone AS (
          DELETE FROM idempotency_keys WHERE ctid IN (
            SELECT ctid FROM idempotency_keys
            WHERE created_at < now() - ${KEY_LIFETIME}::interval LIMIT ${batch})
          RETURNING 1)
        SELECT count(*)::integer AS n FROM gone`,
    );
    const n = gone[0]?.n ?? 0;
    total += n;
    if (n < batch) return total;
  }
}
