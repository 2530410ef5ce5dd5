import { APP_SCOPES, type AppScope } from '../auth/actor.ts';
import { OAuthError } from './errors.ts';

export function isAppScope(s: string): s is AppScope {
  return (APP_SCOPES as readonly string[]).includes(s);
}

/** A space-separated scope string (RFC 6749 §3.3) as a de-duplicated list, or `invalid_scope`. */
export function parseScopes(raw: string, allowed: readonly string[] = APP_SCOPES): AppScope[] {
  const list = [...new Set(raw.split(' ').filter(Boolean))];
  const unknown = list.filter((s) => !isAppScope(s) || !allowed.includes(s));
  if (unknown.length > 0)
    throw new OAuthError('invalid_scope', `Unknown or unregistered scope: ${unknown.join(' ')}`);
  if (list.length === 0) throw new OAuthError('invalid_scope', 'No scope requested');
  return list as AppScope[];
}
