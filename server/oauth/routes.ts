import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiResource, mcpResource } from '../../src/auth/resources.ts';
import { randomToken, sameSecret } from '../../src/auth/secret-tokens.ts';
import { pendingRequest, startAuthorization } from '../../src/oauth/authorize.ts';
import { registerClient } from '../../src/oauth/clients.ts';
import { approve, createSession, deny, findSession } from '../../src/oauth/consent.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../src/oauth/metadata.ts';
import { exchangeCode, refresh, revoke } from '../../src/oauth/tokens.ts';
import { signIn } from '../../src/oauth/users.ts';
import { hitLimit, type LimitResult, limitHeaders } from '../../src/ratelimit/limiter.ts';
import { searchParams } from '../http-input.ts';
import type { RequestTarget } from '../request-target.ts';
import { consentForm, errorPage, sendPage, signInForm } from './consent-page.ts';
import { asOAuth, clientIp, cookies, readForm, readJson, sendOAuthError, sendOAuthJson } from './http.ts';

export interface OAuthDeps {
  em: () => EntityManager;
  publicUrl: string;
  limits: { token: number; register: number; discovery: number };
}

const SESSION_COOKIE = 'sl_session';
/** Sign-in attempts a minute: per client address, and per account whatever the address. */
const SIGN_IN_PER_IP = 20;
const SIGN_IN_PER_ACCOUNT = 10;
const LOGIN_CSRF_COOKIE = 'sl_login_csrf';

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

/** Serves /oauth/* and /.well-known/*; answers false for any other path. */
export async function handleOAuth(
  req: IncomingMessage,
  res: ServerResponse,
  deps: OAuthDeps,
  target: RequestTarget,
): Promise<boolean> {
  const { path } = target;
  if (!path.startsWith('/oauth/') && !path.startsWith('/.well-known/')) return false;
  const em = deps.em();
  const { publicUrl } = deps;
  const method = req.method ?? 'GET';
  const onlyMethod = (allowed: string) => {
    if (method !== allowed)
      throw new OAuthError('invalid_request', `Use ${allowed}`, 405, {
        Allow: allowed === 'GET' ? 'GET, HEAD' : allowed,
      });
  };
  // The token and revocation endpoints: a form POST, limited per address and per client, so an
  // address cannot escape by naming a new client_id each time.
  const tokenEndpointForm = async () => {
    onlyMethod('POST');
    const form = await readForm(req);
    const keys = [`oauth_token:ip:${clientIp(req)}`];
    const client = form.get('client_id');
    if (client) keys.push(`oauth_token:client:${client.slice(0, 200)}`);
    return { form, headers: await limit(em, keys, deps.limits.token, 60) };
  };
  try {
    const query = asOAuth(() => searchParams(target.search));
    if (path.startsWith('/.well-known/')) {
      const docs: Record<string, () => unknown> = {
        '/.well-known/oauth-authorization-server': () => authorizationServerMetadata(publicUrl),
        '/.well-known/oauth-protected-resource': () =>
          protectedResourceMetadata(publicUrl, apiResource(publicUrl)),
        '/.well-known/oauth-protected-resource/api/v1': () =>
          protectedResourceMetadata(publicUrl, apiResource(publicUrl)),
        '/.well-known/oauth-protected-resource/mcp': () =>
          protectedResourceMetadata(publicUrl, mcpResource(publicUrl)),
      };
      const doc = docs[path];
      if (!doc) throw new OAuthError('not_found', `No document at ${path}`, 404);
      onlyMethod('GET');
      const headers = await limit(em, [`discovery:${clientIp(req)}`], deps.limits.discovery, 60);
      sendOAuthJson(res, 200, doc(), { ...headers, 'Cache-Control': 'public, max-age=300' });
      return true;
    }
    switch (path) {
      case '/oauth/register': {
        onlyMethod('POST');
        const headers = await limit(em, [`oauth_register:${clientIp(req)}`], deps.limits.register, 3600);
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/json')
          throw new OAuthError(
            'invalid_client_metadata',
            'Send the client metadata as application/json',
            415,
          );
        const body = await readJson(req, 'invalid_client_metadata');
        sendOAuthJson(res, 201, await registerClient(em, body), headers);
        return true;
      }
      case '/oauth/authorize': {
        onlyMethod('GET');
        const outcome = await startAuthorization(em, query, publicUrl);
        if (outcome.kind === 'page') {
          sendPage(
            res,
            400,
            'Cannot connect this app',
            errorPage('Cannot connect this app', outcome.description),
          );
        } else if (outcome.kind === 'redirect') {
          res.writeHead(302, { Location: outcome.location, 'Cache-Control': 'no-store' }).end();
        } else {
          res
            .writeHead(302, {
              Location: `/oauth/consent?request=${outcome.requestId}`,
              'Cache-Control': 'no-store',
            })
            .end();
        }
        return true;
      }
      case '/oauth/consent':
        await consent(req, res, em, query, publicUrl);
        return true;
      case '/oauth/token': {
        const { form, headers } = await tokenEndpointForm();
        const grant = form.get('grant_type');
        const body =
          grant === 'authorization_code'
            ? await exchangeCode(em, form, publicUrl)
            : grant === 'refresh_token'
              ? await refresh(em, form, publicUrl)
              : (() => {
                  throw new OAuthError(
                    grant ? 'unsupported_grant_type' : 'invalid_request',
                    grant ? `Unsupported grant_type ${grant}` : 'grant_type is required',
                  );
                })();
        sendOAuthJson(res, 200, body, headers);
        return true;
      }
      case '/oauth/revoke': {
        const { form, headers } = await tokenEndpointForm();
        await revoke(em, form);
        res.writeHead(200, { 'Cache-Control': 'no-store', 'Content-Length': 0, ...headers }).end();
        return true;
      }
      default:
        throw new OAuthError('not_found', `No route for ${path}`, 404);
    }
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const headers = { ...err.headers };
    if (err.status === 401 && err.error === 'invalid_client')
      headers['WWW-Authenticate'] = 'Basic realm="oauth"';
    sendOAuthError(res, err, headers);
    return true;
  }
}

