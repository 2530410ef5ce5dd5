import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AuthorizationServerMetadata,
  OAuthClient,
  OAuthError,
  ProtectedResourceMetadata,
} from '../../client/src/index.ts';
import { loadConfig } from '../../server/config.ts';
import { APP_SCOPES, OAUTH_SCOPES } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  type Answer,
  type AuthorizeParams,
  authorizeAndConsent,
  authorizePath,
  Browser,
  exchange,
  field,
  ISSUER,
  internal,
  mintAppToken,
  PASSWORD,
  pkce,
  postForm,
  REDIRECT,
  RESOURCE,
  registerClient,
  registerRaw,
  type StoreUser,
  sha256Hex,
  storeUser,
  tokenRequest,
} from '../helpers/oauth.ts';

/**
 * Every OAuth error path: the RFC error code in `{ error, error_description }` form with the right
 * status and `Cache-Control: no-store`, and nothing that tells whether a client or user exists.
 */
let app: TestApp;
let store: { id: number; readWrite: string; read: string };
let user: StoreUser;

beforeAll(async () => {
  // Many clients are registered here; the registration limit has its own test app below.
  app = await startTestApp({ OAUTH_REGISTER_RATE_LIMIT: '1000' });
  store = await app.createStore('OAuth Errors Store');
  user = await storeUser(app, store.id);
});
afterAll(() => app.close());

function expectOAuthError(res: Answer, status: number, error: string) {
  // Undefined when the answer is no JSON (the first assertion then fails).
  const body = res.body as OAuthError;
  expect({ status: res.status, error: body?.error }, res.text).toEqual({ status, error });
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'error_uri']);
  // RFC 6749 §5.2: the error's entry on the error reference page.
  expect((body as { error_uri?: string }).error_uri).toBe(`http://stockless.test/docs/errors/${error}`);
  expect(typeof body.error_description).toBe('string');
  expect(body.error_description.length).toBeGreaterThan(0);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/** An app's API call with a bearer credential. */
const call = (path: string, token: string) => app.get(path, token);

