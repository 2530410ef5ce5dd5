import { APP_SCOPES } from '../src/auth/actor.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../src/oauth/metadata.ts';
import { type Json, RATE_LIMIT_HEADERS, ref } from './openapi-shared.ts';

// OAuth and discovery: raw routes (server/oauth/routes.ts), described by hand in the contract.

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

const EXAMPLE_CLIENT_ID = 'slc_q3v7m2kx9hdw4tzn8rcjf5pybg6a1es0lu2ioxke';
const EXAMPLE_REDIRECT = 'https://app.example.com/oauth/callback';

const OAUTH_SCHEMAS: Record<string, Json> = {
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
          'Exact-match redirect URIs: `https://` without a fragment, or for native apps `http://127.0.0.1` or ' +
          '`http://[::1]` with any port (RFC 8252; `localhost` is refused).',
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

function oauthError(description: string, error: string, errorDescription: string, headers: Json = {}): Json {
  return {
    description,
    headers,
    content: {
      'application/json': {
        schema: ref('schemas', 'OAuthError'),
        example: { error, error_description: errorDescription },
      },
    },
  };
}

const tooMany = (limit: string) =>
  oauthError(
    `Rate limited (${limit})`,
    'temporarily_unavailable',
    'Too many requests; retry after the Retry-After delay',
    { 'Retry-After': ref('headers', 'RetryAfter'), ...RATE_LIMIT_HEADERS },
  );

const NO_STORE = {
  'Cache-Control': { description: '`no-store`', schema: { type: 'string', example: 'no-store' } },
};

function discovery(summary: string, description: string, operationId: string, schema: string, example: Json) {
  return {
    get: {
      operationId,
      tags: ['OAuth'],
      summary,
      description: `${description} Limited to 60 requests a minute per IP address.`,
      security: [],
      responses: {
        '200': {
          description: 'The metadata document',
          headers: {
            'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } },
            ...RATE_LIMIT_HEADERS,
          },
          content: { 'application/json': { schema: ref('schemas', schema), example } },
        },
        '429': tooMany('60 a minute per IP address'),
      },
    },
  };
}

export function addOAuthOperations(doc: Json) {
  Object.assign(doc.components.schemas, OAUTH_SCHEMAS);
  const base = 'https://api.stockless.example';
  Object.assign(doc.paths, {
    '/oauth/register': registerPath(),
    '/oauth/authorize': authorizePath(),
    '/oauth/token': tokenPath(),
    '/oauth/revoke': revokePath(),
    '/.well-known/oauth-authorization-server': discovery(
      'Authorization server metadata (RFC 8414)',
      'Where the OAuth endpoints are and what they support.',
      'getAuthorizationServerMetadata',
      'AuthorizationServerMetadata',
      authorizationServerMetadata(base),
    ),
    '/.well-known/oauth-protected-resource': discovery(
      'Protected resource metadata of the API (RFC 9728)',
      'The metadata of the REST API, resource `{base_url}/api/v1`.',
      'getProtectedResourceMetadata',
      'ProtectedResourceMetadata',
      protectedResourceMetadata(base, `${base}/api/v1`),
    ),
    '/.well-known/oauth-protected-resource/api/v1': discovery(
      'Protected resource metadata of the API, path-inserted form (RFC 9728 §3.1)',
      'The same document as `/.well-known/oauth-protected-resource`, at the URL a strict RFC 9728 client derives ' +
        'from the resource identifier `{base_url}/api/v1` (the one a 401 names in `WWW-Authenticate`).',
      'getApiProtectedResourceMetadata',
      'ProtectedResourceMetadata',
      protectedResourceMetadata(base, `${base}/api/v1`),
    ),
    '/.well-known/oauth-protected-resource/mcp': discovery(
      'Protected resource metadata of the vendor MCP endpoint (RFC 9728)',
      'Resource `{base_url}/mcp`. App tokens of this API are never valid there.',
      'getMcpProtectedResourceMetadata',
      'ProtectedResourceMetadata',
      protectedResourceMetadata(base, `${base}/mcp`),
    ),
  });
}

/** `/oauth/register`. */
function registerPath(): Json {
  return {
    post: {
      operationId: 'registerOAuthClient',
      tags: ['OAuth'],
      summary: 'Register a partner app (RFC 7591)',
      description:
        'Dynamic client registration of a public client: no secret, PKCE at authorize. Redirect URIs are ' +
        'matched exactly at authorize and token. Limited to 20 registrations an hour per IP address.',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: ref('schemas', 'OAuthClientMetadata'),
            example: {
              redirect_uris: [EXAMPLE_REDIRECT],
              client_name: 'Acme Marketplace Sync',
              token_endpoint_auth_method: 'none',
              scope: 'read_products read_orders write_external_orders',
            },
          },
        },
      },
      responses: {
        '201': {
          description: 'Registered',
          headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
          content: {
            'application/json': {
              schema: ref('schemas', 'OAuthClient'),
              example: {
                client_id: EXAMPLE_CLIENT_ID,
                client_id_issued_at: 1762137600,
                client_name: 'Acme Marketplace Sync',
                redirect_uris: [EXAMPLE_REDIRECT],
                grant_types: ['authorization_code', 'refresh_token'],
                response_types: ['code'],
                token_endpoint_auth_method: 'none',
                scope: 'read_products read_orders write_external_orders',
              },
            },
          },
        },
        '400': oauthError(
          'Invalid metadata (`invalid_redirect_uri`, `invalid_client_metadata`)',
          'invalid_redirect_uri',
          'must be https, or http on a loopback IP (127.0.0.1 or [::1]) for native apps: http://localhost/cb',
        ),
        '415': oauthError(
          'The body is not `application/json`',
          'invalid_client_metadata',
          'Send the client metadata as application/json',
        ),
        '429': tooMany('20 an hour per IP address'),
      },
    },
  };
}

