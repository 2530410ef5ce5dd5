import type { OAuthErrorCode } from '../../src/error-codes.ts';
import { oauthErrorBody } from '../../src/oauth/errors.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../src/oauth/metadata.ts';
import { EXAMPLE_PUBLIC_URL } from '../../src/trpc/operation-docs.ts';
import { RATE_LIMIT_HEADERS } from './headers.ts';
import { EXAMPLE_CLIENT_ID, EXAMPLE_REDIRECT, OAUTH_SCHEMAS } from './oauth-schemas.ts';
import { type oas31, ref } from './shared.ts';

// OAuth and discovery: raw routes (server/oauth/routes.ts), described by hand in the contract.

function oauthError(
  description: string,
  error: OAuthErrorCode,
  errorDescription: string,
  headers: oas31.HeadersObject = {},
): oas31.ResponseObject {
  return {
    description,
    headers,
    content: {
      'application/json': {
        schema: ref('schemas', 'OAuthError'),
        example: oauthErrorBody(error, errorDescription, EXAMPLE_PUBLIC_URL),
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

/** What the endpoints a browser-based client calls say of CORS (server/cors.ts). */
const ANY_ORIGIN =
  'Open to pages of any origin (`Access-Control-Allow-Origin: *`, preflight answered); no cookie is read.';

const NO_STORE: oas31.HeadersObject = {
  'Cache-Control': { description: '`no-store`', schema: { type: 'string', example: 'no-store' } },
};

function discovery(
  summary: string,
  description: string,
  operationId: string,
  schema: string,
  example: unknown,
): oas31.PathItemObject {
  return {
    get: {
      operationId,
      tags: ['OAuth'],
      summary,
      description: `${description} Limited to 60 requests a minute per IP address. ${ANY_ORIGIN}`,
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

export function addOAuthOperations(doc: oas31.OpenAPIObject) {
  doc.components ??= {};
  doc.components.schemas ??= {};
  Object.assign(doc.components.schemas, OAUTH_SCHEMAS);
  const base = 'https://api.stockless.example';
  doc.paths ??= {};
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
function registerPath(): oas31.PathItemObject {
  return {
    post: {
      operationId: 'registerOAuthClient',
      tags: ['OAuth'],
      summary: 'Register a partner app (RFC 7591)',
      description:
        'Dynamic client registration of a public client: no secret, PKCE at authorize. Redirect URIs are ' +
        'matched exactly at authorize and token, except that a loopback redirect URI may name any port. ' +
        `Limited to 20 registrations an hour per IP address. ${ANY_ORIGIN}`,
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
          'http is allowed only on the loopback (localhost, 127.0.0.1 or [::1]) for native apps; use https: http://app.example/cb',
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

/** The authorization request's query (RFC 6749 §4.1.1 with PKCE and RFC 8707's resource). */
const AUTHORIZE_PARAMETERS: oas31.ParameterObject[] = [
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
    description:
      'One of the registered redirect URIs, exactly; a registered loopback URI (`http://localhost`, ' +
      '`http://127.0.0.1`, `http://[::1]`) matches with any port.',
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

/** `/oauth/authorize`. */
function authorizePath(): oas31.PathItemObject {
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
function tokenPath(): oas31.PathItemObject {
  return {
    post: {
      operationId: 'requestOAuthToken',
      tags: ['OAuth'],
      summary: 'Exchange a code, or refresh (RFC 6749 §4.1.3, §6)',
      description:
        '`authorization_code`: the code from the redirect with its PKCE verifier. `refresh_token`: a new ' +
        'access token and a new refresh token (rotation; a spent refresh token revokes the whole grant). ' +
        '`resource` is required in both. Access tokens live one hour, refresh tokens 30 days. Limited to ' +
        `60 requests a minute per client address and 60 per client. ${ANY_ORIGIN}`,
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
function notFormEncoded(): oas31.ResponseObject {
  return oauthError(
    'The body is not form-encoded',
    'invalid_request',
    'Send the parameters as application/x-www-form-urlencoded',
  );
}

/** The challenge an unknown client gets at the token endpoints. */
const BASIC_CHALLENGE: oas31.HeadersObject = {
  'WWW-Authenticate': { description: '`Basic realm="oauth"`', schema: { type: 'string' } },
};

/** `/oauth/revoke`. */
function revokePath(): oas31.PathItemObject {
  return {
    post: {
      operationId: 'revokeOAuthToken',
      tags: ['OAuth'],
      summary: 'Revoke a token (RFC 7009)',
      description:
        'Revoking a refresh token ends every token of the grant (the app must be connected again); revoking an ' +
        'access token ends that token. An unknown token also answers 200. Counts against the token ' +
        `endpoint's limits (60 a minute per client address and per client). ${ANY_ORIGIN}`,
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