/** A fresh code for a client (the user's browser is already signed in after the first). */
async function freshCode(clientId: string, o: { scope?: string; redirectUri?: string } = {}) {
  const { verifier, challenge } = pkce();
  const back = await authorizeAndConsent(app, { clientId, codeChallenge: challenge, user, ...o });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code in ${back}`);
  return { code, verifier };
}

describe('registration (RFC 7591)', () => {
  it.each([
    ['missing redirect_uris', { client_name: 'x' }],
    ['empty redirect_uris', { redirect_uris: [] }],
    ['http on a public host', { redirect_uris: ['http://app.example/cb'] }],
    ['http on a host that starts with localhost', { redirect_uris: ['http://localhost.app.example/cb'] }],
    ['a fragment', { redirect_uris: ['https://app.example/cb#frag'] }],
    ['an empty fragment', { redirect_uris: ['https://app.example/cb#'] }],
    ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }],
    ['not a URI', { redirect_uris: ['/relative/cb'] }],
    ['credentials in the URI', { redirect_uris: ['https://user:pw@app.example/cb'] }],
    ['one bad among good', { redirect_uris: ['https://app.example/cb', 'http://app.example/cb'] }],
  ])('refuses %s with invalid_redirect_uri', async (_, body) => {
    expectOAuthError(await registerRaw(app, body), 400, 'invalid_redirect_uri');
  });

  it.each([
    ['client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }],
    ['an unknown grant type', { grant_types: ['authorization_code', 'client_credentials'] }],
    ['the implicit grant', { grant_types: ['implicit'] }],
    ['a token response type', { response_types: ['token'] }],
    ['an unknown scope', { scope: 'read_products admin' }],
    ['an empty scope', { scope: ' ' }],
  ])('refuses %s with invalid_client_metadata', async (_, overrides) => {
    expectOAuthError(
      await registerRaw(app, { redirect_uris: ['https://app.example/cb'], ...overrides }),
      400,
      'invalid_client_metadata',
    );
  });

  it('refuses a body that is not JSON with invalid_client_metadata', async () => {
    expectOAuthError(await registerRaw(app, '{"redirect_uris": ['), 400, 'invalid_client_metadata');
    expectOAuthError(await registerRaw(app, '"just a string"'), 400, 'invalid_client_metadata');
    const form = await registerRaw(app, 'redirect_uris=https%3A%2F%2Fapp.example%2Fcb', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect([400, 415]).toContain(form.status);
    expectOAuthError(form, form.status, 'invalid_client_metadata');
  });

  it('answers 201 with the registered metadata of a public client', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await registerRaw<OAuthClient>(app, {
      client_name: 'Shape App',
      redirect_uris: ['https://app.example/cb', 'http://127.0.0.1:49152/cb'],
      token_endpoint_auth_method: 'none',
      scope: 'read_products write_orders',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      client_name: 'Shape App',
      redirect_uris: ['https://app.example/cb', 'http://127.0.0.1:49152/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'read_products write_orders',
    });
    expect(res.body.client_id).toMatch(/^slc_[a-z2-7]{20,}$/);
    expect(res.body.client_id_issued_at).toBeGreaterThanOrEqual(before - 5);
    expect(res.body.client_id_issued_at).toBeLessThanOrEqual(before + 60);
    expect(res.body).not.toHaveProperty('client_secret');
    // Without a scope, a client is registered for every scope; the resource it later asks for decides
    // which it can get (never manage_webhooks for the REST API: test/mcp/mcp-auth.test.ts).
    const all = await registerClient(app, {});
    expect(all.scope.split(' ').sort()).toEqual([...OAUTH_SCOPES].sort());
  });

  it('accepts loopback IP redirects for native apps, and they work at authorize', async () => {
    for (const uri of ['http://127.0.0.1:49152/cb', 'http://[::1]/cb', 'http://[::1]:8080/cb']) {
      const client = await registerClient(app, { redirect_uris: [uri] });
      expect(client.redirect_uris).toEqual([uri]);
      const res = await fetch(
        `${app.url}${authorizePath({ clientId: client.client_id, redirectUri: uri })}`,
        {
          redirect: 'manual',
        },
      );
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(/^\/oauth\/consent\?request=/);
    }
  });
});

describe('authorize', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = (await registerClient(app, { scope: 'read_products read_orders write_products' })).client_id;
  });

  const get = (path: string) => fetch(`${app.url}${path}`, { redirect: 'manual' });

  it('shows one and the same 400 page for an unknown client and an unregistered redirect URI', async () => {
    const unknown = await get(authorizePath({ clientId: 'slc_doesnotexist0000000000000000' }));
    const unknownText = await unknown.text();
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    expect(unknown.headers.get('x-frame-options')).toBe('DENY');
    const mismatches = [
      'http://127.0.0.1:8765/callback/',
      'http://127.0.0.1:8765/callback/x',
      'http://localhost:8765/callback',
      'http://127.0.0.1:8765/callback?x=1',
      'https://attacker.example/callback',
    ];
    for (const redirectUri of mismatches) {
      const res = await get(authorizePath({ clientId, redirectUri }));
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toBe(unknownText);
    }
    const missing = await get(authorizePath({ clientId, extra: { redirect_uri: undefined } }));
    expect(missing.status).toBe(400);
    expect(await missing.text()).toBe(unknownText);
    // Even a request that is bad in other ways is not redirected to an unregistered URI.
    const both = await get(
      authorizePath({ clientId, redirectUri: 'https://attacker.example/cb', responseType: 'token' }),
    );
    expect(both.status).toBe(400);
    expect(await both.text()).toBe(unknownText);
  });

  const redirected: [string, Partial<AuthorizeParams>, string][] = [
    ['a missing code_challenge', { extra: { code_challenge: undefined } }, 'invalid_request'],
    ['code_challenge_method=plain', { codeChallengeMethod: 'plain' }, 'invalid_request'],
    ['a missing code_challenge_method', { extra: { code_challenge_method: undefined } }, 'invalid_request'],
    ['a malformed code_challenge', { codeChallenge: 'short' }, 'invalid_request'],
    ['response_type=token', { responseType: 'token' }, 'unsupported_response_type'],
    ['a missing response_type', { extra: { response_type: undefined } }, 'unsupported_response_type'],
    ['a missing resource', { extra: { resource: undefined } }, 'invalid_target'],
    ['the MCP resource with a trailing slash', { resource: `${ISSUER}/mcp/` }, 'invalid_target'],
    ['another host', { resource: 'https://api.other.example/api/v1' }, 'invalid_target'],
    ['the bare base URL', { resource: ISSUER }, 'invalid_target'],
    ['an unknown scope', { scope: 'read_products admin' }, 'invalid_scope'],
    ['a scope the client did not register', { scope: 'read_products read_inventory' }, 'invalid_scope'],
  ];

  it.each(redirected)('redirects %s as %s with state and iss', async (_, params, error) => {
    const res = await get(authorizePath({ clientId, state: 'st-42', ...params }));
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error,
      error_description: expect.any(String),
      state: 'st-42',
      iss: ISSUER,
    });
  });

  it('redirects a repeated parameter as invalid_request', async () => {
    const res = await get(
      `${authorizePath({ clientId, state: 'st-7' })}&resource=${encodeURIComponent(`${ISSUER}/mcp`)}`,
    );
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('st-7');
    expect(location.searchParams.get('iss')).toBe(ISSUER);
  });

  it('redirects a denied consent as access_denied with state and iss', async () => {
    const back = await authorizeAndConsent(app, { clientId, state: 'deny-1', user, decision: 'deny' });
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: expect.any(String),
      state: 'deny-1',
      iss: ISSUER,
    });
  });
});

describe('token endpoint', () => {
  let clientId: string;
  let otherClientId: string;
  const SECOND_REDIRECT = 'https://app.example/oauth/cb';
  beforeAll(async () => {
    clientId = (await registerClient(app, { redirect_uris: [REDIRECT, SECOND_REDIRECT] })).client_id;
    otherClientId = (await registerClient(app, { redirect_uris: [REDIRECT, SECOND_REDIRECT] })).client_id;
  });

  it('answers an unknown client_id with 401 invalid_client', async () => {
    const { code, verifier } = await freshCode(clientId);
    const res = await exchange(app, { clientId: 'slc_unknownclient000000000000', code, verifier });
    expectOAuthError(res, 401, 'invalid_client');
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: 'slc_unknownclient000000000000',
      refresh_token: 'sl_rt_whatever',
      resource: RESOURCE,
    });
    expectOAuthError(refresh, 401, 'invalid_client');
  });

  it('refuses a wrong code_verifier with invalid_grant', async () => {
    const { code } = await freshCode(clientId);
    expectOAuthError(
      await exchange(app, { clientId, code, verifier: pkce().verifier }),
      400,
      'invalid_grant',
    );
  });

  it('refuses an expired code with invalid_grant', async () => {
    const { code, verifier } = await freshCode(clientId);
    await rows(
      app.em(),
      sql`UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE code_hash = ${sha256Hex(code)}`,
    );
    expectOAuthError(await exchange(app, { clientId, code, verifier }), 400, 'invalid_grant');
  });

  it('refuses a replayed code and revokes every token it issued', async () => {
    const { code, verifier } = await freshCode(clientId);
    const first = await exchange(app, { clientId, code, verifier });
    expect(first.status).toBe(200);
    const rotated = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.body.refresh_token,
      resource: RESOURCE,
    });
    expect(rotated.status).toBe(200);
    expect((await call('/api/v1/vendor/me', rotated.body.access_token)).status).toBe(200);

    expectOAuthError(await exchange(app, { clientId, code, verifier }), 400, 'invalid_grant');
    for (const token of [first.body.access_token, rotated.body.access_token]) {
      expect((await call('/api/v1/vendor/me', token)).status).toBe(401);
    }
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: rotated.body.refresh_token,
      resource: RESOURCE,
    });
    expectOAuthError(refresh, 400, 'invalid_grant');
  });

  it("refuses a code sent with another client's id or another redirect URI", async () => {
    const { code, verifier } = await freshCode(clientId);
    expectOAuthError(await exchange(app, { clientId: otherClientId, code, verifier }), 400, 'invalid_grant');
    expectOAuthError(
      await exchange(app, { clientId, code, verifier, redirectUri: SECOND_REDIRECT }),
      400,
      'invalid_grant',
    );
    expectOAuthError(
      await exchange(app, { clientId, code, verifier, redirectUri: 'https://attacker.example/cb' }),
      400,
      'invalid_grant',
    );
    // A code issued for the second redirect URI is refused at the first.
    const second = await freshCode(clientId, { redirectUri: SECOND_REDIRECT });
    expectOAuthError(
      await exchange(app, { clientId, code: second.code, verifier: second.verifier }),
      400,
      'invalid_grant',
    );
  });

  it('refuses an unknown code with invalid_grant', async () => {
    expectOAuthError(
      await exchange(app, { clientId, code: 'not-a-code', verifier: pkce().verifier }),
      400,
      'invalid_grant',
    );
  });

  it('refuses a bad resource with invalid_target', async () => {
    for (const resource of [`${ISSUER}/mcp`, 'https://other.example/api/v1', `${RESOURCE}/`]) {
      const { code, verifier } = await freshCode(clientId);
      expectOAuthError(await exchange(app, { clientId, code, verifier, resource }), 400, 'invalid_target');
    }
  });

  it('refuses a missing resource with invalid_target (RFC 8707: invalid, missing, unknown or malformed)', async () => {
    const { code, verifier } = await freshCode(clientId);
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    });
    expectOAuthError(res, 400, 'invalid_target');
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t.refresh_token,
    });
    expectOAuthError(refresh, 400, 'invalid_target');
  });

  it('refuses missing PKCE or code with invalid_request', async () => {
    const { code } = await freshCode(clientId);
    const base = { grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT };
    expectOAuthError(await tokenRequest(app, { ...base, code, resource: RESOURCE }), 400, 'invalid_request');
    expectOAuthError(
      await tokenRequest(app, { ...base, code_verifier: pkce().verifier, resource: RESOURCE }),
      400,
      'invalid_request',
    );
  });

  it('answers a missing grant_type with invalid_request and an unknown one with unsupported_grant_type', async () => {
    expectOAuthError(await tokenRequest(app, { client_id: clientId }), 400, 'invalid_request');
    expectOAuthError(
      await tokenRequest(app, {
        grant_type: 'password',
        client_id: clientId,
        username: user.email,
        password: PASSWORD,
      }),
      400,
      'unsupported_grant_type',
    );
    expectOAuthError(
      await tokenRequest(app, { grant_type: 'client_credentials', client_id: clientId }),
      400,
      'unsupported_grant_type',
    );
  });

  it('answers a JSON body with 415 in the OAuth error form', async () => {
    const { code, verifier } = await freshCode(clientId);
    const res = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        resource: RESOURCE,
      }),
    });
    const text = await res.text();
    expectOAuthError(
      { status: res.status, body: JSON.parse(text), text, headers: res.headers },
      415,
      'invalid_request',
    );
  });

  it('revokes the whole grant when a spent refresh token is presented again', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    const refresh = (token: string, client = clientId) =>
      tokenRequest(app, {
        grant_type: 'refresh_token',
        client_id: client,
        refresh_token: token,
        resource: RESOURCE,
      });
    const rotated = await refresh(t.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(t.refresh_token);
    expect((await call('/api/v1/vendor/me', rotated.body.access_token)).status).toBe(200);

    expectOAuthError(await refresh(t.refresh_token), 400, 'invalid_grant');
    for (const token of [t.access_token, rotated.body.access_token]) {
      expect((await call('/api/v1/vendor/me', token)).status).toBe(401);
    }
    expectOAuthError(await refresh(rotated.body.refresh_token), 400, 'invalid_grant');
  });

  it('refuses a refresh with a wider scope (invalid_scope), another client or a bad resource', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId: otherClientId });
    const base = { grant_type: 'refresh_token', client_id: otherClientId, refresh_token: t.refresh_token };
    expectOAuthError(
      await tokenRequest(app, { ...base, resource: RESOURCE, scope: 'read_products read_orders' }),
      400,
      'invalid_scope',
    );
    expectOAuthError(await tokenRequest(app, { ...base, resource: `${ISSUER}/mcp` }), 400, 'invalid_target');
    expectOAuthError(
      await tokenRequest(app, { ...base, client_id: clientId, resource: RESOURCE }),
      400,
      'invalid_grant',
    );
    // None of the refused attempts spent the refresh token.
    const ok = await tokenRequest(app, { ...base, resource: RESOURCE });
    expect(ok.status).toBe(200);
    expect(ok.body.scope).toBe('read_products');
  });
});

describe('refresh with a narrower scope (RFC 6749 §6)', () => {
  it('limits the new access token to the scope asked, as its token response says', async () => {
    const client = await registerClient(app, {});
    const t = await mintAppToken(app, store.id, ['read_products', 'read_orders'], {
      clientId: client.client_id,
    });
    const narrowed = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: t.refresh_token,
      resource: RESOURCE,
      scope: 'read_products',
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.headers.get('cache-control')).toBe('no-store');
    expect(narrowed.body.scope).toBe('read_products');
    expect((await call('/api/v1/products?limit=1', narrowed.body.access_token)).status).toBe(200);
    const orders = await call('/api/v1/orders', narrowed.body.access_token);
    expect(orders.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_orders' });
  });
});

describe('revocation (RFC 7009)', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = (await registerClient(app, {})).client_id;
  });
  const revoke = (token: string, client = clientId) =>
    postForm(app, '/oauth/revoke', { client_id: client, token });

  it('answers 200 for an unknown token', async () => {
    for (const token of ['sl_at_unknownunknownunknownunknownunknown00', 'anything']) {
      const res = await revoke(token);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it("stops the grant's access tokens when its refresh token is revoked", async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    expect((await call('/api/v1/vendor/me', t.access_token)).status).toBe(200);
    expect((await revoke(t.refresh_token)).status).toBe(200);
    expect((await call('/api/v1/vendor/me', t.access_token)).status).toBe(401);
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t.refresh_token,
      resource: RESOURCE,
    });
    expectOAuthError(refresh, 400, 'invalid_grant');
  });

  it('ends only the access token when an access token is revoked', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    expect((await revoke(t.access_token)).status).toBe(200);
    expect((await call('/api/v1/vendor/me', t.access_token)).status).toBe(401);
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t.refresh_token,
      resource: RESOURCE,
    });
    expect(refresh.status).toBe(200);
    expect((await call('/api/v1/vendor/me', refresh.body.access_token)).status).toBe(200);
  });

  it("does not let another client revoke an app's token", async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    const stranger = (await registerClient(app, {})).client_id;
    await revoke(t.refresh_token, stranger);
    await revoke(t.access_token, stranger);
    expect((await call('/api/v1/vendor/me', t.access_token)).status).toBe(200);
  });

  it('refuses a request without a token with invalid_request', async () => {
    expectOAuthError(await postForm(app, '/oauth/revoke', { client_id: clientId }), 400, 'invalid_request');
  });
});

describe('consent page', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = (await registerClient(app, { client_name: 'Consent App' })).client_id;
  });

  /** A fresh browser at the sign-in page of a new authorization request. */
  async function atSignIn() {
    const browser = new Browser(app);
    const start = await browser.send(authorizePath({ clientId, scope: 'read_products' }));
    expect(start.status).toBe(302);
    const res = await browser.send(start.headers.get('location') ?? '');
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('value="sign_in"');
    return { browser, res, html, request: field(html, 'request'), csrf: field(html, 'csrf') };
  }

  /** The token with its last character changed (never to itself). */
  const tampered = (token: string) => `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`;

  const expectUnframeable = (res: Response) => {
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  };

  it('answers a wrong password and an unknown email with the same 401 page', async () => {
    const { browser, request, csrf } = await atSignIn();
    const attempt = async (email: string, password: string) => {
      const res = await browser.post({ request, csrf, action: 'sign_in', email, password });
      const text = await res.text();
      expect(res.status).toBe(401);
      expect(res.headers.getSetCookie().some((c) => c.startsWith('sl_session='))).toBe(false);
      expectUnframeable(res);
      // The form echoes the email typed; apart from that the pages must be identical.
      return text.replaceAll(email, 'EMAIL');
    };
    const wrongPassword = await attempt(user.email, 'not the right password');
    const unknownEmail = await attempt('nobody-here@oauth.test', PASSWORD);
    expect(wrongPassword).toContain('Wrong email or password');
    expect(unknownEmail).toBe(wrongPassword);
  });

  it('refuses a sign-in without the login CSRF cookie or field with 403', async () => {
    const { browser, request, csrf } = await atSignIn();
    const creds = { request, action: 'sign_in', email: user.email, password: PASSWORD };
    const noCookie = new Browser(app);
    const withoutCookie = await noCookie.post({ ...creds, csrf });
    expect(withoutCookie.status).toBe(403);
    expectUnframeable(withoutCookie);
    expect((await browser.post(creds)).status).toBe(403);
    expect((await browser.post({ ...creds, csrf: tampered(csrf) })).status).toBe(403);
    expect(browser.jar.has('sl_session')).toBe(false);
  });

  it('refuses a cross-site Origin with 403, on sign-in and on approval', async () => {
    const { browser, request, csrf } = await atSignIn();
    const creds = { request, csrf, action: 'sign_in', email: user.email, password: PASSWORD };
    for (const origin of ['https://attacker.example', 'null', `${app.url}`]) {
      const res = await browser.post(creds, origin);
      expect(res.status, origin).toBe(403);
    }
    expect(browser.jar.has('sl_session')).toBe(false);
    // The same form from the page's own origin signs in.
    const signedIn = await browser.post(creds);
    expect(signedIn.status).toBe(303);
    const page = await browser.send(signedIn.headers.get('location') ?? '');
    const html = await page.text();
    const approve = { request: field(html, 'request'), csrf: field(html, 'csrf'), action: 'approve' };
    expect((await browser.post(approve, 'https://attacker.example')).status).toBe(403);
    const ok = await browser.post(approve);
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
  });

  it('refuses an approval with a wrong or missing csrf token, or without the session, with 403', async () => {
    const { browser, request, csrf } = await atSignIn();
    const signedIn = await browser.post({
      request,
      csrf,
      action: 'sign_in',
      email: user.email,
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const page = await browser.send(signedIn.headers.get('location') ?? '');
    const html = await page.text();
    const sessionCsrf = field(html, 'csrf');
    expect(sessionCsrf).not.toBe('');
    for (const bad of [tampered(sessionCsrf), '', csrf]) {
      const res = await browser.post({ request: field(html, 'request'), csrf: bad, action: 'approve' });
      expect(res.status, `csrf=${bad}`).toBe(403);
      expectUnframeable(res);
    }
    // The right token from a browser without the session cookie.
    const stranger = new Browser(app);
    expect(
      (await stranger.post({ request: field(html, 'request'), csrf: sessionCsrf, action: 'approve' })).status,
    ).toBe(403);
    // Nothing was approved: the request is still pending and approves now.
    const ok = await browser.post({ request: field(html, 'request'), csrf: sessionCsrf, action: 'approve' });
    expect(ok.status).toBe(303);
  });

  it('cannot be framed and sets HttpOnly SameSite cookies', async () => {
    const { browser, res, request, csrf } = await atSignIn();
    expectUnframeable(res);
    const loginCookie = res.headers.getSetCookie().find((c) => c.startsWith('sl_login_csrf='));
    expect(loginCookie).toMatch(/;\s*HttpOnly/i);
    expect(loginCookie).toMatch(/;\s*SameSite=(Strict|Lax)/i);
    const signedIn = await browser.post({
      request,
      csrf,
      action: 'sign_in',
      email: user.email,
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('sl_session='));
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=(Strict|Lax)/i);
    expect(session).toMatch(/;\s*Path=\/oauth/i);
    const consent = await browser.send(signedIn.headers.get('location') ?? '');
    expect(await consent.text()).toContain('value="approve"');
    expectUnframeable(consent);
  });
});

describe('grants', () => {
  it('narrows an existing token from its next request when the app is reinstalled with fewer scopes', async () => {
    const client = await registerClient(app, {});
    const t = await mintAppToken(app, store.id, ['read_products', 'read_orders'], {
      clientId: client.client_id,
    });
    expect((await call('/api/v1/orders', t.access_token)).status).toBe(200);
    expect((await call('/api/v1/products?limit=1', t.access_token)).status).toBe(200);

    await authorizeAndConsent(app, { clientId: client.client_id, scope: 'read_products', user });
    const orders = await call('/api/v1/orders', t.access_token);
    expect(orders.status).toBe(403);
    expect(orders.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'read_orders' });
    expect((await call('/api/v1/products?limit=1', t.access_token)).status).toBe(200);
  });

  it('stops every token of an app at once when it is uninstalled', async () => {
    const t = await mintAppToken(app, store.id, ['read_products']);
    expect((await call('/api/v1/vendor/me', t.access_token)).status).toBe(200);
    const pending = await freshCode(t.clientId, { scope: 'read_products' });
    expect(await internal(app).oauth.uninstallApp({ storeId: store.id, clientId: t.clientId })).toEqual({
      uninstalled: true,
    });
    const res = await call('/api/v1/vendor/me', t.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    expectOAuthError(
      await tokenRequest(app, {
        grant_type: 'refresh_token',
        client_id: t.clientId,
        refresh_token: t.refresh_token,
        resource: RESOURCE,
      }),
      400,
      'invalid_grant',
    );
    // A code approved before the uninstall is worthless after it.
    expectOAuthError(await exchange(app, { clientId: t.clientId, ...pending }), 400, 'invalid_grant');
  });

  it('refuses a refresh token used as a bearer credential', async () => {
    const t = await mintAppToken(app, store.id, ['read_products']);
    expect((await call('/api/v1/vendor/me', t.refresh_token)).status).toBe(401);
  });

  it('refuses a token bound to another resource with 401', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { resource: `${ISSUER}/mcp` });
    for (const path of ['/api/v1/vendor/me', '/api/v1/products?limit=1']) {
      const res = await call(path, t.access_token);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthorized' });
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/v1"`,
      );
    }
  });
});