/** `/oauth/authorize`. */
/** The authorization request's query (RFC 6749 §4.1.1 with PKCE and RFC 8707's resource). */
const AUTHORIZE_PARAMETERS: Json[] = [
  {
    in: 'query',
    name: 'response_type',
    required: true,
    description: 'Always `code`.',
    schema: { type: 'string', enum: ['code'] },
  },
  {
    in: 'query',
    name: 'client_id',
    required: true,
    description: 'From registration.',
    schema: { type: 'string', example: EXAMPLE_CLIENT_ID },
  },
  {
    in: 'query',
    name: 'redirect_uri',
    required: true,
    description: 'One of the registered redirect URIs, exactly.',
    schema: { type: 'string', example: EXAMPLE_REDIRECT },
  },
  {
    in: 'query',
    name: 'scope',
    required: false,
    description: 'Space-separated app scopes, among those registered; default: all registered.',
    schema: { type: 'string', example: 'read_products read_orders' },
  },
  {
    in: 'query',
    name: 'state',
    required: false,
    description: 'Opaque value returned unchanged on the redirect (CSRF protection for the app).',
    schema: { type: 'string', example: 'af0ifjsldkj' },
  },
  {
    in: 'query',
    name: 'code_challenge',
    required: true,
    description: 'PKCE: base64url(SHA-256(code_verifier)) without padding, 43 characters.',
    schema: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{43}$',
      example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    },
  },
  {
    in: 'query',
    name: 'code_challenge_method',
    required: true,
    description: 'Only `S256` (`plain` is refused).',
    schema: { type: 'string', enum: ['S256'] },
  },
  {
    in: 'query',
    name: 'resource',
    required: true,
    description: 'RFC 8707: the API the token is for, `{base_url}/api/v1`.',
    schema: { type: 'string', example: 'https://api.stockless.example/api/v1' },
  },
];

