import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { createSession } from '../../src/oauth/sessions.ts';
import { createCaller } from '../../src/router.ts';
import { createStore } from '../../src/store/create-store.ts';
import { testSettings } from '../helpers/app.ts';
import { launchChromium, NO_CHROMIUM, type PublicApp, startAppAtPublicUrl } from '../helpers/browser.ts';

/**
 * The sign-in and consent page in a real headless Chromium: the whole authorization in the browser,
 * Deny, a wrong password, framing by another origin and a cross-origin form post.
 *
 * The page's forms are checked against PUBLIC_URL's origin, so the app must listen where PUBLIC_URL
 * says: this file starts it itself on a port picked first (startTestApp always binds port 0).
 */
const OPERATOR = 'operator-token-for-consent-browser-0123456789';
const EMAIL = 'owner@browser.test';
const PASSWORD = 'correct horse battery staple';
const SCOPES = 'read_products read_orders';

let app: PublicApp;
let outside: { url: string; crossSite: string; hits: URL[]; close(): Promise<void> };
let browser: Browser | undefined;
let clientId: string;
let redirectUri: string;
let userId: number;
const contexts: BrowserContext[] = [];

/**
 * Another origin: the app's loopback redirect URI (records every callback), a page that frames a
 * URL, and a page that auto-posts a form. `crossSite` is the same server as `localhost`, a different
 * site from 127.0.0.1.
 */
