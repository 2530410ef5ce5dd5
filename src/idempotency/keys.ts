import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, rows, run, sql } from '../db/sql.ts';

/** How long a key's answer is kept (the IETF draft leaves it to the server; Stripe keeps 24 hours). */
export const KEY_LIFETIME = '24 hours';
/**
 * A claim whose request never answered (its process died) is taken over after this long; a request
 * that is still running is far shorter (the server's whole request deadline is 30 s).
 */
export const ABANDONED_AFTER = '5 minutes';

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

export type Claim =
  | { outcome: 'claimed'; token: string }
  | { outcome: 'in_use' }
  | { outcome: 'reused' }
  | { outcome: 'replay'; response: StoredResponse; requestId: string };

/**
 * Claims a key for a request by inserting its row: of any number of concurrent requests with one key
 * exactly one inserts (or takes over an expired or abandoned row, under the row's lock); the others
 * see the row as it stands. A row that vanished in between (its request was released) is claimed
 * again, so a caller never waits on a key nobody holds.
 */
export async function claimKey(
  em: EntityManager,
  scope: KeyScope,
  fingerprint: string,
  requestId: string,
): Promise<Claim> {
  // The claim's owner: request ids may come from clients, so they are not unique.
  const token = randomUUID();
  for (let round = 0; ; round++) {
    const claimed = await first(
      db(em)
        .insertInto('idempotency_keys')
        .values({
          store_id: scope.storeId,
          livemode: scope.livemode,
          key: scope.key,
          fingerprint,
          request_id: requestId,
          claim_token: token,
        })
        .onConflict((oc) =>
          oc
            .columns(['store_id', 'livemode', 'key'])
            .doUpdateSet({
              fingerprint,
              request_id: requestId,
              claim_token: token,
              status: null,
              headers: null,
              body: null,
              created_at: sql`now()`,
              completed_at: null,
            })
            .where((eb) =>
              eb.or([
                eb('idempotency_keys.created_at', '<', sql<string>`now() - ${KEY_LIFETIME}::interval`),
                eb.and([
                  eb('idempotency_keys.status', 'is', null),
                  eb('idempotency_keys.created_at', '<', sql<string>`now() - ${ABANDONED_AFTER}::interval`),
                ]),
              ]),
            ),
        )
        .returning('key'),
    );
    if (claimed) return { outcome: 'claimed', token };
    const held = await first(
      db(em)
        .selectFrom('idempotency_keys')
        .select(['fingerprint', 'request_id', 'status', 'headers', 'body'])
        .where('store_id', '=', scope.storeId)
        .where('livemode', '=', scope.livemode)
        .where('key', '=', scope.key),
    );
    if (!held) {
      if (round < 3) continue;
      return { outcome: 'in_use' };
    }
    if (held.fingerprint !== fingerprint) return { outcome: 'reused' };
    if (held.status === null || held.body === null) return { outcome: 'in_use' };
    const response = {
      status: held.status,
      headers: (held.headers ?? {}) as Record<string, string>,
      body: held.body,
    };
    return { outcome: 'replay', response, requestId: held.request_id };
  }
}

/** Keeps the claimed request's answer for the key's lifetime (unless the claim was taken over). */
export async function completeKey(
  em: EntityManager,
  scope: KeyScope,
  token: string,
  response: StoredResponse,
) {
  await run(
    db(em)
      .updateTable('idempotency_keys')
      .set({
        status: response.status,
        headers: JSON.stringify(response.headers),
        body: response.body,
        completed_at: sql`now()`,
      })
      .where('store_id', '=', scope.storeId)
      .where('livemode', '=', scope.livemode)
      .where('key', '=', scope.key)
      .where('claim_token', '=', token),
  );
}

/** Gives a claimed key back unanswered: its request was refused before it ran, or failed. */
export async function releaseKey(em: EntityManager, scope: KeyScope, token: string) {
  await run(
    db(em)
      .deleteFrom('idempotency_keys')
      .where('store_id', '=', scope.storeId)
      .where('livemode', '=', scope.livemode)
      .where('key', '=', scope.key)
      .where('claim_token', '=', token)
      .where('status', 'is', null),
  );
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