describe('limits on the shared limiter', () => {
  it('defaults to the spec values', () => {
    const config = loadConfig({});
    expect({
      discovery: config.DISCOVERY_RATE_LIMIT,
      token: config.OAUTH_TOKEN_RATE_LIMIT,
      register: config.OAUTH_REGISTER_RATE_LIMIT,
      app: config.APP_RATE_LIMIT,
    }).toEqual({ discovery: 60, token: 60, register: 20, app: 120 });
  });

  describe('OAuth endpoints', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startTestApp({
        DISCOVERY_RATE_LIMIT: '3',
        OAUTH_TOKEN_RATE_LIMIT: '2',
        OAUTH_REGISTER_RATE_LIMIT: '2',
      });
    });
    afterAll(() => limited.close());

    const expect429 = (res: Answer) => {
      expectOAuthError(res, 429, 'temporarily_unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    };

    it('answers the request past the discovery limit per IP with 429 and Retry-After', async () => {
      const docs = [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/api/v1',
      ];
      for (const path of docs) expect((await fetch(`${limited.url}${path}`)).status).toBe(200);
      const over = await fetch(`${limited.url}/.well-known/oauth-protected-resource/mcp`);
      const text = await over.text();
      expect429({ status: over.status, body: JSON.parse(text), text, headers: over.headers });
      // A forwarded-for header does not buy a fresh allowance.
      const spoofed = await fetch(`${limited.url}${docs[0]}`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(spoofed.status).toBe(429);
    });

    it('answers the registration past the limit with 429 and Retry-After', async () => {
      const body = { redirect_uris: [REDIRECT] };
      expect((await registerRaw(limited, body)).status).toBe(201);
      expect((await registerRaw(limited, body)).status).toBe(201);
      expect429(await registerRaw(limited, body));
    });

    it('answers the token call past the limit with 429 and Retry-After', async () => {
      const params = {
        grant_type: 'authorization_code',
        client_id: 'slc_limitprobe000000000000000',
        code: 'x',
        code_verifier: pkce().verifier,
        redirect_uri: REDIRECT,
        resource: RESOURCE,
      };
      expect((await tokenRequest(limited, params)).status).not.toBe(429);
      expect((await tokenRequest(limited, params)).status).not.toBe(429);
      expect429(await tokenRequest(limited, params));
    });
  });

  describe('app requests per store per app', () => {
    let limited: TestApp;
    let storeId: number;
    beforeAll(async () => {
      limited = await startTestApp({ APP_RATE_LIMIT: '3' });
      storeId = (await limited.createStore('Limited Store')).id;
    });
    afterAll(() => limited.close());

    it('answers the 4th call with 429, X-RateLimit-* and Retry-After; another app is not limited', async () => {
      const a = await mintAppToken(limited, storeId, ['read_products']);
      const b = await mintAppToken(limited, storeId, ['read_products']);
      for (const remaining of ['2', '1', '0']) {
        const res = await limited.get('/api/v1/vendor/me', a.access_token);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('3');
        expect(res.headers.get('x-ratelimit-remaining')).toBe(remaining);
        expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      }
      const over = await limited.get('/api/v1/products?limit=1', a.access_token);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ error: 'rate_limited' });
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('x-ratelimit-limit')).toBe('3');
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(over.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);

      const other = await limited.get('/api/v1/vendor/me', b.access_token);
      expect(other.status).toBe(200);
      expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
    });
  });
});

