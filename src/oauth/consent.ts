import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken, randomToken } from '../auth/secret-tokens.ts';
import { rows, sql } from '../db/sql.ts';
import { type PendingRequest, redirectWith } from './authorize.ts';

const SESSION_HOURS = 8;
const CODE_TTL_SECONDS = 300;

export interface Session {
  userId: number;
  storeId: number;
  storeName: string;
  email: string;
  csrf: string;
}

export async function createSession(em: EntityManager, userId: number): Promise<string> {
  const token = randomToken('');
  await rows(
    em,
    sql`INSERT INTO oauth_sessions (token_hash, user_id, csrf_token, expires_at)
      VALUES (${hashToken(token)}, ${userId}, ${randomToken('')}, now() + ${SESSION_HOURS} * interval '1 hour')`,
  );
  return token;
}

export async function findSession(
  em: EntityManager,
  token: string | undefined,
): Promise<Session | undefined> {
  if (!token || token.length > 100) return undefined;
  const [s] = await rows<Session>(
    em,
    sql`SELECT u.id AS "userId", u.store_id AS "storeId", st.name AS "storeName", u.email, s.csrf_token AS csrf
      FROM oauth_sessions s JOIN dashboard_users u ON u.id = s.user_id JOIN stores st ON st.id = u.store_id
      WHERE s.token_hash = ${hashToken(token)} AND s.expires_at > now()`,
  );
  return s;
}

/**
 * The user approved: the store's one grant for this app takes exactly the scopes asked now (so a
 * reinstall with fewer narrows it), and a single-use code goes back to the app.
 */
export async function approve(em: EntityManager, request: PendingRequest, session: Session, issuer: string) {
  const code = randomToken('');
  await em.transactional(async (tx) => {
    const [grant] = await rows<{ id: number }>(
      tx,
      sql`INSERT INTO oauth_grants (store_id, client_id, scopes) VALUES (${session.storeId}, ${request.client_id}, ${request.scopes}::text[])
        ON CONFLICT (store_id, client_id) DO UPDATE SET scopes = EXCLUDED.scopes, revoked_at = NULL, updated_at = now()
        RETURNING id`,
    );
    await rows(
      tx,
      sql`INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, scopes, expires_at)
        VALUES (${hashToken(code)}, ${grant?.id}, ${request.client_id}, ${request.redirect_uri}, ${request.code_challenge},
          ${request.resource}, ${request.scopes}::text[], now() + ${CODE_TTL_SECONDS} * interval '1 second')`,
    );
    await rows(tx, sql`DELETE FROM oauth_requests WHERE id = ${request.id}`);
  });
  return redirectWith(request.redirect_uri, { code, state: request.state ?? undefined, iss: issuer });
}

export async function deny(em: EntityManager, request: PendingRequest, issuer: string) {
  await rows(em, sql`DELETE FROM oauth_requests WHERE id = ${request.id}`);
  return redirectWith(request.redirect_uri, {
    error: 'access_denied',
    error_description: 'The store did not approve the request',
    state: request.state ?? undefined,
    iss: issuer,
  });
}
