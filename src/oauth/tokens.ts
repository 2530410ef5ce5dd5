import type { EntityManager } from '@mikro-orm/postgresql';
import { apiResource, mcpResource, resourceScopes } from '../auth/resources.ts';
import { hashToken, randomToken } from '../auth/secret-tokens.ts';
import { db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { findClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { pkceChallenge } from './random.ts';
import { parseScopes } from './scopes.ts';
import type { AuthorizationCodeRequest, RefreshTokenRequest } from './token-request.ts';

export const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_DAYS = 30;

export const ACCESS_PREFIX = 'sl_at_';
const REFRESH_PREFIX = 'sl_rt_';

/** A revocation parameter, sent once and not empty (the token request has its schema: token-request.ts). */
function required(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} is repeated`);
  const v = values[0];
  if (!v) throw new OAuthError('invalid_request', `${name} is required`);
  return v;
}

/** The one `resource` sent, which must be the one the code or refresh token is bound to. */
function checkResource(values: string[], publicUrl: string, bound: string): string {
  if (values.length > 1) throw new OAuthError('invalid_target', 'Send exactly one resource');
  const resource = values[0];
  const known = `${apiResource(publicUrl)} or ${mcpResource(publicUrl)}`;
  if (!resource) throw new OAuthError('invalid_target', `resource is required: ${known}`);
  if (!resourceScopes(publicUrl, resource))
    throw new OAuthError('invalid_target', `resource must be ${known}`);
  if (resource !== bound) throw new OAuthError('invalid_target', `resource must be ${bound}, as authorized`);
  return resource;
}

/**
 * The grant's scopes a token for `resource` may carry. One grant per (store, app) serves both
 * resources, so an MCP approval may have put MCP-only scopes into it: an app token never takes them.
 */
function forResource(scopes: string[], publicUrl: string, resource: string): string[] {
  const allowed: readonly string[] = resourceScopes(publicUrl, resource) ?? [];
  return scopes.filter((s) => allowed.includes(s));
}

async function issue(
  tx: EntityManager,
  g: { grantId: number; codeHash: string; resource: string; scopes: string[] },
) {
  const access = randomToken(ACCESS_PREFIX);
  const refresh = randomToken(REFRESH_PREFIX);
  const token = { grant_id: g.grantId, code_hash: g.codeHash, resource: g.resource, scopes: g.scopes };
  await run(
    db(tx)
      .insertInto('oauth_tokens')
      .values([
        {
          ...token,
          token_hash: hashToken(access),
          kind: 'access',
          expires_at: sql`now() + ${ACCESS_TOKEN_SECONDS} * interval '1 second'`,
        },
        {
          ...token,
          token_hash: hashToken(refresh),
          kind: 'refresh',
          expires_at: sql`now() + ${REFRESH_TOKEN_DAYS} * interval '1 day'`,
        },
      ]),
  );
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refresh,
    // Informational: the grant is read on every call.
    scope: g.scopes.join(' '),
  };
}

async function revokeChain(tx: EntityManager, column: 'code_hash' | 'grant_id', value: string | number) {
  await run(
    db(tx)
      .updateTable('oauth_tokens')
      .set({ revoked_at: sql`now()` })
      .where(column, '=', value)
      .where('revoked_at', 'is', null),
  );
}

/** `authorization_code` grant: single-use code, exact redirect URI, PKCE S256, bound resource. */
export async function exchangeCode(em: EntityManager, request: AuthorizationCodeRequest, publicUrl: string) {
  const client = await findClient(em, request.client_id);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
  const { code, code_verifier: verifier, redirect_uri: redirectUri } = request;
  const codeHash = hashToken(code);
  // A replayed code must leave its revocations behind even though the request fails: own transaction.
  const replay = await em.transactional(async (tx) => {
    const used = await first(
      db(tx)
        .selectFrom('oauth_codes')
        .select('grant_id')
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is not', null),
    );
    if (used) await revokeChain(tx, 'code_hash', codeHash);
    return Boolean(used);
  });
  if (replay)
    throw new OAuthError('invalid_grant', 'The authorization code was already used; its tokens are revoked');
  return em.transactional(async (tx) => {
    const c = await first(
      db(tx)
        .updateTable('oauth_codes')
        .set({ used_at: sql`now()` })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .returning((eb) => [
          'grant_id',
          'client_id',
          'redirect_uri',
          'code_challenge',
          'resource',
          'scopes',
          eb('expires_at', '<=', sql<string>`now()`).as('expired'),
        ]),
    );
    const invalid =
      'The authorization code is invalid, expired, or was issued to another client or redirect URI';
    if (!c || c.expired || c.client_id !== client.id || c.redirect_uri !== redirectUri) {
      throw new OAuthError('invalid_grant', invalid);
    }
    if (pkceChallenge(verifier) !== c.code_challenge) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    checkResource(request.resource, publicUrl, c.resource);
    const grant = await first(
      db(tx)
        .selectFrom('oauth_grants')
        .select('scopes')
        .where('id', '=', c.grant_id)
        .where('revoked_at', 'is', null),
    );
    if (!grant) throw new OAuthError('invalid_grant', invalid);
    return issue(tx, {
      grantId: c.grant_id,
      codeHash,
      resource: c.resource,
      scopes: forResource(grant.scopes, publicUrl, c.resource),
    });
  });
}

/** `refresh_token` grant: rotates; a refresh token used twice revokes the whole grant's tokens. */
export async function refresh(em: EntityManager, request: RefreshTokenRequest, publicUrl: string) {
  const client = await findClient(em, request.client_id);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
  const tokenHash = hashToken(request.refresh_token);
  const reused = await em.transactional(async (tx) => {
    const spent = await first(
      db(tx)
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select('t.grant_id')
        .where('t.token_hash', '=', tokenHash)
        .where('t.kind', '=', 'refresh')
        .where('t.used_at', 'is not', null)
        .where('g.client_id', '=', client.id),
    );
    if (spent) await revokeChain(tx, 'grant_id', spent.grant_id);
    return Boolean(spent);
  });
  if (reused)
    throw new OAuthError('invalid_grant', 'The refresh token was already used; the grant is revoked');
  return em.transactional(async (tx) => {
    const t = await first(
      db(tx)
        .updateTable('oauth_tokens as t')
        .from('oauth_grants as g')
        .set({ used_at: sql`now()` })
        .where('t.token_hash', '=', tokenHash)
        .where('t.kind', '=', 'refresh')
        .where('t.used_at', 'is', null)
        .where('t.revoked_at', 'is', null)
        .where('t.expires_at', '>', sql<string>`now()`)
        .whereRef('g.id', '=', 't.grant_id')
        .where('g.client_id', '=', client.id)
        .where('g.revoked_at', 'is', null)
        .returning(['t.grant_id', 't.code_hash', 't.resource', 'g.scopes as grant_scopes']),
    );
    if (!t) throw new OAuthError('invalid_grant', 'The refresh token is invalid, expired or revoked');
    checkResource(request.resource, publicUrl, t.resource);
    const allowed = forResource(t.grant_scopes, publicUrl, t.resource);
    const scopes = request.scope ? parseScopes(request.scope, allowed) : allowed;
    return issue(tx, { grantId: t.grant_id, codeHash: t.code_hash, resource: t.resource, scopes });
  });
}

/**
 * RFC 7009: always 200, whether or not the token existed. Revoking a refresh token ends the grant's
 * tokens (the app must ask again); revoking an access token ends that token.
 */
export async function revoke(em: EntityManager, form: URLSearchParams) {
  const client = await findClient(em, required(form, 'client_id'));
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
  const tokenHash = hashToken(required(form, 'token'));
  await em.transactional(async (tx) => {
    const t = await first(
      db(tx)
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select(['t.id', 't.kind', 't.grant_id'])
        .where('t.token_hash', '=', tokenHash)
        .where('g.client_id', '=', client.id),
    );
    if (!t) return;
    if (t.kind === 'refresh') await revokeChain(tx, 'grant_id', t.grant_id);
    else
      await run(
        db(tx)
          .updateTable('oauth_tokens')
          .set({ revoked_at: sql`now()` })
          .where('id', '=', t.id)
          .where('revoked_at', 'is', null),
      );
  });
}

/** Uninstall: the grant ends and every token of it stops at once. */
export async function uninstallApp(em: EntityManager, storeId: number, clientId: string) {
  return em.transactional(async (tx) => {
    const g = await first(
      db(tx)
        .updateTable('oauth_grants as g')
        .from('oauth_clients as c')
        .set({ revoked_at: sql`now()`, updated_at: sql`now()` })
        .whereRef('c.id', '=', 'g.client_id')
        .where('c.client_id', '=', clientId)
        .where('g.store_id', '=', storeId)
        .where('g.revoked_at', 'is', null)
        .returning('g.id'),
    );
    if (g) await revokeChain(tx, 'grant_id', g.id);
    return { uninstalled: Boolean(g) };
  });
}