describe('discovery documents', () => {
  it('serves the authorization server metadata (RFC 8414)', async () => {
    const res = await app.get<AuthorizationServerMetadata>('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth/authorize`,
      token_endpoint: `${ISSUER}/oauth/token`,
      registration_endpoint: `${ISSUER}/oauth/register`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    });
    expect([...res.body.scopes_supported].sort()).toEqual([...OAUTH_SCOPES].sort());
    expect(res.body.grant_types_supported).not.toContain('password');
    expect(res.body.grant_types_supported).not.toContain('implicit');
  });

  it.each([
    ['/.well-known/oauth-protected-resource', RESOURCE, APP_SCOPES],
    ['/.well-known/oauth-protected-resource/api/v1', RESOURCE, APP_SCOPES],
    // The vendor MCP endpoint also grants the MCP-only scopes (manage_webhooks).
    ['/.well-known/oauth-protected-resource/mcp', `${ISSUER}/mcp`, OAUTH_SCOPES],
  ])('serves %s for the resource %s (RFC 9728)', async (path, resource, scopes) => {
    const res = await app.get<ProtectedResourceMetadata>(path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ resource, authorization_servers: [ISSUER] });
    expect([...res.body.scopes_supported].sort()).toEqual([...scopes].sort());
  });

  it('answers an unknown well-known document with a 404 in the OAuth form', async () => {
    const res = await app.get<OAuthError>('/.well-known/oauth-protected-resource/other');
    expect(res.status).toBe(404);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description', 'error_uri']);
  });
});
