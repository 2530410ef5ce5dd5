import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken, randomToken } from '../auth/secret-tokens.ts';
import { db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';

const SESSION_HOURS = 8;

export async function createSession(em: EntityManager, userId: number): Promise<string> {
  const token = randomToken('');
  await run(
    db(em)
      .insertInto('oauth_sessions')
      .values({
        token_hash: hashToken(token),
        user_id: userId,
        csrf_token: randomToken(''),
        expires_at: sql`now() + ${SESSION_HOURS} * interval '1 hour'`,
      }),
  );
  return token;
}

export type Session = NonNullable<Awaited<ReturnType<typeof findSession>>>;

export async function findSession(em: EntityManager, token: string | undefined) {
  if (!token || token.length > 100) return undefined;
  return first(
    db(em)
      .selectFrom('oauth_sessions as s')
      .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
      .innerJoin('stores as st', 'st.id', 'u.store_id')
      .select([
        'u.id as userId',
        'u.store_id as storeId',
        'st.name as storeName',
        'u.email',
        's.csrf_token as csrf',
      ])
      .where('s.token_hash', '=', hashToken(token))
      .where('s.expires_at', '>', sql<string>`now()`),
  );
}
