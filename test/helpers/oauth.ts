import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { OAuthClient, OAuthToken } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { createCaller } from '../../src/router.ts';
import { type TestApp, testContext } from './app.ts';

/**
 * OAuth helpers that drive the real endpoints (register → authorize → sign-in → consent → token),
 * so every token a test holds is genuine. The database is touched only to simulate what the flow
 * cannot produce (an expired code, a token bound to another resource).
 */

/** The PUBLIC_URL of every test app: the issuer, and the base of the token's resource. */
export const ISSUER = 'http://stockless.test';
export const RESOURCE = `${ISSUER}/api/v1`;
export const REDIRECT = 'http://127.0.0.1:8765/callback';
export const PASSWORD = 'correct horse battery staple';

/** Any operator token works for in-process internal calls: the context carries the expected one. */
const OPERATOR = 'operator-token-for-oauth-helpers-0123456789';

export function internal(app: TestApp) {
  return createCaller(testContext(app, { authorization: `Bearer ${OPERATOR}`, operatorToken: OPERATOR }))
    .internal;
}

/**
 * An endpoint's answer: status, parsed JSON (undefined when not JSON), raw text and headers. `T` is
 * the body the test expects (`OAuthToken`, `OAuthError`, …): the JSON is not checked against it.
 */
export interface Answer<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

async function answer<T>(res: Response): Promise<Answer<T>> {
  const text = await res.text();
  let body: T | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, body: body as T, text, headers: res.headers };
}

/** A PKCE S256 pair, computed here independently of the server's code (RFC 7636 §4.2). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** SHA-256 hex, as tokens and codes are stored. */
export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

