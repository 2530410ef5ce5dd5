import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DOCS_CSP, REDOC_CDN_LOGO } from '../../server/docs-route.ts';
import { launchChromium, NO_CHROMIUM, type PublicApp, startAppAtPublicUrl } from '../helpers/browser.ts';

/**
 * The API reference page in a real headless Chromium: Redoc, served from node_modules, renders the
 * live contract; nothing is fetched from anywhere but the app; the page's CSP holds (no violation);
 * the changelog link works.
 */

let app: PublicApp;
let browser: Browser | undefined;
const contexts: BrowserContext[] = [];

beforeEach(() => {
  if (!browser) throw new Error(NO_CHROMIUM);
});

beforeAll(async () => {
  app = await startAppAtPublicUrl();
  browser = await launchChromium();
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await app?.close();
});

/**
 * A page whose every request is recorded; a request for anything but the app (or the page's own
 * `data:`/`blob:` URLs) is recorded as leaving and aborted. CSP violations are recorded too.
 */
async function watchedPage() {
  if (!browser) throw new Error(NO_CHROMIUM);
  const context = await browser.newContext();
  contexts.push(context);
  context.setDefaultTimeout(20_000);
  const requests: string[] = [];
  const leaving: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (url.startsWith(`${app.url}/`) || url.startsWith('data:') || url.startsWith('blob:')) {
      return route.continue();
    }
    leaving.push(url);
    return route.abort();
  });
  // Requests the router does not see (web workers): any to another origin is leaving as well.
  context.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(`${app.url}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      if (!leaving.includes(url)) leaving.push(url);
    }
  });
  await context.addInitScript(
    "window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.effectiveDirective + ' ' + e.blockedURI));",
  );
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return { page, requests, leaving, errors };
}

const violations = (page: Page) => page.evaluate('window.violations') as Promise<string[]>;

describe('/docs', () => {
  it('renders the live contract with Redoc from this server alone, within its CSP', async () => {
    const { page, requests, leaving, errors } = await watchedPage();
    const res = await page.goto(`${app.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toBe(DOCS_CSP);
    expect(res?.headers()['x-frame-options']).toBe('DENY');

    // An operation of the contract, by its summary, in the rendered reference.
    await expect
      .poll(() => page.getByText("List the store's products", { exact: true }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    // Generous timeouts: the page is large (every operation with its samples) and CPUs may be busy.
    await expect
      .poll(() => page.getByText('Stockless Partner API', { exact: false }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    // The webhook events (OpenAPI 3.1 `webhooks`) are rendered too.
    await expect
      .poll(() => page.getByText('order.shipped', { exact: true }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);

    expect(requests).toContain(`${app.url}/api/v1/openapi.json`);
    expect(requests).toContain(`${app.url}/docs/redoc.standalone.js`);
    expect(leaving, 'requests that left localhost').toEqual([]);
    expect(await violations(page), 'CSP violations').toEqual([]);
    expect(errors, 'page errors').toEqual([]);
  });

  it("serves node_modules' Redoc bundle, its CDN logo address emptied", async () => {
    const res = await fetch(`${app.url}/docs/redoc.standalone.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const file = readFileSync(
      createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'),
      'utf8',
    );
    // The package still names the logo on the CDN (else this rewrite is stale: check the page test).
    expect(file).toContain(`"${REDOC_CDN_LOGO}"`);
    const served = await res.text();
    expect(served).not.toContain(REDOC_CDN_LOGO);
    expect(served).toBe(file.replaceAll(`"${REDOC_CDN_LOGO}"`, '"data:,"'));
    expect((await fetch(`${app.url}/docs`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${app.url}/docs/nope`)).status).toBe(404);
  });

  it('links the changelog, which renders without leaving localhost', async () => {
    const { page, leaving, errors } = await watchedPage();
    await page.goto(`${app.url}/docs`);
    await page.getByRole('link', { name: 'Changelog', exact: true }).click();
    await page.waitForURL(`${app.url}/docs/changelog`);
    expect(await page.locator('h1').first().textContent()).toBe('Changelog');
    const release = page.locator('h2', { hasText: '[1.0.0]' });
    expect(await release.count()).toBe(1);
    expect(await page.locator('h3', { hasText: 'Added' }).count()).toBeGreaterThan(0);
    expect(leaving, 'requests that left localhost').toEqual([]);
    expect(await violations(page), 'CSP violations').toEqual([]);
    expect(errors, 'page errors').toEqual([]);

    const markdown = await fetch(`${app.url}/docs/changelog.md`);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await markdown.text()).toBe(readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8'));
  });
});
