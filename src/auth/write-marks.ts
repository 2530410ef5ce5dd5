import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression } from 'kysely';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import type { Actor } from './actor.ts';

/**
 * Read-your-writes across API processes (docs/decisions.md, "Read-your-writes on replicas"): after a
 * credential's write commits, the primary's WAL position is kept in `credential_write_marks`, and the
 * credential's lookup (every request does one, on the primary) reads it back in the same statement.
 * A replica serves the credential only once it has replayed past it.
 *
 * One mark per API key; one per store and OAuth client for app and MCP tokens, so a refreshed token
 * (a new row) still sees its client's writes.
 */
export function writeMarkKey(actor: Pick<Actor, 'kind' | 'credentialId' | 'storeId' | 'appId'>): string {
  return actor.kind === 'api_key'
    ? `api_key:${actor.credentialId}`
    : `oauth:${actor.storeId}:${actor.appId ?? 0}`;
}

/** The mark of the credential named by `key` (an SQL text expression), as pg_lsn text, or null. */
export function writeMarkOf(key: Expression<string> | RawBuilder<string>): RawBuilder<string | null> {
  return sql<string | null>`(SELECT m.lsn::text FROM credential_write_marks m WHERE m.credential = ${key})`;
}

/**
 * Records that `actor` wrote: run after the write committed, so pg_current_wal_lsn() is at or past
 * its commit record. Monotonic: a slower request of the same credential never moves the mark back.
 */
export async function recordWrite(em: EntityManager, actor: Actor): Promise<void> {
  await rows(
    em,
    sql`INSERT INTO credential_write_marks AS m (credential, lsn, written_at)
        VALUES (${writeMarkKey(actor)}, pg_current_wal_lsn(), now())
        ON CONFLICT (credential) DO UPDATE
          SET lsn = GREATEST(m.lsn, EXCLUDED.lsn), written_at = EXCLUDED.written_at`,
  );
}
