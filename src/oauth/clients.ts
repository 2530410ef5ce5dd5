import type { EntityManager } from '@mikro-orm/postgresql';
import type { Insertable } from 'kysely';
import { z } from 'zod';
import { OAUTH_SCOPES } from '../auth/actor.ts';
import { randomToken } from '../auth/secret-tokens.ts';
import { type DB, db } from '../db/kysely.ts';
import { first, sql } from '../db/sql.ts';
import { OAuthError } from './errors.ts';
import { redirectUriProblem } from './redirect-uris.ts';
import { parseScopes } from './scopes.ts';

const httpsUri = z
  .string()
  .max(2000)
  .refine((v) => v.startsWith('https://'), 'must be an https URI');

const registration = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
  client_name: z.string().trim().min(1).max(100).optional(),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: z.string().max(500).optional(),
  client_uri: httpsUri.optional(),
  logo_uri: httpsUri.optional(),
  policy_uri: httpsUri.optional(),
  tos_uri: httpsUri.optional(),
  contacts: z.array(z.string().max(200)).max(10).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});

/** RFC 7591 dynamic registration of a public client (PKCE, no client secret). */
export async function registerClient(em: EntityManager, body: unknown) {
  const parsed = registration.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    throw new OAuthError(
      field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${field || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const m = parsed.data;
  for (const uri of m.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  if ((m.token_endpoint_auth_method ?? 'none') !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'Only public clients are registered: token_endpoint_auth_method must be "none" (use PKCE)',
    );
  }
  const grantTypes = m.grant_types ?? ['authorization_code', 'refresh_token'];
  if (grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types may hold authorization_code and refresh_token only',
    );
  }
  const responseTypes = m.response_types ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types may hold code only');
  }
  let scope: string;
  try {
    // Registration is not bound to a resource: without a scope, a client may later ask for any scope,
    // and the resource it asks for decides which it gets (an app on the REST API, no MCP-only ones).
    scope = parseScopes(m.scope ?? OAUTH_SCOPES.join(' ')).join(' ');
  } catch (err) {
    throw new OAuthError('invalid_client_metadata', (err as Error).message);
  }
  const clientId = randomToken('slc_');
  const name = m.client_name ?? 'Unnamed app';
  const extra = {
    client_uri: m.client_uri,
    logo_uri: m.logo_uri,
    policy_uri: m.policy_uri,
    tos_uri: m.tos_uri,
    contacts: m.contacts,
    software_id: m.software_id,
    software_version: m.software_version,
  };
  const issuedAt = await insertClient(em, {
    client_id: clientId,
    client_name: name,
    redirect_uris: m.redirect_uris,
    scope,
    metadata: JSON.stringify({ ...extra, grant_types: grantTypes, response_types: responseTypes }),
  });
  return {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    client_name: name,
    redirect_uris: m.redirect_uris,
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: 'none',
    scope,
    ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
  };
}

/** Stores the client; answers when it was issued, in whole seconds since the epoch (RFC 7591). */
async function insertClient(em: EntityManager, client: Insertable<DB['oauth_clients']>): Promise<number> {
  const row = await first(
    db(em)
      .insertInto('oauth_clients')
      .values(client)
      // extract(epoch FROM …), which the builder has no form for.
      .returning((eb) =>
        sql<number>`extract(epoch FROM ${eb.ref('created_at')})::bigint::integer`.as('issued_at'),
      ),
  );
  return row?.issued_at ?? Math.floor(Date.now() / 1000);
}

export async function findClient(em: EntityManager, clientId: string | undefined) {
  if (!clientId || clientId.length > 100) return undefined;
  return first(
    db(em)
      .selectFrom('oauth_clients')
      .select(['id', 'client_id', 'client_name', 'redirect_uris', 'scope'])
      .where('client_id', '=', clientId),
  );
}
