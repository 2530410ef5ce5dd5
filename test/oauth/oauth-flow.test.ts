import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetStoreResponse } from '../../client/src/index.ts';
import { createCaller } from '../../src/router.ts';
import { startTestApp, type TestApp, testContext } from '../helpers/app.ts';

/**
 * The whole flow with a strict third-party client (oauth4webapi): discovery, registration,
 * authorization with PKCE, sign-in and consent (the forms posted as a browser would), token, API
 * calls, refresh rotation, revocation. The issuer is the app's PUBLIC_URL; requests to it are
 * routed to the test server.
 */
const ISSUER = 'http://stockless.test';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const RESOURCE = `${ISSUER}/api/v1`;

let app: TestApp;
let store: { id: number; readWrite: string; read: string };
const OPERATOR = 'operator-token-for-oauth-tests-0123456789';

const route: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const target = `${app.url}${url.pathname}${url.search}`;
  return fetch(target, init);
};
const options = { [oauth.customFetch]: route, [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN: OPERATOR });
  store = await app.createStore('OAuth Store');
  await internal().oauth.createUser({
    storeId: store.id,
    email: 'owner@oauth.test',
    password: 'correct horse battery',
  });
});
afterAll(() => app.close());

function internal() {
  return createCaller(testContext(app, { authorization: `Bearer ${OPERATOR}`, operatorToken: OPERATOR }))
    .internal;
}

/** Drives sign-in and consent like a browser: follows redirects by hand and keeps the cookies. */
async function consentThrough(authorizeUrl: URL, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${app.url}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = (pair ?? '').split('=');
      if (k) jar.set(k, v ?? '');
    }
    return res;
  };
  const start = await send(`${authorizeUrl.pathname}${authorizeUrl.search}`);
  expect(start.status).toBe(302);
  const consentPath = start.headers.get('location') ?? '';
  const signInPage = await (await send(consentPath)).text();
  const field = (html: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  const form = (o: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ISSUER },
    body: new URLSearchParams(o).toString(),
  });
  const signedIn = await send(
    '/oauth/consent',
    form({
      request: field(signInPage, 'request'),
      csrf: field(signInPage, 'csrf'),
      action: 'sign_in',
      email: 'owner@oauth.test',
      password: 'correct horse battery',
    }),
  );
  expect(signedIn.status).toBe(303);
  const consentPage = await (await send(signedIn.headers.get('location') ?? '')).text();
  expect(consentPage).toContain('Approve');
  const decided = await send(
    '/oauth/consent',
    form({ request: field(consentPage, 'request'), csrf: field(consentPage, 'csrf'), action: decision }),
  );
  expect(decided.status).toBe(303);
  return new URL(decided.headers.get('location') ?? '');
}

describe('OAuth 2.1 with oauth4webapi', () => {
  it('discovers, registers, authorizes with PKCE, consents, calls the API, refreshes with rotation and revokes', async () => {
    const issuer = new URL(ISSUER);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
    );
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
          client_name: 'Flow Test App',
          scope: 'read_products read_orders write_products',
        },
        options,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizeUrl = new URL(as.authorization_endpoint ?? '');
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope: 'read_products read_orders',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: RESOURCE,
    })) {
      authorizeUrl.searchParams.set(k, v);
    }
    const callback = await consentThrough(authorizeUrl);
    expect(callback.searchParams.get('iss')).toBe(ISSUER);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
        ...options,
        additionalParameters: { resource: RESOURCE },
      }),
    );
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'read_products read_orders',
    });
    expect(tokens.access_token).toMatch(/^sl_at_/);

    // The token works where its scopes reach, and nowhere else.
    expect((await app.get('/api/v1/products?limit=1', tokens.access_token)).status).toBe(200);
    expect(
      (await app.get<GetStoreResponse>('/api/v1/vendor/me', tokens.access_token)).body.store,
    ).toMatchObject({
      id: store.id,
    });
    expect((await app.get('/api/v1/inventory', tokens.access_token)).body).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      required_scope: 'read_inventory',
    });
    const hooks = await app.get<ErrorBody>('/api/v1/vendor/webhooks', tokens.access_token);
    expect(hooks.status).toBe(403);
    expect(hooks.body.code).toBe('APP_TOKEN_NOT_ALLOWED');

    // The code is single use: a replay fails and revokes what the code issued.
    const replay = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      REDIRECT,
      verifier,
      {
        ...options,
        additionalParameters: { resource: RESOURCE },
      },
    );
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await app.get('/api/v1/products?limit=1', tokens.access_token)).status).toBe(401);

    // A fresh authorization, then refresh rotation and reuse detection.
    const verifier2 = oauth.generateRandomCodeVerifier();
    authorizeUrl.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier2));
    const second = oauth.validateAuthResponse(as, client, await consentThrough(authorizeUrl), state);
    const fresh = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), second, REDIRECT, verifier2, {
        ...options,
        additionalParameters: { resource: RESOURCE },
      }),
    );
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), fresh.refresh_token ?? '', {
        ...options,
        additionalParameters: { resource: RESOURCE },
      }),
    );
    expect(rotated.refresh_token).not.toBe(fresh.refresh_token);
    expect((await app.get('/api/v1/orders', rotated.access_token)).status).toBe(200);

    // Revocation (RFC 7009) ends the access token at once.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), rotated.access_token, options),
    );
    expect((await app.get('/api/v1/orders', rotated.access_token)).status).toBe(401);

    // Reusing a spent refresh token revokes the whole grant.
    const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), fresh.refresh_token ?? '', {
      ...options,
      additionalParameters: { resource: RESOURCE },
    });
    expect(reuse.status).toBe(400);
    const afterReuse = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      rotated.refresh_token ?? '',
      {
        ...options,
        additionalParameters: { resource: RESOURCE },
      },
    );
    expect(await afterReuse.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('consent page input', () => {
  it('ignores a cookie with a malformed escape instead of failing the request', async () => {
    const res = await fetch(`${app.url}/oauth/consent?request=unknown`, {
      headers: { cookie: 'sl_session=%E0%A4%A; sl_login_csrf=%' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('This request has expired');
  });
});
