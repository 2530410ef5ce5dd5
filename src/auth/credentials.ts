import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../trpc/errors.ts';
import type { Actor, AppScope } from './actor.ts';
import { API_KEY_PATTERN } from './api-keys.ts';
import { hashToken } from './secret-tokens.ts';

const ACCESS_TOKEN_PATTERN = /^sl_at_[a-z2-7]{40}$/;
const USAGE_WRITE_INTERVAL_MS = 60_000;
const lastUsageWrite = new Map<number, number>();

/** RFC 9728 §5.1: where a client finds the REST API's protected-resource metadata. */
export function wwwAuthenticate(publicUrl: string): string {
  return `Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/api/v1"`;
}

export function unauthorized(message: string): AppError {
  return new AppError('unauthorized', 'INVALID_CREDENTIAL', message);
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * An app's access token: valid only for the REST API's resource, and only while its grant stands.
 * The scopes are the grant's as they are now, so a narrowed reinstall applies from the next call.
 */
async function resolveAppToken(em: EntityManager, token: string, publicUrl: string): Promise<Actor> {
  const [t] = await rows<{
    id: number;
    store_id: number;
    client_id: number;
    scopes: AppScope[];
    resource: string;
  }>(
    em,
    // What the token was issued for (a refresh may narrow it), within what the grant allows now.
    sql`SELECT t.id, g.store_id, g.client_id,
        ARRAY(SELECT unnest(g.scopes) INTERSECT SELECT unnest(t.scopes)) AS scopes, t.resource
      FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
      WHERE t.token_hash = ${hashToken(token)} AND t.kind = 'access' AND t.revoked_at IS NULL
        AND t.expires_at > now() AND g.revoked_at IS NULL`,
  );
  if (!t) throw unauthorized('Invalid or expired access token');
  if (t.resource !== `${publicUrl}/api/v1`) throw unauthorized('This access token is for another resource');
  const scopes = new Set(t.scopes);
  return {
    storeId: t.store_id,
    kind: 'app',
    // Apps are governed by their resource scopes, not by the key's method rule.
    scope: 'read_write',
    appScopes: scopes,
    credentialId: t.id,
    appId: t.client_id,
    canReadCustomers: scopes.has('read_customers'),
  };
}

/** Resolves a bearer credential (API key or app access token) to an actor, or throws 401. */
export async function resolveCredential(
  em: EntityManager,
  header: string | undefined,
  publicUrl: string,
): Promise<Actor> {
  const token = bearerToken(header);
  if (!token) throw unauthorized('Missing credential: send Authorization: Bearer <API key or access token>');
  if (ACCESS_TOKEN_PATTERN.test(token)) return resolveAppToken(em, token, publicUrl);
  if (!API_KEY_PATTERN.test(token)) throw unauthorized('Invalid credential');
  const [key] = await rows<{ id: number; store_id: number; scope: 'read' | 'read_write' }>(
    em,
    sql`SELECT id, store_id, scope FROM api_keys WHERE token_hash = ${hashToken(token)} AND revoked_at IS NULL`,
  );
  if (!key) throw unauthorized('Invalid credential');
  noteUsage(em, key.id);
  return {
    storeId: key.store_id,
    kind: 'api_key',
    scope: key.scope,
    appScopes: new Set(),
    credentialId: key.id,
    canReadCustomers: true,
  };
}

/** Records last use at most once a minute per key and per process, off the request's critical path. */
function noteUsage(em: EntityManager, keyId: number): void {
  const now = Date.now();
  if (now - (lastUsageWrite.get(keyId) ?? 0) < USAGE_WRITE_INTERVAL_MS) return;
  lastUsageWrite.set(keyId, now);
  rows(em, sql`UPDATE api_keys SET last_used_at = now() WHERE id = ${keyId}`).catch(() => {
    lastUsageWrite.delete(keyId);
  });
}