async function startOutside() {
  const hits: URL[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://outside');
    const html = (body: string) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>${body}`);
    if (url.pathname === '/callback') {
      hits.push(url);
      return html('<h1>Callback received</h1>');
    }
    if (url.pathname === '/frame') {
      return html(
        `<h1>Win a prize</h1><iframe id="victim" name="victim" width="600" height="400" src="${attr(url.searchParams.get('src') ?? '')}"></iframe>`,
      );
    }
    if (url.pathname === '/attack') {
      const fields = [...url.searchParams]
        .filter(([k]) => k !== 'target')
        .map(([k, v]) => `<input type="hidden" name="${attr(k)}" value="${attr(v)}">`)
        .join('');
      return html(
        `<form id="f" method="post" action="${attr(url.searchParams.get('target') ?? '')}">${fields}</form><script>document.getElementById('f').submit()</script>`,
      );
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    crossSite: `http://localhost:${port}`,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function attr(s: string) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function internal() {
  return createCaller({
    em: app.orm.em.fork(),
    requestId: 'req_consent_browser',
    headers: { authorization: `Bearer ${OPERATOR}` },
    settings: testSettings(OPERATOR),
    log: createLogger('silent'),
  }).internal;
}

// A missing browser fails every test here (not the hook, which would report them as skipped).
beforeEach(() => {
  if (!browser) throw new Error(NO_CHROMIUM);
});

beforeAll(async () => {
  app = await startAppAtPublicUrl({ OPERATOR_TOKEN: OPERATOR });
  outside = await startOutside();
  browser = await launchChromium();

  const em = app.orm.em.fork();
  const store = await createStore({ em }, { name: 'Browser Store', slug: `s-${randomUUID().slice(0, 8)}` });
  userId = (await internal().oauth.createUser({ storeId: store.id, email: EMAIL, password: PASSWORD })).id;

  redirectUri = `${outside.url}/callback`;
  const registered = await fetch(`${app.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      client_name: 'Browser Test App',
      scope: SCOPES,
    }),
  });
  expect(registered.status).toBe(201);
  clientId = ((await registered.json()) as { client_id: string }).client_id;
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await outside?.close();
  await app?.close();
});

const base64url = (b: Buffer) => b.toString('base64url');

/** A new authorization (fresh PKCE pair and state) and its authorize URL. */
function authorization() {
  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(16));
  const url = new URL(`${app.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: SCOPES,
    state,
    code_challenge: base64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
    resource: `${app.url}/api/v1`,
  })) {
    url.searchParams.set(k, v);
  }
  return { url: url.toString(), verifier, state };
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  if (!browser) throw new Error('no browser');
  const context = await browser.newContext();
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  return { context, page: await context.newPage() };
}

/** Clicks a submit button of the page's form; answers the status of the POST and what the page shows. */
async function submit(page: Page, button: string) {
  const posted = page.waitForResponse(
    (r) => r.url() === `${app.url}/oauth/consent` && r.request().method() === 'POST',
  );
  await page.getByRole('button', { name: button }).click();
  const res = await posted;
  await page.waitForLoadState('load');
  const origin = await res.request().headerValue('origin');
  const shown = `${await page.locator('h1').textContent()}: ${await page.locator('p.error').allTextContents()}`;
  return {
    status: res.status(),
    why: `${button} answered ${res.status()} (${shown}); Origin sent: ${origin}`,
  };
}

/** Opens the authorize URL and signs in with the form; answers the POST's status. */
async function signIn(page: Page, authorizeUrl: string, password = PASSWORD) {
  await page.goto(authorizeUrl);
  expect(page.url().startsWith(`${app.url}/oauth/consent?request=`)).toBe(true);
  expect(await page.locator('h1').textContent()).toBe('Sign in to connect Browser Test App');
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(password);
  return submit(page, 'Sign in');
}

/**
 * A browser already signed in: the session cookie as the sign-in form sets it, made server-side so
 * that these tests do not depend on the form. Opens the authorize URL: the page shows the consent form.
 */
async function signedInAt(authorizeUrl: string) {
  const { context, page } = await newPage();
  const token = await createSession(app.orm.em.fork(), userId);
  await context.addCookies([
    {
      name: 'sl_session',
      value: token,
      domain: '127.0.0.1',
      path: '/oauth',
      httpOnly: true,
      sameSite: 'Lax',
    },
  ]);
  await page.goto(authorizeUrl);
  expect(await page.locator('h1').textContent()).toBe('Browser Test App wants access to Browser Store');
  return { context, page, consentUrl: page.url() };
}

const callbacksFor = (state: string) => outside.hits.filter((u) => u.searchParams.get('state') === state);

describe('the consent page in Chromium', () => {
  it('signs in, shows the app and its scopes, approves, and the code works at /oauth/token and on the API', async () => {
    const { context, page } = await newPage();
    const auth = authorization();
    const signedIn = await signIn(page, auth.url);
    expect(signedIn.status, signedIn.why).toBe(303);

    expect(await page.locator('h1').textContent()).toBe('Browser Test App wants access to Browser Store');
    const scopes = await page.locator('li').allTextContents();
    expect(scopes).toEqual([
      'read_products: Read the catalogue and your listings',
      'read_orders: Read your orders',
    ]);
    expect(await page.locator('p.muted').textContent()).toContain(EMAIL);
    const session = (await context.cookies()).find((c) => c.name === 'sl_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/oauth' });

    await Promise.all([
      page.waitForURL(`${redirectUri}?**`),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Callback received');
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(auth.state);
    expect(callback.searchParams.get('iss')).toBe(app.url);
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(callbacksFor(auth.state)).toHaveLength(1);

    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: code ?? '',
        redirect_uri: redirectUri,
        code_verifier: auth.verifier,
        resource: `${app.url}/api/v1`,
      }),
    });
    const tokens = (await token.json()) as { access_token: string; scope: string; token_type: string };
    expect(token.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens.scope).toBe(SCOPES);
    expect(tokens.access_token).toMatch(/^sl_at_/);

    const products = await fetch(`${app.url}/api/v1/products?limit=1`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(products.status).toBe(200);
  });

  it('Deny sends the browser back to the app with error=access_denied and no code', async () => {
    const { page } = await newPage();
    const auth = authorization();
    const signedIn = await signIn(page, auth.url);
    expect(signedIn.status, signedIn.why).toBe(303);
    await Promise.all([
      page.waitForURL(`${redirectUri}?**`),
      page.getByRole('button', { name: 'Deny' }).click(),
    ]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(auth.state);
    expect(callback.searchParams.get('iss')).toBe(app.url);
    expect(callback.searchParams.has('code')).toBe(false);
  });

  it('a wrong password shows the error on the page and sets no session cookie', async () => {
    const { context, page } = await newPage();
    const auth = authorization();
    const wrong = await signIn(page, auth.url, 'not the password at all');
    expect(wrong.status, wrong.why).toBe(401);

    expect(await page.getByRole('alert').textContent()).toBe('Wrong email or password.');
    expect(await page.locator('h1').textContent()).toBe('Sign in to connect Browser Test App');
    expect(await page.getByLabel('Email').inputValue()).toBe(EMAIL);
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('sl_session');

    // The same form, now with the right password, still signs in.
    await page.getByLabel('Password').fill(PASSWORD);
    const right = await submit(page, 'Sign in');
    expect(right.status, right.why).toBe(303);
    expect(await page.locator('h1').textContent()).toBe('Browser Test App wants access to Browser Store');
    expect((await context.cookies()).map((c) => c.name)).toContain('sl_session');
  });

  it('refuses to be framed by another origin (X-Frame-Options DENY, frame-ancestors none)', async () => {
    const auth = authorization();
    const { page, consentUrl } = await signedInAt(auth.url);

    const messages: string[] = [];
    page.on('console', (m) => messages.push(m.text()));
    const framed = page.waitForResponse((r) => r.url() === consentUrl);
    await page.goto(`${outside.crossSite}/frame?src=${encodeURIComponent(consentUrl)}`);
    const response = await framed;
    expect(response.status()).toBe(200);
    const headers = await response.allHeaders();
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");

    // Chromium replaces the frame with its error page: none of the consent page reaches it.
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    await expect.poll(() => frame?.url()).toBe('chrome-error://chromewebdata/');
    expect(await page.locator('h1').textContent()).toBe('Win a prize');
    const victim = page.frameLocator('#victim');
    expect(await victim.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expect
      .poll(() => messages.join('\n'))
      .toMatch(/violates the following Content Security Policy directive: "frame-ancestors 'none'"/);
    expect(callbacksFor(auth.state)).toHaveLength(0);
  });

  it('refuses a form posted to /oauth/consent from another origin while signed in, and no code leaves', async () => {
    const auth = authorization();
    const { page, consentUrl } = await signedInAt(auth.url);
    const requestId = new URL(consentUrl).searchParams.get('request') ?? '';
    // The worst case: the attacker even has the session's CSRF token.
    const csrf = await page.locator('input[name="csrf"]').getAttribute('value');
    expect(csrf).toBeTruthy();
    const callbacksBefore = outside.hits.length;

    const attack = async (origin: string, fields: Record<string, string>) => {
      const target = `${app.url}/oauth/consent`;
      const posted = page.waitForResponse((r) => r.url() === target && r.request().method() === 'POST');
      await page.goto(`${origin}/attack?${new URLSearchParams({ target, ...fields })}`);
      const res = await posted;
      await page.waitForLoadState('load');
      return {
        status: res.status(),
        origin: await res.request().headerValue('origin'),
        cookie: (await res.request().headerValue('cookie')) ?? '',
        text: await page.locator('p.error').textContent(),
      };
    };

    // Another site (localhost), the usual attack: no token.
    const crossSite = await attack(outside.crossSite, { request: requestId, action: 'approve' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.origin).toBe(outside.crossSite);
    expect(page.url()).toBe(`${app.url}/oauth/consent`);

    // A sibling origin on the same site (another port on 127.0.0.1): the Lax session cookie is sent,
    // and with a leaked token only the Origin check is left to refuse it.
    const sameSite = await attack(outside.url, { request: requestId, csrf: csrf ?? '', action: 'approve' });
    expect(sameSite.status).toBe(403);
    expect(sameSite.origin).toBe(outside.url);
    expect(sameSite.cookie).toContain('sl_session=');
    expect(sameSite.text).toBe('This form must be sent from the Stockless consent page.');

    expect(outside.hits.length).toBe(callbacksBefore);

    // Nothing was decided: the request is still pending and the consent page still offers it.
    await page.goto(consentUrl);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(1);
  });
});
