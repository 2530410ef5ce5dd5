import type { EntityManager } from '@mikro-orm/postgresql';
import type { Insertable } from 'kysely';
import { apiResource, mcpResource, resourceScopes } from '../auth/resources.ts';
import { randomToken } from '../auth/secret-tokens.ts';
import { type DB, db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { findClient } from './clients.ts';
import type { OAuthError } from './errors.ts';
import { redirectUriRegistered } from './redirect-uris.ts';
import { checkResourceScopes, parseScopes } from './scopes.ts';

const REQUEST_TTL_MINUTES = 10;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export type AuthorizeOutcome =
  /** Client or redirect URI cannot be trusted: show an error page, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'page'; error: string; description: string }
  /** Tell the client, at its own redirect URI. */
  | { kind: 'redirect'; location: string }
  /** Valid: on to sign-in and consent. */
  | { kind: 'consent'; requestId: string };

/** `redirect_uri` with the authorization response added (`iss` per RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

export async function startAuthorization(
  em: EntityManager,
  q: URLSearchParams,
  issuer: string,
): Promise<AuthorizeOutcome> {
  const client = await findClient(em, q.get('client_id') ?? undefined);
  const redirectUri = q.get('redirect_uri') ?? '';
  // One answer for an unknown client and a redirect URI it did not register: nothing to probe.
  if (!client || !redirectUriRegistered(client.redirect_uris, redirectUri)) {
    return {
      kind: 'page',
      error: 'invalid_request',
      description:
        'Unknown client_id, or a redirect_uri that is not registered for it (exactly, except a loopback port)',
    };
  }
  const state = q.get('state') ?? undefined;
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: redirectWith(redirectUri, { error, error_description: description, state, iss: issuer }),
  });
  for (const name of [
    'response_type',
    'client_id',
    'redirect_uri',
    'code_challenge',
    'code_challenge_method',
    'scope',
    'state',
    'resource',
  ]) {
    if (q.getAll(name).length > 1) return fail('invalid_request', `${name} is repeated`);
  }
  if (q.get('response_type') !== 'code') {
    return fail('unsupported_response_type', 'response_type must be code');
  }
  const method = q.get('code_challenge_method');
  const challenge = q.get('code_challenge');
  if (!challenge || !method)
    return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  if (method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256 (plain is not allowed)');
  if (!CHALLENGE.test(challenge))
    return fail('invalid_request', 'code_challenge must be 43 base64url characters');
  const resource = q.get('resource');
  if (!resource) return fail('invalid_target', 'resource is required: the API this token is for');
  // RFC 8707: the REST API for partner apps, or the vendor MCP endpoint for the store's assistant.
  const allowed: readonly string[] | undefined = resourceScopes(issuer, resource);
  if (!allowed) {
    return fail('invalid_target', `resource must be ${apiResource(issuer)} or ${mcpResource(issuer)}`);
  }
  let scopes: string[];
  try {
    const registered = client.scope.split(' ');
    // No scope asked: what the client registered, as far as this resource allows it.
    scopes = parseScopes(
      q.get('scope') ?? registered.filter((s) => allowed.includes(s)).join(' '),
      registered,
    );
    checkResourceScopes(scopes, allowed, resource);
  } catch (err) {
    return fail('invalid_scope', (err as OAuthError).description);
  }
  const requestId = randomToken('');
  await saveRequest(em, {
    id: requestId,
    client_id: client.id,
    redirect_uri: redirectUri,
    scopes,
    state: state ?? null,
    code_challenge: challenge,
    resource,
  });
  return { kind: 'consent', requestId };
}

/** Keeps a valid request for the sign-in and consent pages, for ten minutes. */
async function saveRequest(em: EntityManager, request: Omit<Insertable<DB['oauth_requests']>, 'expires_at'>) {
  await run(
    db(em)
      .insertInto('oauth_requests')
      .values({ ...request, expires_at: sql`now() + ${REQUEST_TTL_MINUTES} * interval '1 minute'` }),
  );
}

export type PendingRequest = NonNullable<Awaited<ReturnType<typeof pendingRequest>>>;

export async function pendingRequest(em: EntityManager, id: string | undefined) {
  if (!id || id.length > 100) return undefined;
  return first(
    db(em)
      .selectFrom('oauth_requests as r')
      .innerJoin('oauth_clients as c', 'c.id', 'r.client_id')
      .select([
        'r.id',
        'r.client_id',
        'c.client_name',
        'r.redirect_uri',
        'r.scopes',
        'r.state',
        'r.code_challenge',
        'r.resource',
      ])
      .where('r.id', '=', id)
      .where('r.expires_at', '>', sql<string>`now()`),
  );
}
