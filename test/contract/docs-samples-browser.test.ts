import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium, NO_CHROMIUM, type PublicApp, startAppAtPublicUrl } from '../helpers/browser.ts';

/**
 * The API reference in a real headless Chromium shows, beside each operation, its request samples
 * (`x-codeSamples`: curl and the SDK call) and, under it, its own error texts: POST /orders' 409
 * is the price change, GET /orders/{id}'s 404 is no such order.
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

async function openDocs(hash: string): Promise<{ page: Page; errors: string[] }> {
  if (!browser) throw new Error(NO_CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  contexts.push(context);
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const res = await page.goto(`${app.url}/docs${hash}`);
  expect(res?.status()).toBe(200);
  return { page, errors };
}

/** An operation's section of the reference, by Redoc's section id (`tag/<tag>/operation/<id>`). */
function operation(page: Page, tag: string, operationId: string): Locator {
  return page.locator(`[data-section-id="tag/${tag}/operation/${operationId}"]`);
}

/** The code a request-sample tab shows once chosen. */
async function sample(section: Locator, label: string): Promise<string> {
  const tab = section.getByRole('tab', { name: label, exact: true });
  await tab.click();
  await expect.poll(() => tab.getAttribute('aria-selected')).toBe('true');
  const panel = section.locator('[role="tabpanel"]:not([hidden])', { has: section.page().locator('pre') });
  await expect.poll(() => panel.count()).toBeGreaterThan(0);
  return (await panel.first().locator('pre').first().textContent()) ?? '';
}

/** The text of the response button of `status` (status and description). */
async function response(section: Locator, status: string): Promise<string> {
  const button = section.locator('button', { has: section.page().locator('strong', { hasText: status }) });
  await expect.poll(() => button.count()).toBeGreaterThan(0);
  return (await button.first().textContent()) ?? '';
}

describe('/docs request samples and error texts', () => {
  it('shows POST /api/v1/orders with its curl and SDK samples and its own 404 and 409', async () => {
    const { page, errors } = await openDocs('#tag/Orders/operation/createWholesaleOrder');
    const section = operation(page, 'Orders', 'createWholesaleOrder');
    await expect.poll(() => section.count(), { timeout: 20_000 }).toBe(1);
    await section.scrollIntoViewIfNeeded();

    const curl = await sample(section, 'curl');
    expect(curl).toContain(`curl -X POST '${app.url}/api/v1/orders'`);
    expect(curl).toContain('Authorization: Bearer $STOCKLESS_API_KEY');
    expect(curl).toContain('"product_id": 1042');
    const sdk = await sample(section, 'SDK');
    expect(sdk).toContain("import { Stockless } from '@stockless/sdk';");
    expect(sdk).toContain('await stockless.orders.create({');

    expect(await response(section, '409')).toContain('The wholesale price changed (PRICE_CHANGED)');
    expect(await response(section, '404')).toContain('PRODUCT_NOT_FOUND, VARIANT_NOT_FOUND');
    expect(await response(section, '404')).not.toContain('No such product');
    expect(errors, 'page errors').toEqual([]);
  });

  it('shows GET /api/v1/orders/{id} with its samples and "No such order" as its 404', async () => {
    const { page, errors } = await openDocs('#tag/Orders/operation/getOrder');
    const section = operation(page, 'Orders', 'getOrder');
    await expect.poll(() => section.count(), { timeout: 20_000 }).toBe(1);
    await section.scrollIntoViewIfNeeded();

    expect(await sample(section, 'curl')).toContain(`curl '${app.url}/api/v1/orders/1'`);
    expect(await sample(section, 'SDK')).toContain('const { order } = await stockless.orders.get(1);');
    expect(await response(section, '404')).toContain('No such order in the store (ORDER_NOT_FOUND)');
    expect(errors, 'page errors').toEqual([]);
  });

  it('shows a listing operation its own 409, not another operation’s', async () => {
    const { page } = await openDocs('#tag/Listings/operation/setMyProductPurchaseMode');
    const section = operation(page, 'Listings', 'setMyProductPurchaseMode');
    await expect.poll(() => section.count(), { timeout: 20_000 }).toBe(1);
    await section.scrollIntoViewIfNeeded();
    const conflict = await response(section, '409');
    expect(conflict).toContain('PURCHASE_MODE_LOCKED');
    expect(conflict).not.toContain('Already in the store');
    const sdk = await sample(section, 'SDK');
    expect(sdk).toContain('await stockless.listings.setPurchaseMode(40, {');
    expect(sdk).toContain("purchase_mode: 'enquiry'");
  });
});
