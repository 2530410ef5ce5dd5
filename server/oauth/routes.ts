import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiResource, mcpResource } from '../../src/auth/resources.ts';
import { startAuthorization } from '../../src/oauth/authorization-request.ts';
import { registerClient } from '../../src/oauth/clients.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../src/oauth/metadata.ts';
import { parseTokenRequest } from '../../src/oauth/token-request.ts';
import { exchangeCode, refresh, revoke } from '../../src/oauth/tokens.ts';
import { discoveryKey, oauthRegisterKey, oauthTokenKeys } from '../../src/ratelimit/keys.ts';
import { hitLimit, type LimitResult, limitHeaders } from '../../src/ratelimit/limiter.ts';
import { oauthCors } from '../cors.ts';
import { searchParams } from '../http-input.ts';
import type { RequestTarget } from '../request-target.ts';
import { errorPage, sendPage } from './consent-page.ts';
import { consent } from './consent-route.ts';
import { asOAuth, clientIp, readForm, readJson, sendOAuthError, sendOAuthJson } from './http.ts';

export interface OAuthDeps {
  em: () => EntityManager;
  publicUrl: string;
  limits: { token: number; register: number; discovery: number };
}

/**
 * The shared limiter, answering in the OAuth error form. Every key must allow the request (checked
 * in order; a refusal counts against none after it), and the headers describe the tightest.
 */
async function limit(em: EntityManager, keys: string[], max: number, windowSeconds: number) {
  let tightest: LimitResult | undefined;
  for (const key of keys) {
    const r = await hitLimit(em, key, max, windowSeconds);
    if (!r.allowed) {
      throw new OAuthError(
        'temporarily_unavailable',
        'Too many requests; retry after the Retry-After delay',
        429,
        {
          ...limitHeaders(r),
          'Retry-After': String(r.retryAfterSeconds),
        },
      );
    }
    if (!tightest || r.remaining < tightest.remaining) tightest = r;
  }
  return tightest ? limitHeaders(tightest) : {};
}

/** What an endpoint handler works with. */
interface Endpoint {
  req: IncomingMessage;
  res: ServerResponse;
  em: EntityManager;
  deps: OAuthDeps;
  path: string;
  query: URLSearchParams;
}

function onlyMethod(ep: Endpoint, allowed: string) {
  if ((ep.req.method ?? 'GET') !== allowed)
    throw new OAuthError('invalid_request', `Use ${allowed}`, 405, {
      Allow: allowed === 'GET' ? 'GET, HEAD' : allowed,
    });
}

/**
 * The token and revocation endpoints: a form POST, limited per address and per client, so an
 * address cannot escape by naming a new client_id each time.
 */
async function tokenEndpointForm(ep: Endpoint) {
  onlyMethod(ep, 'POST');
  const form = await readForm(ep.req);
  const keys = oauthTokenKeys(clientIp(ep.req), form.get('client_id'));
  return { form, headers: await limit(ep.em, keys, ep.deps.limits.token, 60) };
}

/** RFC 8414 and RFC 9728 documents, cached for five minutes, limited per address. */
async function discovery(ep: Endpoint) {
  const { publicUrl } = ep.deps;
  const docs: Record<string, () => unknown> = {
    '/.well-known/oauth-authorization-server': () => authorizationServerMetadata(publicUrl),
    '/.well-known/oauth-protected-resource': () =>
      protectedResourceMetadata(publicUrl, apiResource(publicUrl)),
    '/.well-known/oauth-protected-resource/api/v1': () =>
      protectedResourceMetadata(publicUrl, apiResource(publicUrl)),
    '/.well-known/oauth-protected-resource/mcp': () =>
      protectedResourceMetadata(publicUrl, mcpResource(publicUrl)),
  };
  const doc = docs[ep.path];
  if (!doc) throw new OAuthError('not_found', `No document at ${ep.path}`, 404);
  onlyMethod(ep, 'GET');
  const headers = await limit(ep.em, [discoveryKey(clientIp(ep.req))], ep.deps.limits.discovery, 60);
  sendOAuthJson(ep.res, 200, doc(), { ...headers, 'Cache-Control': 'public, max-age=300' });
}

/** Dynamic client registration (RFC 7591), limited per address. */
async function register(ep: Endpoint) {
  onlyMethod(ep, 'POST');
  const headers = await limit(ep.em, [oauthRegisterKey(clientIp(ep.req))], ep.deps.limits.register, 3600);
  const type = (ep.req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json')
    throw new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json', 415);
  const body = await readJson(ep.req, 'invalid_client_metadata');
  sendOAuthJson(ep.res, 201, await registerClient(ep.em, body), headers);
}

/** The authorization request: an error page, a redirect back with an error, or on to consent. */
async function authorize(ep: Endpoint) {
  onlyMethod(ep, 'GET');
  const outcome = await startAuthorization(ep.em, ep.query, ep.deps.publicUrl);
  if (outcome.kind === 'page') {
    sendPage(
      ep.res,
      400,
      'Cannot connect this app',
      errorPage('Cannot connect this app', outcome.description),
    );
    return;
  }
  const location =
    outcome.kind === 'redirect' ? outcome.location : `/oauth/consent?request=${outcome.requestId}`;
  ep.res.writeHead(302, { Location: location, 'Cache-Control': 'no-store' }).end();
}

/** The token request is typed by its grant before a grant sees it; limited before it is read. */
async function token(ep: Endpoint) {
  const { form, headers } = await tokenEndpointForm(ep);
  const { em } = ep;
  const { publicUrl } = ep.deps;
  const request = await parseTokenRequest(em, form);
  const body =
    request.grant_type === 'authorization_code'
      ? await exchangeCode(em, request, publicUrl)
      : await refresh(em, request, publicUrl);
  sendOAuthJson(ep.res, 200, body, headers);
}

async function revocation(ep: Endpoint) {
  const { form, headers } = await tokenEndpointForm(ep);
  await revoke(ep.em, form);
  ep.res.writeHead(200, { 'Cache-Control': 'no-store', 'Content-Length': 0, ...headers }).end();
}

const ENDPOINTS: Record<string, (ep: Endpoint) => Promise<void>> = {
  '/oauth/register': register,
  '/oauth/authorize': authorize,
  '/oauth/consent': (ep) => consent(ep.req, ep.res, ep.em, ep.query, ep.deps.publicUrl),
  '/oauth/token': token,
  '/oauth/revoke': revocation,
};

/** Serves /oauth/* and /.well-known/*; answers false for any other path. */
export async function handleOAuth(
  req: IncomingMessage,
  res: ServerResponse,
  deps: OAuthDeps,
  target: RequestTarget,
): Promise<boolean> {
  const { path } = target;
  if (!path.startsWith('/oauth/') && !path.startsWith('/.well-known/')) return false;
  if (oauthCors(req, res, path)) return true;
  try {
    const ep: Endpoint = {
      req,
      res,
      em: deps.em(),
      deps,
      path,
      query: asOAuth(() => searchParams(target.search)),
    };
    const handler = path.startsWith('/.well-known/') ? discovery : ENDPOINTS[path];
    if (!handler) throw new OAuthError('not_found', `No route for ${path}`, 404);
    await handler(ep);
    return true;
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const headers = { ...err.headers };
    if (err.status === 401 && err.error === 'invalid_client')
      headers['WWW-Authenticate'] = 'Basic realm="oauth"';
    sendOAuthError(res, err, deps.publicUrl, headers);
    return true;
  }
}