function authorizePath(): Json {
  return {
    get: {
      operationId: 'authorizeOAuth',
      tags: ['OAuth'],
      summary: 'Start connecting an app to a store',
      description:
        'The browser is sent here by the app. A valid request is redirected to the Stockless sign-in and ' +
        'consent page, where a user of the store approves the scopes; the browser then returns to ' +
        '`redirect_uri` with `code`, `state` and `iss` (RFC 9207), or with `error`, `error_description`, ' +
        '`state` and `iss` (`access_denied`, `invalid_request`, `unsupported_response_type`, `invalid_scope`, ' +
        '`invalid_target`). An unknown `client_id` or an unregistered `redirect_uri` is never redirected: it ' +
        'answers an HTML error page.',
      security: [],
      parameters: AUTHORIZE_PARAMETERS,
      responses: {
        '302': {
          description:
            'To the sign-in and consent page (`/oauth/consent?request=…`), or back to `redirect_uri` with an error',
          headers: {
            Location: {
              description: 'Where the browser goes next.',
              schema: {
                type: 'string',
                example: `${EXAMPLE_REDIRECT}?error=invalid_scope&error_description=Unknown%20or%20unregistered%20scope%3A%20write_orders&state=af0ifjsldkj&iss=https%3A%2F%2Fapi.stockless.example`,
              },
            },
          },
        },
        '400': {
          description: 'Unknown client or unregistered redirect URI: an HTML error page, never a redirect',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  };
}

/** `/oauth/token`. */
function tokenPath(): Json {
  return {
    post: {
      operationId: 'requestOAuthToken',
      tags: ['OAuth'],
      summary: 'Exchange a code, or refresh (RFC 6749 §4.1.3, §6)',
      description:
        '`authorization_code`: the code from the redirect with its PKCE verifier. `refresh_token`: a new ' +
        'access token and a new refresh token (rotation; a spent refresh token revokes the whole grant). ' +
        '`resource` is required in both. Access tokens live one hour, refresh tokens 30 days. Limited to ' +
        '60 requests a minute per client address and 60 per client.',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: ref('schemas', 'OAuthTokenRequest'),
            example: {
              grant_type: 'authorization_code',
              client_id: EXAMPLE_CLIENT_ID,
              code: 'k2m9q4x7v3hd8wz5tn6rcj1pyb0aesfglu4oixke',
              code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
              redirect_uri: EXAMPLE_REDIRECT,
              resource: 'https://api.stockless.example/api/v1',
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'Tokens',
          headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
          content: {
            'application/json': {
              schema: ref('schemas', 'OAuthToken'),
              example: {
                access_token: 'sl_at_v8k2m9q4x7h3dwz5tn6rcj1pyb0aesfglu4oix',
                token_type: 'Bearer',
                expires_in: 3600,
                refresh_token: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi',
                scope: 'read_products read_orders',
              },
            },
          },
        },
        '400': oauthError(
          'Refused (`invalid_request`, `invalid_grant`, `invalid_target`, `invalid_scope`, `unsupported_grant_type`)',
          'invalid_grant',
          'code_verifier does not match the code_challenge',
        ),
        '401': oauthError(
          'Unknown client (`invalid_client`)',
          'invalid_client',
          'Client authentication failed',
          BASIC_CHALLENGE,
        ),
        '415': notFormEncoded(),
        '429': tooMany('60 a minute per client address and per client'),
      },
    },
  };
}

/** The token endpoints' answer to a body that is not a form. */
function notFormEncoded(): Json {
  return oauthError(
    'The body is not form-encoded',
    'invalid_request',
    'Send the parameters as application/x-www-form-urlencoded',
  );
}

/** The challenge an unknown client gets at the token endpoints. */
const BASIC_CHALLENGE: Json = {
  'WWW-Authenticate': { description: '`Basic realm="oauth"`', schema: { type: 'string' } },
};

/** `/oauth/revoke`. */
function revokePath(): Json {
  return {
    post: {
      operationId: 'revokeOAuthToken',
      tags: ['OAuth'],
      summary: 'Revoke a token (RFC 7009)',
      description:
        'Revoking a refresh token ends every token of the grant (the app must be connected again); revoking an ' +
        'access token ends that token. An unknown token also answers 200. Counts against the token ' +
        "endpoint's limits (60 a minute per client address and per client).",
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: ref('schemas', 'OAuthRevocationRequest'),
            example: { client_id: EXAMPLE_CLIENT_ID, token: 'sl_rt_n5w2k8q4x7v3hd9mz6tp1rcjyb0aesfglu4oi' },
          },
        },
      },
      responses: {
        '200': {
          description: 'Revoked, or no such token (empty body)',
          headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
        },
        '400': oauthError('Missing `client_id` or `token`', 'invalid_request', 'token is required'),
        '401': oauthError(
          'Unknown client',
          'invalid_client',
          'Client authentication failed',
          BASIC_CHALLENGE,
        ),
        '415': notFormEncoded(),
        '429': tooMany('60 a minute per client address and per client'),
      },
    },
  };
}
