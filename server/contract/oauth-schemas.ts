import { APP_SCOPES } from '../../src/auth/actor.ts';
import type { oas31 } from './shared.ts';

// The OAuth and discovery endpoints' bodies (components.schemas), in their RFCs' terms.

const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'temporarily_unavailable',
  'not_found',
];

export const EXAMPLE_CLIENT_ID = 'slc_q3v7m2kx9hdw4tzn8rcjf5pybg6a1es0lu2ioxke';
export const EXAMPLE_REDIRECT = 'https://app.example.com/oauth/callback';

export const OAUTH_SCHEMAS: Record<string, oas31.SchemaObject> = {
  OAuthError: {
    type: 'object',
    description: 'RFC 6749 §5.2: the error form of every OAuth and discovery endpoint.',
    required: ['error', 'error_description'],
    properties: {
      error: {
        type: 'string',
        description:
          'An RFC 6749 / RFC 7591 / RFC 8707 error code: ' +
          OAUTH_ERROR_CODES.map((c) => `\`${c}\``).join(', '),
        example: 'invalid_grant',
      },
      error_description: {
        type: 'string',
        description: 'Human-readable explanation.',
        example: 'code_verifier does not match the code_challenge',
      },
      error_uri: {
        type: 'string',
        format: 'uri',
        description: "The error's entry on the error reference page (`/docs/errors/<error>`).",
        example: 'https://api.stockless.example/docs/errors/invalid_grant',
      },
    },
  },
  OAuthClientMetadata: {
    type: 'object',
    description:
      'RFC 7591 client metadata. Only public clients are registered (`token_endpoint_auth_method: none`, PKCE).',
    required: ['redirect_uris'],
    properties: {
      redirect_uris: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        description:
          'Redirect URIs, matched exactly: `https://` without a fragment; for native and desktop apps ' +
          '`http://localhost`, `http://127.0.0.1` or `http://[::1]`, where any port matches at authorize (RFC 8252 ' +
          '§7.3), or a private-use scheme such as `com.example.app:/callback` (§7.1). Schemes a browser gives a ' +
          'meaning of its own (`javascript:`, `data:`, `file:`, …) are refused.',
        items: { type: 'string', maxLength: 2000 },
        example: [EXAMPLE_REDIRECT],
      },
      client_name: { type: 'string', minLength: 1, maxLength: 100, example: 'Acme Marketplace Sync' },
      token_endpoint_auth_method: {
        type: 'string',
        enum: ['none'],
        default: 'none',
        description: 'Public clients only.',
      },
      grant_types: {
        type: 'array',
        items: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
        default: ['authorization_code', 'refresh_token'],
      },
      response_types: { type: 'array', items: { type: 'string', enum: ['code'] }, default: ['code'] },
      scope: {
        type: 'string',
        maxLength: 500,
        description: 'Space-separated app scopes the app may ask for; default: all of them.',
        example: 'read_products read_orders write_external_orders',
      },
      client_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      logo_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      policy_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      tos_uri: { type: 'string', format: 'uri', maxLength: 2000, description: 'https only.' },
      contacts: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 200 } },
      software_id: { type: 'string', maxLength: 200 },
      software_version: { type: 'string', maxLength: 100 },
    },
  },
  OAuthClient: {
    type: 'object',
    description: 'The registered client (RFC 7591 §3.2.1). There is no client secret.',
    required: [
      'client_id',
      'client_id_issued_at',
      'client_name',
      'redirect_uris',
      'grant_types',
      'response_types',
      'token_endpoint_auth_method',
      'scope',
    ],
    properties: {
      client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
      client_id_issued_at: { type: 'integer', description: 'Unix seconds.', example: 1762137600 },
      client_name: { type: 'string', example: 'Acme Marketplace Sync' },
      redirect_uris: { type: 'array', items: { type: 'string' }, example: [EXAMPLE_REDIRECT] },
      grant_types: {
        type: 'array',
        items: { type: 'string' },
        example: ['authorization_code', 'refresh_token'],
      },
      response_types: { type: 'array', items: { type: 'string' }, example: ['code'] },
      token_endpoint_auth_method: { type: 'string', enum: ['none'] },
      scope: { type: 'string', example: 'read_products read_orders write_external_orders' },
      client_uri: { type: 'string' },
      logo_uri: { type: 'string' },
      policy_uri: { type: 'string' },
      tos_uri: { type: 'string' },
      contacts: { type: 'array', items: { type: 'string' } },
      software_id: { type: 'string' },
      software_version: { type: 'string' },
    },
  },
  OAuthTokenRequest: {
    description: 'Form fields of a token request (`application/x-www-form-urlencoded`).',
    oneOf: [
      {
        title: 'authorization_code',
        type: 'object',
        required: ['grant_type', 'client_id', 'code', 'code_verifier', 'redirect_uri', 'resource'],
        properties: {
          grant_type: { type: 'string', const: 'authorization_code' },
          client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
          code: {
            type: 'string',
            description:
              'The code from the redirect: single use, valid 5 minutes. A replayed code revokes its tokens.',
            example: 'k2m9q4x7v3hd8wz5tn6rcj1pyb0aesfglu4oixke',
          },
          code_verifier: {
            type: 'string',
            description: 'The PKCE verifier whose S256 challenge was sent to authorize.',
            example: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
          },
          redirect_uri: {
            type: 'string',
            description: 'Exactly as sent to authorize.',
            example: EXAMPLE_REDIRECT,
          },
          resource: {
            type: 'string',
            description: 'RFC 8707: `{base_url}/api/v1`, as sent to authorize.',
            example: 'https://api.stockless.example/api/v1',
          },
        },
      },
      {
        title: 'refresh_token',
        type: 'object',
        required: ['grant_type', 'client_id', 'refresh_token', 'resource'],
        properties: {
          grant_type: { type: 'string', const: 'refresh_token' },
          client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
          refresh_token: {
            type: 'string',
            description:
              'Rotates: the answer carries a new refresh token. Presenting a spent one revokes every token of the grant.',
            example: 'sl_rt_p4x9m2kq7v3hd8wz5tn6rcj1yb0aesfglu4oixk',
          },
          scope: {
            type: 'string',
            description: "Optional: fewer scopes than the grant's for the new access token.",
            example: 'read_products',
          },
          resource: {
            type: 'string',
            description: 'RFC 8707: `{base_url}/api/v1`.',
            example: 'https://api.stockless.example/api/v1',
          },
        },
      },
    ],
  },
  OAuthToken: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
    properties: {
      access_token: {
        type: 'string',
        description: 'Valid one hour, only on `{base_url}/api/v1`.',
        example: 'sl_at_v8k2m9q4x7h3dwz5tn6rcj1pyb0aesfglu4oix',
      },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer', description: 'Seconds.', example: 3600 },
      refresh_token: {
        type: 'string',
        description: 'Valid 30 days; single use (rotates).',
        example: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi',
      },
      scope: {
        type: 'string',
        description: "Informational: the scopes of the store's grant are read on every call.",
        example: 'read_products read_orders',
      },
    },
  },
  OAuthRevocationRequest: {
    type: 'object',
    required: ['client_id', 'token'],
    properties: {
      client_id: { type: 'string', example: EXAMPLE_CLIENT_ID },
      token: {
        type: 'string',
        description:
          "An access or refresh token of this client. A refresh token ends the grant's tokens; an access token ends itself.",
        example: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi',
      },
      token_type_hint: {
        type: 'string',
        enum: ['access_token', 'refresh_token'],
        description: 'Accepted and not needed: the token says what it is.',
      },
    },
  },
  AuthorizationServerMetadata: {
    type: 'object',
    description: 'RFC 8414 authorization server metadata.',
    required: [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'registration_endpoint',
      'revocation_endpoint',
      'response_types_supported',
      'grant_types_supported',
      'code_challenge_methods_supported',
      'token_endpoint_auth_methods_supported',
      'scopes_supported',
    ],
    properties: {
      issuer: { type: 'string', example: 'https://api.stockless.example' },
      authorization_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/authorize' },
      token_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/token' },
      registration_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/register' },
      revocation_endpoint: { type: 'string', example: 'https://api.stockless.example/oauth/revoke' },
      response_types_supported: { type: 'array', items: { type: 'string' }, example: ['code'] },
      response_modes_supported: { type: 'array', items: { type: 'string' }, example: ['query'] },
      grant_types_supported: {
        type: 'array',
        items: { type: 'string' },
        example: ['authorization_code', 'refresh_token'],
      },
      code_challenge_methods_supported: { type: 'array', items: { type: 'string' }, example: ['S256'] },
      token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' }, example: ['none'] },
      revocation_endpoint_auth_methods_supported: {
        type: 'array',
        items: { type: 'string' },
        example: ['none'],
      },
      scopes_supported: { type: 'array', items: { type: 'string' }, example: [...APP_SCOPES] },
      authorization_response_iss_parameter_supported: { type: 'boolean', example: true },
      service_documentation: { type: 'string', example: 'https://api.stockless.example/docs' },
    },
  },
  ProtectedResourceMetadata: {
    type: 'object',
    description: 'RFC 9728 protected resource metadata.',
    required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'],
    properties: {
      resource: { type: 'string', example: 'https://api.stockless.example/api/v1' },
      authorization_servers: {
        type: 'array',
        items: { type: 'string' },
        example: ['https://api.stockless.example'],
      },
      scopes_supported: { type: 'array', items: { type: 'string' }, example: [...APP_SCOPES] },
      bearer_methods_supported: { type: 'array', items: { type: 'string' }, example: ['header'] },
      resource_name: { type: 'string', example: 'Stockless partner API' },
      resource_documentation: { type: 'string', example: 'https://api.stockless.example/docs' },
    },
  },
};
