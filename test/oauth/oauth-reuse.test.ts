import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthError, OAuthToken } from '../../client/src/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  type Answer,
  authorizeAndConsent,
  exchange,
  mintAppToken,
  pkce,
  RESOURCE,
  registerClient,
  type StoreUser,
  storeUser,
  tokenRequest,
} from '../helpers/oauth.ts';

/**
 * Reuse of a refresh token or an authorization code, in sequence and at the same moment (RFC 9700
 * §4.14, RFC 6749 §4.1.2, OAuth 2.1 §4.1.3): exactly one request gets tokens, the other gets
 * `invalid_grant`, and the reuse revokes the family, the winner's fresh tokens included.
 */
let app: TestApp;
let store: { id: number; readWrite: string; read: string };
let user: StoreUser;
let clientId: string;

const ROUNDS = 8;

beforeAll(async () => {
  // Many token requests in a few seconds from one address and one app.
  app = await startTestApp({ OAUTH_TOKEN_RATE_LIMIT: '10000', APP_RATE_LIMIT: '10000' });
  store = await app.createStore('OAuth Reuse Store');
  user = await storeUser(app, store.id);
  clientId = (await registerClient(app, { scope: 'read_products read_orders' })).client_id;
});
afterAll(() => app.close());

const refresh = (token: string) =>
  tokenRequest<OAuthToken | OAuthError>(app, {
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: token,
    resource: RESOURCE,
  });

/** A REST call that needs a live access token: 200 when it is live, 401 when it is not. */
const me = async (token: string) => (await app.get('/api/v1/vendor/me', token)).status;

async function freshCode() {
  const { verifier, challenge } = pkce();
  const back = await authorizeAndConsent(app, {
    clientId,
    scope: 'read_products',
    codeChallenge: challenge,
    user,
  });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code in ${back}`);
  return { code, verifier };
}

/** Splits two simultaneous answers into the one with tokens and the refused one, insisting on exactly that. */
function winnerAndLoser(answers: Answer<OAuthToken | OAuthError>[]) {
  const summary = answers.map((a) => ({ status: a.status, error: (a.body as OAuthError).error }));
  expect(summary.sort((a, b) => a.status - b.status)).toEqual([
    { status: 200, error: undefined },
    { status: 400, error: 'invalid_grant' },
  ]);
  const winner = answers.find((a) => a.status === 200)?.body as OAuthToken;
  const loser = answers.find((a) => a.status === 400) as Answer<OAuthError>;
  expect(loser.headers.get('cache-control')).toBe('no-store');
  return { winner, loser };
}

/** Every token of the family is dead: access tokens get 401, refresh tokens `invalid_grant`. */
async function expectFamilyRevoked(tokens: { access: string[]; refresh: string[] }) {
  for (const access of tokens.access) expect(await me(access), access).toBe(401);
  for (const token of tokens.refresh) {
    const res = await refresh(token);
    expect({ status: res.status, error: (res.body as OAuthError).error }, token).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
  }
}

describe('a refresh token sent twice at the same moment', () => {
  it(`gives tokens to one, invalid_grant to the other, and revokes the winner's tokens (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
      expect(await me(t.access_token)).toBe(200);
      const answers = await Promise.all([refresh(t.refresh_token), refresh(t.refresh_token)]);
      const { winner } = winnerAndLoser(answers);
      await expectFamilyRevoked({
        access: [t.access_token, winner.access_token],
        refresh: [winner.refresh_token, t.refresh_token],
      });
    }
  });

  it(`ends the tokens of a rotation that races the reuse of an older token (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
      const rotated = (await refresh(t.refresh_token)).body as OAuthToken;
      // The app rotates its current token while a thief replays the spent one.
      const [next, replay] = await Promise.all([refresh(rotated.refresh_token), refresh(t.refresh_token)]);
      expect({ status: replay.status, error: (replay.body as OAuthError).error }).toEqual({
        status: 400,
        error: 'invalid_grant',
      });
      const family = { access: [t.access_token, rotated.access_token], refresh: [rotated.refresh_token] };
      // Either the rotation committed first (and its tokens were revoked) or it came after (refused).
      if (next.status === 200) {
        family.access.push((next.body as OAuthToken).access_token);
        family.refresh.push((next.body as OAuthToken).refresh_token);
      } else expect((next.body as OAuthError).error).toBe('invalid_grant');
      await expectFamilyRevoked(family);
    }
  });

  it('revokes the family when three refreshes of one token race', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    const answers = await Promise.all([1, 2, 3].map(() => refresh(t.refresh_token)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
    const winner = answers.find((a) => a.status === 200)?.body as OAuthToken;
    await expectFamilyRevoked({
      access: [t.access_token, winner.access_token],
      refresh: [winner.refresh_token],
    });
  });
});

describe('an authorization code exchanged twice at the same moment', () => {
  it(`gives tokens to one, invalid_grant to the other, and revokes the winner's tokens (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { code, verifier } = await freshCode();
      const answers = await Promise.all([
        exchange<OAuthToken | OAuthError>(app, { clientId, code, verifier }),
        exchange<OAuthToken | OAuthError>(app, { clientId, code, verifier }),
      ]);
      const { winner } = winnerAndLoser(answers);
      await expectFamilyRevoked({ access: [winner.access_token], refresh: [winner.refresh_token] });
    }
  });
});

describe('reuse in sequence', () => {
  it('rotates without reuse: every new pair works and the family stays live', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    let current = t.refresh_token;
    for (let i = 0; i < 3; i++) {
      const res = await refresh(current);
      expect(res.status).toBe(200);
      const next = res.body as OAuthToken;
      expect(next.refresh_token).not.toBe(current);
      expect(await me(next.access_token)).toBe(200);
      current = next.refresh_token;
    }
    // The first access token is not revoked by rotation: it lives out its hour.
    expect(await me(t.access_token)).toBe(200);
  });

  it('a spent refresh token presented later revokes every token of the grant', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    const rotated = await refresh(t.refresh_token);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body as OAuthToken;
    expect(await me(fresh.access_token)).toBe(200);
    const reused = await refresh(t.refresh_token);
    expect({ status: reused.status, error: (reused.body as OAuthError).error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    await expectFamilyRevoked({
      access: [t.access_token, fresh.access_token],
      refresh: [fresh.refresh_token],
    });
  });

  it('a spent code presented later revokes the tokens it issued and their rotations', async () => {
    const { code, verifier } = await freshCode();
    const first = await exchange(app, { clientId, code, verifier });
    expect(first.status).toBe(200);
    const rotated = await refresh(first.body.refresh_token);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body as OAuthToken;
    const again = await exchange<OAuthError>(app, { clientId, code, verifier });
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    await expectFamilyRevoked({
      access: [first.body.access_token, fresh.access_token],
      refresh: [fresh.refresh_token],
    });
  });

  it('a new authorization after a revoked family works again', async () => {
    const t = await mintAppToken(app, store.id, ['read_products'], { clientId });
    expect(await me(t.access_token)).toBe(200);
    const res = await refresh(t.refresh_token);
    expect(res.status).toBe(200);
    expect(await me((res.body as OAuthToken).access_token)).toBe(200);
  });
});
