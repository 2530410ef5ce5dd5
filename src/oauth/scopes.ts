import { OAUTH_SCOPES, type OAuthScope } from '../auth/actor.ts';
import { OAuthError } from './errors.ts';

function isOAuthScope(s: string): s is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(s);
}

/** A space-separated scope string (RFC 6749 §3.3) as a de-duplicated list, or `invalid_scope`. */
export function parseScopes(raw: string, allowed: readonly string[] = OAUTH_SCOPES): OAuthScope[] {
  const list = [...new Set(raw.split(' ').filter(Boolean))];
  const unknown = list.filter((s) => !isOAuthScope(s) || !allowed.includes(s));
  if (unknown.length > 0)
    throw new OAuthError('invalid_scope', `Unknown or unregistered scope: ${unknown.join(' ')}`);
  if (list.length === 0) throw new OAuthError('invalid_scope', 'No scope requested');
  return list as OAuthScope[];
}

/** `invalid_scope` for any scope a token for this resource may not carry (an app asking for an MCP-only one). */
export function checkResourceScopes(scopes: readonly string[], allowed: readonly string[], resource: string) {
  const outside = scopes.filter((s) => !allowed.includes(s));
  if (outside.length > 0)
    throw new OAuthError('invalid_scope', `Not available for ${resource}: ${outside.join(' ')}`);
}
