import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { mcpResource } from '../../src/auth/resources.ts';
import { randomToken, sameSecret } from '../../src/auth/secret-tokens.ts';
import { pendingRequest } from '../../src/oauth/authorization-request.ts';
import { approve, deny } from '../../src/oauth/grant-decision.ts';
import { createSession, findSession } from '../../src/oauth/sessions.ts';
import { signIn } from '../../src/oauth/users.ts';
import { signInKeys } from '../../src/ratelimit/keys.ts';
import { hitLimit } from '../../src/ratelimit/limiter.ts';
import { consentForm, errorPage, sendPage, signInForm } from './consent-page.ts';
import { clientIp, cookies, readForm } from './http.ts';

const SESSION_COOKIE = 'sl_session';
/** Sign-in attempts a minute: per client address, and per account whatever the address. */
const SIGN_IN_PER_IP = 20;
const SIGN_IN_PER_ACCOUNT = 10;
const LOGIN_CSRF_COOKIE = 'sl_login_csrf';

type Session = NonNullable<Awaited<ReturnType<typeof findSession>>>;
type Pending = NonNullable<Awaited<ReturnType<typeof pendingRequest>>>;

interface Visit {
  req: IncomingMessage;
  res: ServerResponse;
  em: EntityManager;
  publicUrl: string;
  secure: boolean;
  jar: Map<string, string>;
  session: Session | null | undefined;
}

function cookie(name: string, value: string, secure: boolean, maxAge: number, sameSite: 'Lax' | 'Strict') {
  return `${name}=${encodeURIComponent(value)}; Path=/oauth; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

const expired = (res: ServerResponse) =>
  sendPage(
    res,
    400,
    'Request expired',
    errorPage('This request has expired', 'Start connecting the app again from the app.'),
  );

/**
 * Sign-in and consent (`/oauth/consent`). Logged-out forms carry a login CSRF token bound to a
 * cookie; signed-in forms carry the session's own token; a cross-site Origin is refused outright.
 */
export async function consent(
  req: IncomingMessage,
  res: ServerResponse,
  em: EntityManager,
  query: URLSearchParams,
  publicUrl: string,
) {
  const jar = cookies(req);
  const session = await findSession(em, jar.get(SESSION_COOKIE));
  const visit: Visit = { req, res, em, publicUrl, secure: publicUrl.startsWith('https://'), jar, session };
  if (req.method === 'GET') return showConsent(visit, query);
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
  if (!request) return expired(res);
  if (form.get('action') === 'sign_in') return postSignIn(visit, form, request);
  return postDecision(visit, form, request);
}

/** The consent form to a signed-in user, else the sign-in form (with its login CSRF cookie). */
async function showConsent(v: Visit, query: URLSearchParams) {
  const request = await pendingRequest(v.em, query.get('request') ?? undefined);
  if (!request) return expired(v.res);
  if (v.session) {
    return sendPage(
      v.res,
      200,
      'Approve access',
      consentForm({
        requestId: request.id,
        csrf: v.session.csrf,
        clientName: request.client_name,
        storeName: v.session.storeName,
        email: v.session.email,
        scopes: request.scopes,
        assistant: request.resource === mcpResource(v.publicUrl),
      }),
    );
  }
  const csrf = v.jar.get(LOGIN_CSRF_COOKIE) ?? randomToken('');
  return sendPage(
    v.res,
    200,
    'Sign in',
    signInForm({ requestId: request.id, csrf, clientName: request.client_name }),
    { 'Set-Cookie': cookie(LOGIN_CSRF_COOKIE, csrf, v.secure, 3600, 'Strict') },
  );
}

/** Signs in (password guessing limited per address and per account, on the shared limiter). */
async function postSignIn(v: Visit, form: URLSearchParams, request: Pending) {
  const { req, res, em, jar } = v;
  if (!sameSecret(form.get('csrf') ?? undefined, jar.get(LOGIN_CSRF_COOKIE))) {
    return sendPage(
      res,
      403,
      'Refused',
      errorPage('Refused', 'The sign-in form expired; reload the page and try again.'),
    );
  }
  const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 200);
  const keys = signInKeys(clientIp(req), email);
  const ip = await hitLimit(em, keys.ip, SIGN_IN_PER_IP, 60);
  const account = await hitLimit(em, keys.account, SIGN_IN_PER_ACCOUNT, 60);
  const again = (status: number, error: string, shownEmail: string, headers?: Record<string, string>) =>
    sendPage(
      res,
      status,
      'Sign in',
      signInForm({
        requestId: request.id,
        csrf: jar.get(LOGIN_CSRF_COOKIE) ?? '',
        clientName: request.client_name,
        error,
        email: shownEmail,
      }),
      headers,
    );
  if (!ip.allowed || !account.allowed) {
    const wait = Math.max(ip.retryAfterSeconds, account.retryAfterSeconds);
    return again(429, `Too many attempts; try again in ${wait} seconds.`, email, {
      'Retry-After': String(wait),
    });
  }
  const user = await signIn(em, form.get('email') ?? '', form.get('password') ?? '');
  if (!user) return again(401, 'Wrong email or password.', form.get('email') ?? '');
  const token = await createSession(em, user.id);
  res.writeHead(303, {
    Location: `/oauth/consent?request=${encodeURIComponent(request.id)}`,
    'Set-Cookie': [
      cookie(SESSION_COOKIE, token, v.secure, 8 * 3600, 'Lax'),
      cookie(LOGIN_CSRF_COOKIE, '', v.secure, 0, 'Strict'),
    ],
    'Cache-Control': 'no-store',
  });
  res.end();
}

/** Approve or deny, from a signed-in session's own form. */
async function postDecision(v: Visit, form: URLSearchParams, request: Pending) {
  const { res, em, session } = v;
  if (!session || !sameSecret(form.get('csrf') ?? undefined, session.csrf)) {
    return sendPage(
      res,
      403,
      'Refused',
      errorPage('Refused', 'Sign in again and approve from the consent page.'),
    );
  }
  const action = form.get('action');
  if (action !== 'approve' && action !== 'deny') {
    return sendPage(res, 400, 'Bad request', errorPage('Bad request', 'Choose Approve or Deny.'));
  }
  const location =
    action === 'approve'
      ? await approve(em, request, session, v.publicUrl)
      : await deny(em, request, v.publicUrl);
  res.writeHead(303, { Location: location, 'Cache-Control': 'no-store' }).end();
}
