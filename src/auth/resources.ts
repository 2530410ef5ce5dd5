import { APP_SCOPES, OAUTH_SCOPES, type OAuthScope } from './actor.ts';

/**
 * The two protected resources of this server (RFC 8707 resource indicators). A token is bound to
 * exactly one and is valid nowhere else.
 */
export const apiResource = (publicUrl: string) => `${publicUrl}/api/v1`;
export const mcpResource = (publicUrl: string) => `${publicUrl}/mcp`;

/**
 * The scopes a token for `resource` may carry, or undefined for a resource this server does not
 * serve. Partner apps on the REST API never get the MCP-only ones, whatever their grant holds.
 */
export function resourceScopes(publicUrl: string, resource: string): readonly OAuthScope[] | undefined {
  if (resource === apiResource(publicUrl)) return APP_SCOPES;
  if (resource === mcpResource(publicUrl)) return OAUTH_SCOPES;
  return undefined;
}
