import { OAUTH_SCOPES } from '../auth/actor.ts';
import { mcpResource, resourceScopes } from '../auth/resources.ts';

/** Authorization server metadata (RFC 8414): served at discovery and shown in the contract. */
export function authorizationServerMetadata(publicUrl: string) {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    registration_endpoint: `${publicUrl}/oauth/register`,
    revocation_endpoint: `${publicUrl}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${publicUrl}/docs`,
  };
}

/** Protected resource metadata (RFC 9728) of one resource of this server. */
export function protectedResourceMetadata(publicUrl: string, resource: string) {
  return {
    resource,
    authorization_servers: [publicUrl],
    scopes_supported: [...(resourceScopes(publicUrl, resource) ?? [])],
    bearer_methods_supported: ['header'],
    resource_name:
      resource === mcpResource(publicUrl) ? 'Stockless vendor MCP endpoint' : 'Stockless partner API',
    resource_documentation: `${publicUrl}/docs`,
  };
}