function cookie(name: string, value: string, secure: boolean, maxAge: number, sameSite: 'Lax' | 'Strict') {
  return `${name}=${encodeURIComponent(value)}; Path=/oauth; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

/**
 * Sign-in and consent. Logged-out forms carry a login CSRF token bound to a cookie; signed-in forms
 * carry the session's own token; a cross-site Origin is refused outright.
 */
async function consent(
  req: IncomingMessage,
  res: ServerResponse,
  em: EntityManager,
  query: URLSearchParams,
  publicUrl: string,
) {
  const secure = publicUrl.startsWith('https://');
  const jar = cookies(req);
  const session = await findSession(em, jar.get(SESSION_COOKIE));
  if (req.method === 'GET') {
    const request = await pendingRequest(em, query.get('request') ?? undefined);
    if (!request) {
      return sendPage(
        res,
        400,
        'Request expired',
        errorPage('This request has expired', 'Start connecting the app again from the app.'),
      );
    }
    if (session) {
      return sendPage(
        res,
        200,
        'Approve access',
        consentForm({
          requestId: request.id,
          csrf: session.csrf,
          clientName: request.client_name,
          storeName: session.storeName,
          email: session.email,
          scopes: request.scopes,
          assistant: request.resource === mcpResource(publicUrl),
        }),
      );
    }
    const csrf = jar.get(LOGIN_CSRF_COOKIE) ?? randomToken('');
    return sendPage(
      res,
      200,
      'Sign in',
      signInForm({ requestId: request.id, csrf, clientName: request.client_name }),
      {
        'Set-Cookie': cookie(LOGIN_CSRF_COOKIE, csrf, secure, 3600, 'Strict'),
      },
    );
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { Allow: 'GET, HEAD, POST' }).end();
    return;
  }
  const origin = req.headers.origin;
  if (origin && origin !== new URL(publicUrl).origin) {
    return sendPage(
      res,
      403,
      'Refused',
      errorPage('Refused', 'This form must be sent from the Stockless consent page.'),
    );
  }
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch {
    return sendPage(res, 400, 'Bad request', errorPage('Bad request', 'The form could not be read.'));
  }
  const request = await pendingRequest(em, form.get('request') ?? undefined);
  if (!request) {
    return sendPage(
      res,
      400,
      'Request expired',
      errorPage('This request has expired', 'Start connecting the app again from the app.'),
    );
  }
  const action = form.get('action');
  if (action === 'sign_in') {
    if (!sameSecret(form.get('csrf') ?? undefined, jar.get(LOGIN_CSRF_COOKIE))) {
      return sendPage(
        res,
        403,
        'Refused',
        errorPage('Refused', 'The sign-in form expired; reload the page and try again.'),
      );
    }
    // Password guessing is limited per address and per account, on the shared limiter.
    const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 200);
    const ip = await hitLimit(em, `signin:ip:${clientIp(req)}`, SIGN_IN_PER_IP, 60);
    const account = await hitLimit(em, `signin:email:${email}`, SIGN_IN_PER_ACCOUNT, 60);
    if (!ip.allowed || !account.allowed) {
      const wait = Math.max(ip.retryAfterSeconds, account.retryAfterSeconds);
      const csrf = jar.get(LOGIN_CSRF_COOKIE) ?? '';
      return sendPage(
        res,
        429,
        'Sign in',
        signInForm({
          requestId: request.id,
          csrf,
          clientName: request.client_name,
          error: `Too many attempts; try again in ${wait} seconds.`,
          email,
        }),
        { 'Retry-After': String(wait) },
      );
    }
    const user = await signIn(em, form.get('email') ?? '', form.get('password') ?? '');
    if (!user) {
      const csrf = jar.get(LOGIN_CSRF_COOKIE) ?? '';
      return sendPage(
        res,
        401,
        'Sign in',
        signInForm({
          requestId: request.id,
          csrf,
          clientName: request.client_name,
          error: 'Wrong email or password.',
          email: form.get('email') ?? '',
        }),
      );
    }
    const token = await createSession(em, user.id);
    res.writeHead(303, {
      Location: `/oauth/consent?request=${encodeURIComponent(request.id)}`,
      'Set-Cookie': [
        cookie(SESSION_COOKIE, token, secure, 8 * 3600, 'Lax'),
        cookie(LOGIN_CSRF_COOKIE, '', secure, 0, 'Strict'),
      ],
      'Cache-Control': 'no-store',
    });
    res.end();
    return;
  }
  if (!session || !sameSecret(form.get('csrf') ?? undefined, session.csrf)) {
    return sendPage(
      res,
      403,
      'Refused',
      errorPage('Refused', 'Sign in again and approve from the consent page.'),
    );
  }
  if (action !== 'approve' && action !== 'deny') {
    return sendPage(res, 400, 'Bad request', errorPage('Bad request', 'Choose Approve or Deny.'));
  }
  const location =
    action === 'approve'
      ? await approve(em, request, session, publicUrl)
      : await deny(em, request, publicUrl);
  res.writeHead(303, { Location: location, 'Cache-Control': 'no-store' }).end();
}