/** POST /oauth/register with any body (an object is sent as JSON, a string as is). */
export async function registerRaw<T = unknown>(
  app: TestApp,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Answer<T>> {
  return answer<T>(
    await fetch(`${app.url}/oauth/register`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** Registers a public client (RFC 7591) and insists on 201. */
export async function registerClient(
  app: TestApp,
  overrides: Record<string, unknown> = {},
): Promise<OAuthClient> {
  const res = await registerRaw<OAuthClient>(app, {
    client_name: 'Test App',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return res.body;
}

/** POST to a form endpoint (token, revoke) with the given parameters. */
export async function postForm<T = unknown>(
  app: TestApp,
  path: string,
  params: Record<string, string>,
): Promise<Answer<T>> {
  return answer<T>(
    await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    }),
  );
}

/** POST /oauth/token; `T` is the answer the test expects: tokens unless it says `OAuthError`. */
export const tokenRequest = <T = OAuthToken>(app: TestApp, params: Record<string, string>) =>
  postForm<T>(app, '/oauth/token', params);

/** A browser: keeps cookies, never follows redirects, sends the page's own Origin on POSTs. */
export class Browser {
  readonly jar = new Map<string, string>();
  /** Every Set-Cookie header received, for attribute checks. */
  readonly setCookies: string[] = [];
  readonly app: TestApp;
  constructor(app: TestApp) {
    this.app = app;
  }

  async send(path: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(path.startsWith('http') ? path : `${this.app.url}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const c of res.headers.getSetCookie()) {
      this.setCookies.push(c);
      const [pair] = c.split(';');
      const i = (pair ?? '').indexOf('=');
      const k = (pair ?? '').slice(0, i);
      const v = (pair ?? '').slice(i + 1);
      if (!k) continue;
      if (/max-age=0/i.test(c) || v === '') this.jar.delete(k);
      else this.jar.set(k, v);
    }
    return res;
  }

  /** POSTs a consent-page form; `origin: null` leaves the Origin header out. */
  post(fields: Record<string, string>, origin: string | null = ISSUER): Promise<Response> {
    return this.send('/oauth/consent', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(origin === null ? {} : { origin }),
      },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** A hidden field's value in a server-rendered form. */
export function field(html: string, name: string): string {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri?: string;
  /** Omitted: the client's registered scopes. */
  scope?: string;
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  responseType?: string;
  resource?: string;
  /** Extra or replacing query parameters; `undefined` removes one. */
  extra?: Record<string, string | undefined>;
}

export function authorizePath(p: AuthorizeParams): string {
  const q: Record<string, string | undefined> = {
    response_type: p.responseType ?? 'code',
    client_id: p.clientId,
    redirect_uri: p.redirectUri ?? REDIRECT,
    scope: p.scope,
    state: p.state ?? 'state-123',
    code_challenge: p.codeChallenge ?? pkce().challenge,
    code_challenge_method: p.codeChallengeMethod ?? 'S256',
    resource: p.resource ?? RESOURCE,
    ...p.extra,
  };
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) search.set(k, v);
  return `/oauth/authorize?${search}`;
}

export interface StoreUser {
  email: string;
  password: string;
}

const users = new Map<string, StoreUser>();
const browsers = new Map<string, Browser>();

/** One dashboard user per (app, store), created once through the internal `createUser` procedure. */
export async function storeUser(app: TestApp, storeId: number): Promise<StoreUser> {
  const key = `${app.url}|${storeId}`;
  let user = users.get(key);
  if (!user) {
    user = { email: `owner-${randomUUID().slice(0, 8)}@oauth.test`, password: PASSWORD };
    await internal(app).oauth.createUser({ storeId, email: user.email, password: user.password });
    users.set(key, user);
  }
  return user;
}

/**
 * Authorize, then sign in (once per user: the browser keeps its session) and approve or deny.
 * Answers the URL the browser is sent back to: the app's redirect URI with a code, or with an
 * error when authorize or the user refused.
 */
export async function authorizeAndConsent(
  app: TestApp,
  p: AuthorizeParams & {
    user: StoreUser;
    decision?: 'approve' | 'deny';
    /** A browser of its own instead of the user's shared, signed-in one. */
    browser?: Browser;
  },
): Promise<URL> {
  const key = `${app.url}|${p.user.email}`;
  const browser = p.browser ?? browsers.get(key) ?? new Browser(app);
  if (!p.browser) browsers.set(key, browser);
  const start = await browser.send(authorizePath(p));
  const location = start.headers.get('location') ?? '';
  if (start.status !== 302) throw new Error(`authorize answered ${start.status}: ${await start.text()}`);
  if (!location.startsWith('/oauth/consent')) return new URL(location);
  let page = await (await browser.send(location)).text();
  if (page.includes('value="sign_in"')) {
    const signedIn = await browser.post({
      request: field(page, 'request'),
      csrf: field(page, 'csrf'),
      action: 'sign_in',
      email: p.user.email,
      password: p.user.password,
    });
    if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
    page = await (await browser.send(signedIn.headers.get('location') ?? '')).text();
  }
  const decided = await browser.post({
    request: field(page, 'request'),
    csrf: field(page, 'csrf'),
    action: p.decision ?? 'approve',
  });
  if (decided.status !== 303) throw new Error(`consent answered ${decided.status}: ${await decided.text()}`);
  return new URL(decided.headers.get('location') ?? '');
}

export interface AppToken {
  access_token: string;
  refresh_token: string;
  scope: string;
  clientId: string;
  /** The code the tokens came from (spent), and its verifier. */
  code: string;
  verifier: string;
}

/** Exchanges an approved authorization's code for tokens. */
export async function exchange<T = OAuthToken>(
  app: TestApp,
  o: { clientId: string; code: string; verifier: string; redirectUri?: string; resource?: string },
): Promise<Answer<T>> {
  return tokenRequest<T>(app, {
    grant_type: 'authorization_code',
    client_id: o.clientId,
    code: o.code,
    code_verifier: o.verifier,
    redirect_uri: o.redirectUri ?? REDIRECT,
    resource: o.resource ?? RESOURCE,
  });
}

/**
 * A genuine app token for a store: registers a client (or uses `clientId`), authorizes with PKCE,
 * signs in as the store's user, approves, and exchanges the code. `resource` other than the API's
 * cannot come out of the flow (it is `invalid_target`): the token is minted for the API, then its
 * stored resource is rewritten to simulate a token for another resource.
 */
export async function mintAppToken(
  app: TestApp,
  storeId: number,
  scopes: string[],
  o: { resource?: string; clientId?: string; clientScope?: string } = {},
): Promise<AppToken> {
  const clientId =
    o.clientId ??
    (
      await registerClient(app, {
        client_name: `App ${scopes.join(' ')}`.slice(0, 100),
        scope: o.clientScope,
      })
    ).client_id;
  const { verifier, challenge } = pkce();
  const user = await storeUser(app, storeId);
  const back = await authorizeAndConsent(app, {
    clientId,
    scope: scopes.join(' '),
    codeChallenge: challenge,
    user,
  });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back}`);
  const res = await exchange(app, { clientId, code, verifier });
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
  if (o.resource && o.resource !== RESOURCE) {
    await rows(
      app.em(),
      sql`UPDATE oauth_tokens SET resource = ${o.resource} WHERE token_hash IN (${sha256Hex(res.body.access_token)}, ${sha256Hex(res.body.refresh_token)})`,
    );
  }
  return {
    access_token: res.body.access_token,
    refresh_token: res.body.refresh_token,
    scope: res.body.scope,
    clientId,
    code,
    verifier,
  };
}
