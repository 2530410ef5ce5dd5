import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { type Actor, isAppScope, type McpOnlyScope } from './actor.ts';
import { API_KEY_PATTERN } from './api-keys.ts';
import { apiResource, mcpResource } from './resources.ts';
import { hashToken } from './secret-tokens.ts';
import { writeMarkOf } from './write-marks.ts';

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

type Scopes = Selectable<DB['oauth_tokens']>['scopes'];
type AccessToken = NonNullable<Awaited<ReturnType<typeof findAccessToken>>>;

/**
 * An OAuth access token that is live (not expired, not revoked, its grant standing), with the scopes
 * it acts with: what it was issued for (a refresh may narrow it), within what the grant allows now,
 * so a narrowed reinstall applies from the next call.
 */
async function findAccessToken(em: EntityManager, token: string) {
  if (!ACCESS_TOKEN_PATTERN.test(token)) return undefined;
  return first(
    db(em)
      .selectFrom('oauth_tokens as t')
      .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
      .select((eb) => [
        't.id',
        'g.store_id',
        'g.client_id',
        // An array constructor over a set operation, which the builder has no form for.
        sql<Scopes>`ARRAY(SELECT unnest(${eb.ref('g.scopes')}) INTERSECT SELECT unnest(${eb.ref('t.scopes')}))`.as(
          'scopes',
        ),
        't.resource',
        // Read-your-writes (write-marks.ts): the client's last write, read where the request already is.
        writeMarkOf(sql<string>`'oauth:' || ${eb.ref('g.store_id')} || ':' || ${eb.ref('g.client_id')}`).as(
          'write_lsn',
        ),
      ])
      .where('t.token_hash', '=', hashToken(token))
      // Literals, not parameters: the statement every request runs keeps its shape.
      .where('t.kind', '=', sql.lit('access'))
      .where('t.revoked_at', 'is', null)
      .where('t.expires_at', '>', sql<string>`now()`)
      .where('g.revoked_at', 'is', null),
  );
}

/** A live access token bound to `resource`, or the 401 every other token gets. */
async function tokenFor(em: EntityManager, token: string, resource: string): Promise<AccessToken> {
  const t = await findAccessToken(em, token);
  if (!t) throw unauthorized('Invalid or expired access token');
  if (t.resource !== resource) throw unauthorized('This access token is for another resource');
  return t;
}

function oauthActor(t: AccessToken, kind: 'app' | 'mcp'): Actor {
  const appScopes = new Set(t.scopes.filter(isAppScope));
  return {
    storeId: t.store_id,
    kind,
    // OAuth clients are governed by their resource scopes, not by the key's method rule.
    scope: 'read_write',
    appScopes,
    ...(kind === 'mcp'
      ? { mcpScopes: new Set(t.scopes.filter((s): s is McpOnlyScope => !isAppScope(s))) }
      : {}),
    credentialId: t.id,
    appId: t.client_id,
    canReadCustomers: appScopes.has('read_customers'),
    livemode: true,
    ...(t.write_lsn ? { lastWriteLsn: t.write_lsn } : {}),
  };
}

/** An app's access token: valid only for the REST API's resource, and only while its grant stands. */
async function resolveAppToken(em: EntityManager, token: string, publicUrl: string): Promise<Actor> {
  return oauthActor(await tokenFor(em, token, apiResource(publicUrl)), 'app');
}

/**
 * A token for the vendor MCP endpoint: valid only there (never on the REST API), with the app rules
 * and the MCP-only scopes. API keys are not accepted: the MCP authorization profile is OAuth.
 */
export async function resolveMcpToken(em: EntityManager, token: string, publicUrl: string): Promise<Actor> {
  if (API_KEY_PATTERN.test(token)) {
    throw unauthorized('API keys are not accepted on the MCP endpoint; connect with OAuth');
  }
  return oauthActor(await tokenFor(em, token, mcpResource(publicUrl)), 'mcp');
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
  const key = await first(
    db(em)
      .selectFrom('api_keys')
      .select(['id', 'store_id', 'scope', 'mode'])
      .select(writeMarkOf(sql<string>`'api_key:' || api_keys.id`).as('write_lsn'))
      .where('token_hash', '=', hashToken(token))
      .where('revoked_at', 'is', null),
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
    livemode: key.mode === 'live',
    ...(key.write_lsn ? { lastWriteLsn: key.write_lsn } : {}),
  };
}

/** Records last use at most once a minute per key and per process, off the request's critical path. */
function noteUsage(em: EntityManager, keyId: number): void {
  const now = Date.now();
  if (now - (lastUsageWrite.get(keyId) ?? 0) < USAGE_WRITE_INTERVAL_MS) return;
  lastUsageWrite.set(keyId, now);
  run(db(em).updateTable('api_keys').set({ last_used_at: sql`now()` }).where('id', '=', keyId)).catch(() => {
    lastUsageWrite.delete(keyId);
  });
}
