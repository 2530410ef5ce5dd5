import type { EntityManager } from '@mikro-orm/postgresql';
import { type Actor, actorScopes, OAUTH_SCOPES, type OAuthScope } from '../../src/auth/actor.ts';
import { bearerToken, resolveMcpToken } from '../../src/auth/credentials.ts';
import {
  API_ERROR_CODES,
  type ApiErrorCode,
  type BearerChallengeCode,
  errorDocUrl,
} from '../../src/error-codes.ts';
import { AppError, type ErrorBody } from '../../src/errors.ts';
import { TOOL_SCOPES } from '../../src/mcp/scopes.ts';

/** An answer refusing the request before MCP sees it, in the contract's error form. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/** A refusal of /mcp: status and category are the registry's for `code`, as `sendCode`'s are. */
function refusal(
  code: ApiErrorCode,
  message: string,
  wwwAuthenticate: string,
  extra: Record<string, unknown> = {},
): Refusal {
  const { status, category } = API_ERROR_CODES[code];
  return {
    status,
    headers: { 'WWW-Authenticate': wwwAuthenticate },
    body: { error: category, code, message, ...extra },
  };
}

/**
 * The Bearer challenge (RFC 6750 §3, RFC 9728 §5.1) every refusal of /mcp carries: where the resource
 * metadata is, which scopes to ask for, and what was wrong with the token when one was sent (with
 * `error_uri`, the code's entry on the error reference page).
 */
function challenge(
  publicUrl: string,
  scopes: readonly string[],
  error?: { error: BearerChallengeCode; description: string },
): string {
  const params = [
    `resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`,
    `scope="${scopes.join(' ')}"`,
  ];
  if (error) {
    const uri = errorDocUrl(publicUrl, error.error);
    params.push(`error="${error.error}"`, `error_description="${error.description}"`, `error_uri="${uri}"`);
  }
  return `Bearer ${params.join(', ')}`;
}

/**
 * The MCP token's actor, or a 401. No credential at all gets the bare challenge (RFC 6750 §3.1: no
 * error code); any other refusal is `invalid_token`: an expired or revoked token, a token for the REST
 * API, an API key (the MCP authorization profile is OAuth only).
 */
export async function authenticate(
  em: EntityManager,
  header: string | undefined,
  publicUrl: string,
): Promise<{ actor: Actor } | { refusal: Refusal }> {
  const token = bearerToken(header);
  if (!token) {
    const message = 'Missing credential: connect with OAuth and send Authorization: Bearer <access token>';
    return { refusal: refusal('INVALID_CREDENTIAL', message, challenge(publicUrl, TOOL_SCOPES)) };
  }
  try {
    return { actor: await resolveMcpToken(em, token, publicUrl) };
  } catch (err) {
    if (!(err instanceof AppError) || err.category !== 'unauthorized') throw err;
    const wwwAuthenticate = challenge(publicUrl, TOOL_SCOPES, {
      error: 'invalid_token',
      description: err.message,
    });
    return { refusal: refusal('INVALID_CREDENTIAL', err.message, wwwAuthenticate) };
  }
}

/**
 * 403 for a tool the token's scopes do not cover (MCP authorization, scope challenge handling): the
 * challenge names the scopes to ask for again, those held and those missing, so a client that
 * re-authorizes with it loses nothing it had.
 */
export function insufficientScope(
  publicUrl: string,
  actor: Actor,
  missing: { tool: string; scope: OAuthScope }[],
): Refusal {
  const wanted = new Set<string>([...actorScopes(actor), ...missing.map((m) => m.scope)]);
  const scopes = OAUTH_SCOPES.filter((s) => wanted.has(s));
  const [first] = missing;
  const message = missing.map((m) => `The tool ${m.tool} needs the scope ${m.scope}`).join('; ');
  const wwwAuthenticate = challenge(publicUrl, scopes, { error: 'insufficient_scope', description: message });
  return refusal('INSUFFICIENT_SCOPE', message, wwwAuthenticate, { required_scope: first?.scope });
}
