import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { ensureDatabase } from '../server/database.ts';
import { DOCS_CSP, REDOC_CDN_LOGO } from '../server/docs-route.ts';
import { createLogger } from '../server/logger.ts';
import { type Orm, openOrm } from '../server/orm.ts';
import { TEST_SECRET_KEY } from './helpers/app.ts';
import { withDatabase } from './helpers/global-setup.ts';

/**
 * The API reference page in a real headless Chromium: Redoc, served from node_modules, renders the
 * live contract; nothing is fetched from anywhere but the app; the page's CSP holds (no violation);
 * the changelog link works.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const NO_CHROMIUM = `Chromium not found at ${CHROMIUM}. Install it (apt-get install chromium, as .ci/run does) or set CHROMIUM_PATH to a Chromium binary.`;

let app: { url: string; orm: Orm; close(): Promise<void> };
let browser: Browser | undefined;
const contexts: BrowserContext[] = [];

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/** The real app on a port picked first, so that PUBLIC_URL (and the contract's server) names it. */
async function startApp() {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  await ensureDatabase(adminUrl, name, inject('templateDb'));
  const databaseUrl = withDatabase(adminUrl, name);
  const orm = await openOrm(databaseUrl, 2);
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      SECRET_KEY: TEST_SECRET_KEY,
    });
    const server = createApp({ orm, config, log: createLogger('silent') });
    try {
      await new Promise<void>((resolve, reject) =>
        server.once('error', reject).listen(port, '127.0.0.1', () => resolve()),
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      await orm.close(true);
      throw err;
    }
    return {
      url,
      orm,
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await orm.close(true);
      },
    };
  }
}

beforeEach(() => {
  if (!browser) throw new Error(NO_CHROMIUM);
});

beforeAll(async () => {
  app = await startApp();
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }
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
    await expect
      .poll(() => page.getByText('Stockless Partner API', { exact: false }).count())
      .toBeGreaterThan(0);
    // The webhook events (OpenAPI 3.1 `webhooks`) are rendered too.
    await expect.poll(() => page.getByText('order.shipped', { exact: true }).count()).toBeGreaterThan(0);

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
    expect(await markdown.text()).toBe(readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8'));
  });
});
