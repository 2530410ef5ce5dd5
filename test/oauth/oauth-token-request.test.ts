import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';
import {
  type Answer,
  authorizeAndConsent,
  ISSUER,
  mintAppToken,
  pkce,
  REDIRECT,
  RESOURCE,
  registerClient,
  type StoreUser,
  storeUser,
  tokenRequest,
} from '../helpers/oauth.ts';

/**
 * The token endpoint's request as the typed union on grant_type reads it: every answer to a
 * malformed request, word for word, and a well-formed request of each grant reaching the grant.
 */
let app: TestApp;
let store: { id: number; readWrite: string; read: string };
let user: StoreUser;
let clientId: string;

beforeAll(async () => {
  // Far more token requests than the default 60 a minute from one address.
  app = await startTestApp({ OAUTH_TOKEN_RATE_LIMIT: '10000' });
  store = await app.createStore('Token Request Store');
  user = await storeUser(app, store.id);
  clientId = (await registerClient(app, { scope: 'read_products read_orders' })).client_id;
});
afterAll(() => app.close());

interface OAuthBody {
  error?: string;
  error_description?: string;
  access_token?: string;
  refresh_token?: string;
  scope?: string;
}

/** A form body as sent, repeats and all (the helpers' record cannot repeat a name). */
async function postRaw(
  pairs: [string, string][],
): Promise<{ status: number; body: OAuthBody; headers: Headers }> {
  const res = await send(app, 'POST', '/oauth/token', {
    body: new URLSearchParams(pairs).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.status, body: res.body as OAuthBody, headers: res.headers };
}

function expectRefusal(
  res: Pick<Answer, 'status' | 'body' | 'headers'>,
  status: number,
  error: string,
  description: string,
) {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error, error_description: description, error_uri: `http://stockless.test/docs/errors/${error}` },
  });
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/** A fresh, approved code of the test client. */
async function freshCode() {
  const { verifier, challenge } = pkce();
  const back = await authorizeAndConsent(app, { clientId, codeChallenge: challenge, user });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code in ${back}`);
  return { code, verifier };
}

const codeGrant = (o: { code?: string; verifier?: string } = {}): Record<string, string> => ({
  grant_type: 'authorization_code',
  client_id: clientId,
  code: o.code ?? 'not-a-code',
  code_verifier: o.verifier ?? pkce().verifier,
  redirect_uri: REDIRECT,
  resource: RESOURCE,
});

const refreshGrant = (refreshToken = 'sl_rt_not_a_token'): Record<string, string> => ({
  grant_type: 'refresh_token',
  client_id: clientId,
  refresh_token: refreshToken,
  resource: RESOURCE,
});

const without = (params: Record<string, string>, name: string) =>
  Object.fromEntries(Object.entries(params).filter(([k]) => k !== name));

const UNKNOWN_CLIENT = 'slc_unknownclient000000000000';

describe('grant_type', () => {
  it('answers a missing or empty grant_type with invalid_request', async () => {
    const missing = await tokenRequest(app, without(codeGrant(), 'grant_type'));
    expectRefusal(missing, 400, 'invalid_request', 'grant_type is required');
    const empty = await tokenRequest(app, { ...codeGrant(), grant_type: '' });
    expectRefusal(empty, 400, 'invalid_request', 'grant_type is required');
  });

  it.each(['password', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code'])(
    'answers grant_type=%s with unsupported_grant_type, naming it',
    async (grant) => {
      const res = await tokenRequest(app, { ...codeGrant(), grant_type: grant });
      expectRefusal(res, 400, 'unsupported_grant_type', `Unsupported grant_type ${grant}`);
    },
  );

  it('goes by the first grant_type when it is repeated', async () => {
    const unknownFirst = await postRaw([
      ['grant_type', 'password'],
      ['grant_type', 'authorization_code'],
      ['client_id', clientId],
    ]);
    expectRefusal(unknownFirst, 400, 'unsupported_grant_type', 'Unsupported grant_type password');
    const codeFirst = await postRaw([
      ['grant_type', 'authorization_code'],
      ['grant_type', 'refresh_token'],
      ['client_id', clientId],
      ['refresh_token', 'sl_rt_x'],
    ]);
    expectRefusal(codeFirst, 400, 'invalid_request', 'code is required');
  });
});

describe.each([
  ['authorization_code', () => codeGrant(), ['client_id', 'code', 'code_verifier', 'redirect_uri']],
  ['refresh_token', () => refreshGrant(), ['client_id', 'refresh_token']],
] as const)('the %s grant', (_, params, required) => {
  it.each(required)('names %s when it is missing, empty or repeated', async (name) => {
    const missing = await tokenRequest(app, without(params(), name));
    expectRefusal(missing, 400, 'invalid_request', `${name} is required`);
    const empty = await tokenRequest(app, { ...params(), [name]: '' });
    expectRefusal(empty, 400, 'invalid_request', `${name} is required`);
    const repeated = await postRaw([...Object.entries(params()), [name, 'again']]);
    expectRefusal(repeated, 400, 'invalid_request', `${name} is repeated`);
  });

  it('names the first required field missing, in the order they are checked', async () => {
    const res = await tokenRequest(app, { grant_type: params().grant_type ?? '' });
    expectRefusal(res, 400, 'invalid_request', 'client_id is required');
    const rest = required.slice(1);
    const grantOnly = { grant_type: params().grant_type ?? '', client_id: clientId };
    expectRefusal(await tokenRequest(app, grantOnly), 400, 'invalid_request', `${rest[0]} is required`);
  });

  it('answers an unknown client before a missing field: 401 invalid_client with a Basic challenge', async () => {
    for (const missing of required.slice(1)) {
      const res = await tokenRequest(app, without({ ...params(), client_id: UNKNOWN_CLIENT }, missing));
      expectRefusal(res, 401, 'invalid_client', 'Client authentication failed');
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="oauth"');
    }
    const overlong = await tokenRequest(app, { ...params(), client_id: `slc_${'x'.repeat(100)}` });
    expectRefusal(overlong, 401, 'invalid_client', 'Client authentication failed');
  });

  it('ignores parameters it does not know', async () => {
    const res = await postRaw([...Object.entries(params()), ['__proto__', 'x'], ['client_secret', 'y']]);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
  });
});

describe('a well-formed authorization_code request reaches the grant', () => {
  it('refuses an unknown code there, before looking at the resource', async () => {
    const invalid =
      'The authorization code is invalid, expired, or was issued to another client or redirect URI';
    expectRefusal(await tokenRequest(app, codeGrant()), 400, 'invalid_grant', invalid);
    const noResource = await tokenRequest(app, without(codeGrant(), 'resource'));
    expectRefusal(noResource, 400, 'invalid_grant', invalid);
  });

  it('checks the resource against the code, without spending it, then issues tokens', async () => {
    const { code, verifier } = await freshCode();
    const known = `${RESOURCE} or ${ISSUER}/mcp`;
    const missing = await tokenRequest(app, without(codeGrant({ code, verifier }), 'resource'));
    expectRefusal(missing, 400, 'invalid_target', `resource is required: ${known}`);
    const twice = await postRaw([...Object.entries(codeGrant({ code, verifier })), ['resource', RESOURCE]]);
    expectRefusal(twice, 400, 'invalid_target', 'Send exactly one resource');
    const other = await tokenRequest(app, { ...codeGrant({ code, verifier }), resource: `${ISSUER}/mcp` });
    expectRefusal(other, 400, 'invalid_target', `resource must be ${RESOURCE}, as authorized`);

    const ok = await tokenRequest(app, codeGrant({ code, verifier }));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', scope: 'read_products read_orders' });
    expect(ok.body.access_token).toMatch(/^sl_at_/);
  });
});

describe('a well-formed refresh_token request reaches the grant', () => {
  it('refuses an unknown refresh token there', async () => {
    const res = await tokenRequest(app, refreshGrant());
    expectRefusal(res, 400, 'invalid_grant', 'The refresh token is invalid, expired or revoked');
  });

  it('rotates, with the first scope sent when repeated and the whole grant when empty', async () => {
    const t = await mintAppToken(app, store.id, ['read_products', 'read_orders'], { clientId });
    const narrowed = await postRaw([
      ...Object.entries(refreshGrant(t.refresh_token)),
      ['scope', 'read_products'],
      ['scope', 'not_a_scope'],
    ]);
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('read_products');
    const whole = await tokenRequest(app, { ...refreshGrant(narrowed.body.refresh_token), scope: '' });
    expect(whole.status).toBe(200);
    expect(whole.body.scope).toBe('read_products read_orders');
    const wider = await tokenRequest(app, {
      ...refreshGrant(whole.body.refresh_token),
      scope: 'read_inventory',
    });
    expectRefusal(wider, 400, 'invalid_scope', 'Unknown or unregistered scope: read_inventory');
  });
});
