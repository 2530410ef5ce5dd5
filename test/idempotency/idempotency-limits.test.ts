import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../client/src/index.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';

/**
 * Every answer counts against the limit its request falls under: a replay of a kept answer and a
 * refused reuse of a key cost what the request would; test mode has allowances of its own.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ EXTERNAL_ORDERS_RATE_LIMIT: '3', INVENTORY_RATE_LIMIT: '3' });
});
afterAll(() => app.close());

let unique = 0;
/** A marketplace post of an unmapped SKU: held (202), which is the operation's kept outcome. */
const heldPost = () => ({
  marketplace: 'etsy',
  external_order_id: `EXT-LIMITS-${Date.now()}-${++unique}`,
  placed_at: '2026-11-20T09:30:00+11:00',
  currency: 'AUD',
  customer: { email: 'lim@example.com', name: 'Lim It', phone: '+61 400 000 001' },
  shipping: { address: '1 George St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'au' },
  items: [{ sku: 'UNMAPPED-SKU', quantity: 1, price_cents: 100 }],
  total_cents: 100,
});

const postExternal = (key: string, body: unknown, idempotencyKey: string) =>
  send<ErrorBody>(app, 'POST', '/api/v1/orders/external', {
    key,
    body,
    headers: { 'Idempotency-Key': idempotencyKey },
  });

describe('replays and refused reuses of a key', () => {
  it('count against the operation’s limit: the fourth answer within the minute is 429', async () => {
    const store = await app.createStore('Replaying Seller');
    const body = heldPost();
    const first = await postExternal(store.readWrite, body, 'limits-1');
    expect(first.status, first.text).toBe(202);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    const replayed = await postExternal(store.readWrite, body, 'limits-1');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.headers.get('x-ratelimit-remaining')).toBe('1');
    const reused = await postExternal(store.readWrite, heldPost(), 'limits-1');
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(reused.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await postExternal(store.readWrite, body, 'limits-1');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limited', code: 'RATE_LIMITED' });
    expect(limited.headers.get('idempotent-replayed')).toBeNull();
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // A 429 keeps nothing and changes nothing: the kept answer is still the first one.
    expect(limited.body.request_id).toBe(limited.headers.get('x-request-id'));
  });
});

describe('test mode', () => {
  it('has its own allowance: test-mode reads never use up the live one', async () => {
    const store = await app.createStore('Sandboxed Seller');
    const test = await createApiKey({ em: app.em() }, { storeId: store.id, scope: 'read', mode: 'test' });
    const inventory = (key: string) => send(app, 'GET', '/api/v1/inventory?limit=1', { key });
    for (let i = 0; i < 3; i++) expect((await inventory(test.key)).status).toBe(200);
    expect((await inventory(test.key)).status).toBe(429);
    const live = await inventory(store.read);
    expect(live.status).toBe(200);
    expect(live.headers.get('x-ratelimit-remaining')).toBe('2');
  });
});
