import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression } from 'kysely';
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

/**
 * Takes the grant's row lock: every issue, rotation and revocation of one grant's tokens runs one at
 * a time (the lock order is always grant, then its codes and tokens). After the wait, READ COMMITTED
 * gives each following statement a snapshot with whatever the previous holder committed, so a request
 * that lost a race sees the spent code or refresh token, and a revocation sees every token issued
 * before it. `grantId` is a subquery on the code or token: their grant never changes. Answers the
 * grant as it stands, or nothing when the code or token is unknown.
 */
function lockGrant(tx: EntityManager, grantId: Expression<number>, clientId?: number) {
  let query = db(tx)
    .selectFrom('oauth_grants')
    .select((eb) => ['id', 'scopes', eb('revoked_at', 'is not', null).as('revoked')])
    .where('id', '=', grantId);
  if (clientId !== undefined) query = query.where('client_id', '=', clientId);
  return first(query.forNoKeyUpdate());
}

/**
 * The answer to a code or refresh token presented a second time, at once or later: its family is
 * revoked in the request's own transaction, which commits, and then the request fails.
 */
const REUSED = Symbol('reused');

/** `authorization_code` grant: single-use code, exact redirect URI, PKCE S256, bound resource. */
export async function exchangeCode(em: EntityManager, request: AuthorizationCodeRequest, publicUrl: string) {
  const client = await findClient(em, request.client_id);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
  const { code, code_verifier: verifier, redirect_uri: redirectUri } = request;
  const codeHash = hashToken(code);
  const invalid =
    'The authorization code is invalid, expired, or was issued to another client or redirect URI';
  const issued = await em.transactional(async (tx) => {
    const grant = await lockGrant(
      tx,
      db(tx).selectFrom('oauth_codes').select('grant_id').where('code_hash', '=', codeHash).$asScalar(),
    );
    if (!grant) throw new OAuthError('invalid_grant', invalid);
    const c = await first(
      db(tx)
        .updateTable('oauth_codes')
        .set({ used_at: sql`now()` })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .returning((eb) => [
          'client_id',
          'redirect_uri',
          'code_challenge',
          'resource',
          eb('expires_at', '<=', sql<string>`now()`).as('expired'),
        ]),
    );
    // The code exists (its grant was found) but is spent: by an earlier request or by the one
    // that held the lock a moment ago. Either way the tokens it issued, and their rotations, end.
    if (!c) {
      await revokeChain(tx, 'code_hash', codeHash);
      return REUSED;
    }
    // Any refusal below rolls the spend back: the code stays usable by its rightful request.
    if (c.expired || c.client_id !== client.id || c.redirect_uri !== redirectUri) {
      throw new OAuthError('invalid_grant', invalid);
    }
    if (pkceChallenge(verifier) !== c.code_challenge) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    checkResource(request.resource, publicUrl, c.resource);
    if (grant.revoked) throw new OAuthError('invalid_grant', invalid);
    return issue(tx, {
      grantId: grant.id,
      codeHash,
      resource: c.resource,
      scopes: forResource(grant.scopes, publicUrl, c.resource),
    });
  });
  if (issued === REUSED)
    throw new OAuthError('invalid_grant', 'The authorization code was already used; its tokens are revoked');
  return issued;
}

/** `refresh_token` grant: rotates; a refresh token used twice revokes the whole grant's tokens. */
export async function refresh(em: EntityManager, request: RefreshTokenRequest, publicUrl: string) {
  const client = await findClient(em, request.client_id);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
  const tokenHash = hashToken(request.refresh_token);
  const invalid = 'The refresh token is invalid, expired or revoked';
  const issued = await em.transactional(async (tx) => {
    const byHash = db(tx)
      .selectFrom('oauth_tokens')
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', 'refresh');
    const grant = await lockGrant(tx, byHash.select('grant_id').$asScalar(), client.id);
    if (!grant) throw new OAuthError('invalid_grant', invalid);
    // Read after the lock: a rotation that committed while this request waited is seen here.
    const t = await first(
      byHash.select((eb) => [
        'id',
        'code_hash',
        'resource',
        eb('used_at', 'is not', null).as('used'),
        eb.and([eb('revoked_at', 'is', null), eb('expires_at', '>', sql<string>`now()`)]).as('live'),
      ]),
    );
    if (!t) throw new OAuthError('invalid_grant', invalid);
    if (t.used) {
      await revokeChain(tx, 'grant_id', grant.id);
      return REUSED;
    }
    if (!t.live || grant.revoked) throw new OAuthError('invalid_grant', invalid);
    checkResource(request.resource, publicUrl, t.resource);
    const allowed = forResource(grant.scopes, publicUrl, t.resource);
    const scopes = request.scope ? parseScopes(request.scope, allowed) : allowed;
    const spent = await first(
      db(tx)
        .updateTable('oauth_tokens')
        .set({ used_at: sql`now()` })
        .where('id', '=', t.id)
        .where('used_at', 'is', null)
        .returning('id'),
    );
    // Under the grant's lock nothing else spends it; the guard keeps the rule if that ever changes.
    if (!spent) {
      await revokeChain(tx, 'grant_id', grant.id);
      return REUSED;
    }
    return issue(tx, { grantId: grant.id, codeHash: t.code_hash, resource: t.resource, scopes });
  });
  if (issued === REUSED)
    throw new OAuthError('invalid_grant', 'The refresh token was already used; the grant is revoked');
  return issued;
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
    if (t.kind === 'refresh') {
      // After any rotation of the grant in flight has committed, so its new tokens end too.
      await lockGrant(tx, sql.val(t.grant_id));
      await revokeChain(tx, 'grant_id', t.grant_id);
    } else
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
