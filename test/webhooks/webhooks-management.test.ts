import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  CreateWebhookResponse,
  DeleteWebhookResponse,
  ErrorBody,
  GetWebhookResponse,
  ListWebhooksResponse,
  ResendWebhookDeliveryResponse,
  RotateWebhookSecretResponse,
  TestWebhookResponse,
  UpdateWebhookResponse,
} from '../../client/src/index.ts';
import type { Actor } from '../../src/auth/actor.ts';
import { APP_SCOPES } from '../../src/auth/actor.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { createCaller } from '../../src/router.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { decryptSecret, secretsKey } from '../../src/webhooks/delivery/signing-secrets.ts';
import { isAllowedAddress, parseWebhookUrl } from '../../src/webhooks/delivery/url-guard.ts';
import { startTestApp, TEST_SECRET_KEY, type TestApp, testContext } from '../helpers/app.ts';
import { failure } from '../helpers/errors.ts';
import { isStatus, send as request, type Sent } from '../helpers/http.ts';

type Store = Awaited<ReturnType<TestApp['createStore']>>;

let app: TestApp;
/** An app whose only private-address exemption is a harmless TEST-NET address: the production rules. */
let strict: TestApp;
let store: Store;
let other: Store;

beforeAll(async () => {
  [app, strict] = await Promise.all([
    startTestApp(),
    startTestApp({ WEBHOOK_ALLOW_PRIVATE: '192.0.2.0/32' }),
  ]);
  store = await app.createStore('Hook Store');
  other = await app.createStore('Other Hook Store');
});
/** A fresh store per test, so no test meets another's subscription limit. */
beforeEach(async () => {
  store = await app.createStore('Hook Store');
});
afterAll(async () => {
  await Promise.all([app?.close(), strict?.close()]);
});

const BASE = '/api/v1/vendor/webhooks';
const one = (id: number | string) => `${BASE}/${id}`;
const VALID = 'https://127.0.0.1:9/hook';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const WWW_AUTHENTICATE =
  'Bearer resource_metadata="http://stockless.test/.well-known/oauth-protected-resource/api/v1"';

const EVENTS = [
  'order.created',
  'order.updated',
  'order.fulfilled',
  'order.shipped',
  'order.completed',
  'order.cancelled',
  'order.held',
  'invoice.issued',
  'product.created',
  'product.updated',
  'product.deleted',
  'inventory.updated',
  'site.published',
  'site.unpublished',
  'webhook.ping',
  'export.completed',
  'export.failed',
];

/** Status, parsed JSON body (`T`: the body the test expects), headers and raw text. */
function send<T = unknown>(
  method: string,
  path: string,
  o: { body?: unknown; key?: string | null; target?: TestApp; as?: Store; bare?: boolean } = {},
): Promise<Required<Sent<T>>> {
  const key = o.key === null ? undefined : (o.key ?? (o.as ?? store).readWrite);
  // Body-less POST actions are sent with `{}` here; the `bare` test sends them with no body at all.
  const body = o.body === undefined && method === 'POST' && !o.bare ? {} : o.body;
  return request<T>(o.target ?? app, method, path, { key, body });
}

/** Creates a subscription: the created webhook unless the test says `ErrorBody`. */
const create = <T = CreateWebhookResponse>(
  body: unknown,
  o: { key?: string | null; target?: TestApp; as?: Store } = {},
) => send<T>('POST', BASE, { ...o, body });

/** Creates a subscription that must succeed; answers the created webhook (with its secret). */
async function created(
  o: { url?: string; events?: string[]; as?: Store; target?: TestApp } = {},
): Promise<CreateWebhookResponse['webhook']> {
  const res = await create({ url: o.url ?? VALID, events: o.events ?? ['order.created'] }, o);
  expect(res.status, res.text).toBe(201);
  return res.body.webhook;
}

interface SubRow {
  id: number;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  secret_encrypted: string;
  dead_letter_streak: number;
}

async function subRow(id: number, target: TestApp = app): Promise<SubRow | undefined> {
  const [r] = await rows<SubRow>(
    target.em(),
    sql`SELECT id, url, events, active, disabled_reason, secret_encrypted, dead_letter_streak
      FROM webhook_subscriptions WHERE id = ${id}`,
  );
  return r;
}

async function subCount(storeId: number, target: TestApp = app): Promise<number> {
  const [r] = await rows<{ n: number }>(
    target.em(),
    sql`SELECT count(*)::integer AS n FROM webhook_subscriptions WHERE store_id = ${storeId}`,
  );
  return r?.n ?? -1;
}

/** A refused webhook URL names the field, as a validation error does. */
const URL_DETAILS = { details: [{ path: 'url', message: expect.any(String) }] };

/** The contract's error body, exactly: `{ error, message, code?, details?, request_id }` plus extras. */
function expectError(
  res: Sent,
  status: number,
  error: string,
  code: string,
  extra: Record<string, unknown> = {},
) {
  expect(res.status, res.text).toBe(status);
  expect(res.body, res.text).toEqual({
    error,
    message: expect.any(String),
    code,
    doc_url: `http://stockless.test/docs/errors/${code}`,
    request_id: expect.any(String),
    ...extra,
  });
  const body = res.body as ErrorBody;
  expect(body.message.length).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id')).toBe(body.request_id);
}

function expectValidation(res: Sent, label: string) {
  expect(res.status, `${label}: ${res.text}`).toBe(400);
  expect(res.body, label).toEqual({
    error: 'bad_request',
    message: expect.any(String),
    code: 'VALIDATION_FAILED',
    details: expect.any(Array),
    doc_url: 'http://stockless.test/docs/errors/VALIDATION_FAILED',
    request_id: expect.any(String),
  });
  const { details = [] } = res.body as ErrorBody;
  expect(details.length, label).toBeGreaterThan(0);
  for (const d of details) {
    expect(d, label).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
}

function expectWebhook(
  w: unknown,
  fields: { id?: number; url: string; events: string[]; active?: boolean; disabled_reason?: string | null },
) {
  expect(w).toEqual({
    id: fields.id ?? expect.any(Number),
    url: fields.url,
    events: fields.events,
    active: fields.active ?? true,
    disabled_reason: fields.disabled_reason ?? null,
    failure_streak: 0,
    livemode: true,
    created_at: expect.stringMatching(ISO),
    updated_at: expect.stringMatching(ISO),
  });
}

describe('webhook subscriptions: create and read', () => {
  it('create answers 201 with the secret once; later answers never show it; only ciphertext is stored', async () => {
    const s = await app.createStore('Secret Store');
    const res = await create({ url: VALID, events: ['order.created', 'order.shipped'] }, { as: s });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      webhook: {
        id: expect.any(Number),
        url: VALID,
        events: ['order.created', 'order.shipped'],
        active: true,
        disabled_reason: null,
        failure_streak: 0,
        livemode: true,
        secret: expect.stringMatching(SECRET),
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    const { id, secret } = res.body.webhook;
    const secretBody = secret.slice('whsec_'.length);

    const got = await send<GetWebhookResponse>('GET', one(id), { as: s });
    expect(got.status).toBe(200);
    expectWebhook(got.body.webhook, { id, url: VALID, events: ['order.created', 'order.shipped'] });
    const listed = await send('GET', BASE, { as: s });
    expect(listed.status).toBe(200);
    const updated = await send('PUT', one(id), { as: s, body: { events: ['order.created'] } });
    expect(updated.status).toBe(200);
    const log = await send('GET', `${one(id)}/deliveries`, { as: s });
    expect(log.status).toBe(200);
    for (const later of [got, listed, updated, log]) {
      expect(later.text).not.toContain(secretBody);
      expect(later.text).not.toContain('secret');
    }

    const stored = await subRow(id);
    expect(stored?.secret_encrypted).toBeTruthy();
    expect(stored?.secret_encrypted).not.toContain(secretBody);
    expect(stored?.secret_encrypted).not.toContain('whsec_');
    expect(decryptSecret(secretsKey(TEST_SECRET_KEY), stored?.secret_encrypted as string)).toBe(secret);
  });

  it('list answers { webhooks, valid_events } with exactly the seventeen event names', async () => {
    const s = await app.createStore('List Store');
    const empty = await send('GET', BASE, { as: s });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ webhooks: [], valid_events: EVENTS });

    const a = await created({ as: s, events: ['*'] });
    const b = await created({ as: s, url: 'https://127.0.0.2/b', events: ['invoice.issued'] });
    await created({ as: other });
    const listed = await send<ListWebhooksResponse>('GET', BASE, { as: s, key: s.read });
    expect(listed.status).toBe(200);
    expect(listed.body.valid_events).toEqual(EVENTS);
    expect(listed.body.webhooks).toHaveLength(2);
    expectWebhook(listed.body.webhooks[0], { id: a.id, url: VALID, events: ['*'] });
    expectWebhook(listed.body.webhooks[1], {
      id: b.id,
      url: 'https://127.0.0.2/b',
      events: ['invoice.issued'],
    });
    expect(Object.keys(listed.body).sort()).toEqual(['valid_events', 'webhooks']);
  });

  it('get answers one subscription; 404 WEBHOOK_NOT_FOUND for an unknown id or another store’s; 400 for a bad id', async () => {
    const mine = await created({ events: ['product.updated'] });
    const got = await send('GET', one(mine.id));
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      webhook: {
        id: mine.id,
        url: VALID,
        events: ['product.updated'],
        active: true,
        disabled_reason: null,
        failure_streak: 0,
        livemode: true,
        created_at: mine.created_at,
        updated_at: mine.updated_at,
      },
    });

    expectError(await send('GET', one(2_000_000_000)), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    const theirs = await created({ as: other });
    expectError(await send('GET', one(theirs.id)), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    // Nor can another store change, rotate, ping, read the log of or delete it.
    expectError(
      await send('PUT', one(theirs.id), { body: { active: false } }),
      404,
      'not_found',
      'WEBHOOK_NOT_FOUND',
    );
    expectError(await send('POST', `${one(theirs.id)}/rotate-secret`), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    expectError(await send('POST', `${one(theirs.id)}/test`), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    expectError(await send('GET', `${one(theirs.id)}/deliveries`), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    expectError(await send('DELETE', one(theirs.id)), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    const untouched = await subRow(theirs.id);
    expect(untouched?.active).toBe(true);
    expect(decryptSecret(secretsKey(TEST_SECRET_KEY), untouched?.secret_encrypted as string)).toBe(
      theirs.secret,
    );

    for (const bad of ['abc', '1.5', '0', '-1', '0x10', '99999999999']) {
      expectValidation(await send('GET', one(bad)), `GET id ${bad}`);
    }
    expectValidation(await send('DELETE', one('abc')), 'DELETE id abc');
    expectValidation(await send('POST', `${one(mine.id)}/deliveries/abc/resend`), 'resend deliveryId abc');
  });
});

describe('webhook subscriptions: update, delete, rotate', () => {
  it('PUT changes url, events and active', async () => {
    const w = await created({ events: ['order.created'] });
    const url = await send<UpdateWebhookResponse>('PUT', one(w.id), {
      body: { url: 'https://127.0.0.3:8443/new?x=1' },
    });
    expect(url.status, url.text).toBe(200);
    expectWebhook(url.body.webhook, {
      id: w.id,
      url: 'https://127.0.0.3:8443/new?x=1',
      events: ['order.created'],
    });
    expect(Object.keys(url.body)).toEqual(['webhook']);

    const events = await send<UpdateWebhookResponse>('PUT', one(w.id), {
      body: { events: ['order.held', 'order.held', 'site.published'] },
    });
    expect(events.status).toBe(200);
    expectWebhook(events.body.webhook, {
      id: w.id,
      url: 'https://127.0.0.3:8443/new?x=1',
      events: ['order.held', 'site.published'],
    });

    const off = await send<UpdateWebhookResponse>('PUT', one(w.id), { body: { active: false } });
    expect(off.status).toBe(200);
    expectWebhook(off.body.webhook, {
      id: w.id,
      url: 'https://127.0.0.3:8443/new?x=1',
      events: ['order.held', 'site.published'],
      active: false,
      disabled_reason: 'manual',
    });

    const all = await send<UpdateWebhookResponse>('PUT', one(w.id), {
      body: { url: VALID, events: ['*'], active: true },
    });
    expect(all.status).toBe(200);
    expectWebhook(all.body.webhook, { id: w.id, url: VALID, events: ['*'] });
    const stored = await subRow(w.id);
    expect(stored).toMatchObject({ url: VALID, events: ['*'], active: true, disabled_reason: null });
    expect((await send<GetWebhookResponse>('GET', one(w.id))).body.webhook).toEqual(all.body.webhook);
  });

  it('active:false then active:true clears failure_streak and disabled_reason; dropping pending deliveries', async () => {
    const w = await created();
    const ping = await send<TestWebhookResponse>('POST', `${one(w.id)}/test`);
    expect(ping.status, ping.text).toBe(202);

    const off = await send<UpdateWebhookResponse>('PUT', one(w.id), { body: { active: false } });
    expect(off.status).toBe(200);
    expect(off.body.webhook).toMatchObject({ active: false, disabled_reason: 'manual', failure_streak: 0 });
    const [dropped] = await rows<{ status: string }>(
      app.em(),
      sql`SELECT status FROM webhook_deliveries WHERE id = ${ping.body.delivery.id}`,
    );
    expect(dropped?.status).toBe('discarded');

    await rows(app.em(), sql`UPDATE webhook_subscriptions SET dead_letter_streak = 7 WHERE id = ${w.id}`);
    const seen = await send<GetWebhookResponse>('GET', one(w.id));
    expect(seen.body.webhook).toMatchObject({ active: false, disabled_reason: 'manual', failure_streak: 7 });

    // Changing something else keeps it off and keeps the streak.
    const still = await send<UpdateWebhookResponse>('PUT', one(w.id), {
      body: { events: ['order.updated'] },
    });
    expect(still.body.webhook).toMatchObject({ active: false, disabled_reason: 'manual', failure_streak: 7 });

    const on = await send<UpdateWebhookResponse>('PUT', one(w.id), { body: { active: true } });
    expect(on.status).toBe(200);
    expectWebhook(on.body.webhook, { id: w.id, url: VALID, events: ['order.updated'] });
    expect(await subRow(w.id)).toMatchObject({ active: true, disabled_reason: null, dead_letter_streak: 0 });
  });

  it('PUT never reads a non-boolean `active` as true: "false" stays off, 1/"yes"/0 are 400s', async () => {
    const w = await created();
    expect((await send('PUT', one(w.id), { body: { active: false } })).status).toBe(200);
    await rows(app.em(), sql`UPDATE webhook_subscriptions SET dead_letter_streak = 7 WHERE id = ${w.id}`);
    const before = await subRow(w.id);
    // As everywhere else in the API (boolParam), the strings "true"/"false" mean what they say.
    const off = await send<UpdateWebhookResponse>('PUT', one(w.id), { body: { active: 'false' } });
    expect(off.status, off.text).toBe(200);
    expect(off.body.webhook).toMatchObject({ active: false, disabled_reason: 'manual', failure_streak: 7 });
    expect(await subRow(w.id)).toEqual(before);
    for (const active of [1, 0, 'yes', '', [], null]) {
      expectValidation(
        await send('PUT', one(w.id), { body: { active } }),
        `active ${JSON.stringify(active)}`,
      );
    }
    expect(await subRow(w.id)).toEqual(before);
  });

  it('PUT with an empty body, an unknown key or a bad field is a 400 and changes nothing', async () => {
    const w = await created({ events: ['order.created'] });
    const before = await subRow(w.id);
    expectValidation(await send('PUT', one(w.id), { body: {} }), 'empty body');
    expectValidation(
      await send('PUT', one(w.id), { body: { active: true, secret: 'whsec_x' } }),
      'unknown key',
    );
    expectValidation(await send('PUT', one(w.id), { body: { events: [] } }), 'empty events');
    expectValidation(await send('PUT', one(w.id), { body: { events: ['nope'] } }), 'unknown event');
    expectError(
      await send('PUT', one(w.id), { body: { url: 'http://127.0.0.1:9/hook' } }),
      400,
      'bad_request',
      'INVALID_WEBHOOK_URL',
      URL_DETAILS,
    );
    expect(await subRow(w.id)).toEqual(before);
    expectError(
      await send('PUT', one(2_000_000_000), { body: { active: true } }),
      404,
      'not_found',
      'WEBHOOK_NOT_FOUND',
    );
  });

  it('DELETE answers 200 { message }, then the subscription is gone (404)', async () => {
    const w = await created();
    const ping = await send('POST', `${one(w.id)}/test`);
    expect(ping.status).toBe(202);
    const res = await send<DeleteWebhookResponse>('DELETE', one(w.id));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect(res.body.message).toContain(String(w.id));
    expect(await subRow(w.id)).toBeUndefined();
    const [{ n } = { n: -1 }] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE subscription_id = ${w.id}`,
    );
    expect(n).toBe(0);
    expectError(await send('GET', one(w.id)), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
    expectError(await send('DELETE', one(w.id)), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
  });

  it('rotate-secret answers 200 { webhook, secret }: a new secret, and the stored ciphertext changes', async () => {
    const w = await created({ events: ['order.completed'] });
    const before = await subRow(w.id);
    const res = await send<RotateWebhookSecretResponse>('POST', `${one(w.id)}/rotate-secret`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      webhook: {
        id: w.id,
        url: VALID,
        events: ['order.completed'],
        active: true,
        disabled_reason: null,
        failure_streak: 0,
        livemode: true,
        created_at: w.created_at,
        updated_at: expect.stringMatching(ISO),
      },
      secret: expect.stringMatching(SECRET),
    });
    expect(res.body.secret).not.toBe(w.secret);
    const after = await subRow(w.id);
    expect(after?.secret_encrypted).not.toBe(before?.secret_encrypted);
    expect(after?.secret_encrypted).not.toContain(res.body.secret.slice(6));
    expect(decryptSecret(secretsKey(TEST_SECRET_KEY), after?.secret_encrypted as string)).toBe(
      res.body.secret,
    );
    const got = await send('GET', one(w.id));
    expect(got.text).not.toContain(res.body.secret.slice(6));
    expectError(
      await send('POST', `${one(2_000_000_000)}/rotate-secret`),
      404,
      'not_found',
      'WEBHOOK_NOT_FOUND',
    );
  });
});

describe('webhook deliveries, test and resend', () => {
  it('a fresh subscription has an empty log; resend of an unknown delivery is 404 DELIVERY_NOT_FOUND', async () => {
    const w = await created();
    const log = await send('GET', `${one(w.id)}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body).toEqual({ deliveries: [] });
    expectError(
      await send('POST', `${one(w.id)}/deliveries/2000000000/resend`),
      404,
      'not_found',
      'DELIVERY_NOT_FOUND',
    );
    expectError(await send('GET', `${one(2_000_000_000)}/deliveries`), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
  });

  it('POST /{id}/test answers 202 with a pending webhook.ping delivery, stored for this subscription alone', async () => {
    const w = await created({ events: ['order.created'] });
    const bystander = await created({ events: ['*'] });
    const res = await send<TestWebhookResponse>('POST', `${one(w.id)}/test`);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({
      delivery: {
        id: expect.any(Number),
        event: 'webhook.ping',
        event_key: expect.stringMatching(new RegExp(`^webhook\\.ping:${w.id}\\.\\d+$`)),
        status: 'pending',
        attempts: 0,
        next_attempt_at: expect.stringMatching(ISO),
        created_at: expect.stringMatching(ISO),
      },
    });
    const stored = await rows<{ id: number; subscription_id: number; event: string; status: string }>(
      app.em(),
      sql`SELECT d.id::integer, d.subscription_id, e.event, d.status FROM webhook_deliveries d
        JOIN webhook_events e ON e.id = d.event_id WHERE d.subscription_id IN (${w.id}, ${bystander.id})`,
    );
    expect(stored).toEqual([
      { id: res.body.delivery.id, subscription_id: w.id, event: 'webhook.ping', status: 'pending' },
    ]);

    // Resending a delivery still pending leaves it as it is (202, same delivery).
    const again = await send<ResendWebhookDeliveryResponse>(
      'POST',
      `${one(w.id)}/deliveries/${res.body.delivery.id}/resend`,
    );
    expect(again.status, again.text).toBe(202);
    expect(again.body.delivery).toMatchObject({
      id: res.body.delivery.id,
      event: 'webhook.ping',
      status: 'pending',
    });
    // A delivery of another subscription is not found through this one.
    expectError(
      await send('POST', `${one(bystander.id)}/deliveries/${res.body.delivery.id}/resend`),
      404,
      'not_found',
      'DELIVERY_NOT_FOUND',
    );
    expectError(await send('POST', `${one(2_000_000_000)}/test`), 404, 'not_found', 'WEBHOOK_NOT_FOUND');
  });

  it('test and resend on a disabled subscription answer 409 WEBHOOK_DISABLED', async () => {
    const w = await created();
    const ping = await send<TestWebhookResponse>('POST', `${one(w.id)}/test`);
    expect(ping.status).toBe(202);
    expect((await send('PUT', one(w.id), { body: { active: false } })).status).toBe(200);
    const count = async () =>
      (
        await rows<{ n: number }>(
          app.em(),
          sql`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE subscription_id = ${w.id}`,
        )
      )[0]?.n;
    const before = await count();
    expectError(await send('POST', `${one(w.id)}/test`), 409, 'conflict', 'WEBHOOK_DISABLED');
    expectError(
      await send('POST', `${one(w.id)}/deliveries/${ping.body.delivery.id}/resend`),
      409,
      'conflict',
      'WEBHOOK_DISABLED',
    );
    expect(await count()).toBe(before);
    const [d] = await rows<{ status: string }>(
      app.em(),
      sql`SELECT status FROM webhook_deliveries WHERE id = ${ping.body.delivery.id}`,
    );
    expect(d?.status).toBe('discarded');
  });

  it('the body-less POST actions (test, resend, rotate-secret) work without a body or content type', async () => {
    const w = await created();
    const ping = await send<TestWebhookResponse>('POST', `${one(w.id)}/test`, { bare: true });
    expect(ping.status, ping.text).toBe(202);
    expect(ping.body.delivery).toMatchObject({ event: 'webhook.ping', status: 'pending' });
    const resend = await send('POST', `${one(w.id)}/deliveries/${ping.body.delivery.id}/resend`, {
      bare: true,
    });
    expect(resend.status, resend.text).toBe(202);
    const rotated = await send<RotateWebhookSecretResponse>('POST', `${one(w.id)}/rotate-secret`, {
      bare: true,
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET);
  });

  it('resend of a finished delivery queues it again: pending, due now', async () => {
    const w = await created();
    const ping = await send<TestWebhookResponse>('POST', `${one(w.id)}/test`);
    const id = ping.body.delivery.id as number;
    await rows(
      app.em(),
      sql`UPDATE webhook_deliveries SET status = 'dead', attempts = 5, round_attempts = 5,
        next_attempt_at = now() + interval '1 day' WHERE id = ${id}`,
    );
    const res = await send<ResendWebhookDeliveryResponse>('POST', `${one(w.id)}/deliveries/${id}/resend`);
    expect(res.status, res.text).toBe(202);
    expect(res.body.delivery).toEqual({
      id,
      event: 'webhook.ping',
      event_key: ping.body.delivery.event_key,
      status: 'pending',
      attempts: 5,
      next_attempt_at: expect.stringMatching(ISO),
      created_at: ping.body.delivery.created_at,
    });
    expect(Date.parse(res.body.delivery.next_attempt_at ?? '')).toBeLessThanOrEqual(Date.now() + 5000);
    const [d] = await rows<{ status: string; round_attempts: number }>(
      app.em(),
      sql`SELECT status, round_attempts FROM webhook_deliveries WHERE id = ${id}`,
    );
    expect(d).toEqual({ status: 'pending', round_attempts: 0 });
  });
});

describe('webhook create: bad input', () => {
  it('each bad body is a 400 in the contract shape and writes no row', async () => {
    const s = await app.createStore('Bad Input Store');
    const cases: [string, unknown, string][] = [
      ['http url', { url: 'http://127.0.0.1:9/hook', events: ['order.created'] }, 'INVALID_WEBHOOK_URL'],
      [
        'credentials',
        { url: 'https://user:pw@127.0.0.1:9/hook', events: ['order.created'] },
        'INVALID_WEBHOOK_URL',
      ],
      [
        'user only',
        { url: 'https://user@127.0.0.1:9/hook', events: ['order.created'] },
        'INVALID_WEBHOOK_URL',
      ],
      ['not a URL', { url: 'not a url', events: ['order.created'] }, 'INVALID_WEBHOOK_URL'],
      ['relative', { url: '/hook', events: ['order.created'] }, 'INVALID_WEBHOOK_URL'],
      ['ftp', { url: 'ftp://127.0.0.1/hook', events: ['order.created'] }, 'INVALID_WEBHOOK_URL'],
      ['NUL', { url: 'https://127.0.0.1:9/ho\u0000ok', events: ['order.created'] }, 'VALIDATION_FAILED'],
      ['empty url', { url: '', events: ['order.created'] }, 'VALIDATION_FAILED'],
      ['unknown event', { url: VALID, events: ['order.created', 'order.exploded'] }, 'VALIDATION_FAILED'],
      ['empty events', { url: VALID, events: [] }, 'VALIDATION_FAILED'],
      ['star and more', { url: VALID, events: ['*', 'order.created'] }, 'VALIDATION_FAILED'],
      ['unknown key', { url: VALID, events: ['order.created'], active: true }, 'VALIDATION_FAILED'],
      ['secret given', { url: VALID, events: ['order.created'], secret: 'whsec_mine' }, 'VALIDATION_FAILED'],
      [
        'url too long',
        { url: `${VALID}/${'a'.repeat(2049 - VALID.length - 1)}`, events: ['*'] },
        'VALIDATION_FAILED',
      ],
      ['no events', { url: VALID }, 'VALIDATION_FAILED'],
      ['no url', { events: ['*'] }, 'VALIDATION_FAILED'],
      ['events a string', { url: VALID, events: 'order.created' }, 'VALIDATION_FAILED'],
      ['url a number', { url: 42, events: ['*'] }, 'VALIDATION_FAILED'],
    ];
    for (const [label, body, code] of cases) {
      const res = await create(body, { as: s });
      if (code === 'VALIDATION_FAILED') expectValidation(res, label);
      else {
        expect(res.status, `${label}: ${res.text}`).toBe(400);
        expect(res.body, label).toEqual({
          error: 'bad_request',
          message: expect.any(String),
          code,
          ...URL_DETAILS,
          doc_url: `http://stockless.test/docs/errors/${code}`,
          request_id: expect.any(String),
        });
      }
    }
    expect(await subCount(s.id)).toBe(0);
  });

  it('an unknown event names the valid ones in details; the URL length limit is 2048 exactly', async () => {
    const s = await app.createStore('Details Store');
    const res = await create<ErrorBody>(
      { url: VALID, events: ['order.created', 'order.exploded'] },
      { as: s },
    );
    expectValidation(res, 'unknown event');
    const detail = res.body.details?.find((d) => d.path.includes('events'));
    expect(detail?.path).toMatch(/events.*1/);
    expect(detail?.message).toContain('order.exploded');
    for (const name of EVENTS) expect(detail?.message).toContain(name);

    const exact = `${VALID}/${'a'.repeat(2048 - VALID.length - 1)}`;
    expect(exact).toHaveLength(2048);
    const ok = await create({ url: exact, events: ['*'] }, { as: s });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.webhook.url).toBe(exact);
    expect(await subCount(s.id)).toBe(1);
  });

  it('duplicate event names are de-duplicated, in first-seen order', async () => {
    const w = await created({ events: ['order.shipped', 'order.created', 'order.shipped', 'order.created'] });
    expect(w.events).toEqual(['order.shipped', 'order.created']);
    expect((await subRow(w.id))?.events).toEqual(['order.shipped', 'order.created']);
  });
});

describe('webhook URLs must be public (no exemptions)', () => {
  const NOT_PUBLIC = [
    'https://127.0.0.1/',
    'https://127.0.0.1:9/hook',
    'https://2130706433/',
    'https://0x7f.0.0.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    // IPv4-compatible IPv6 (deprecated), of a loopback and of a public IPv4 address.
    'https://[::127.0.0.1]/',
    'https://[::808:808]/',
    'https://0.0.0.0/',
    'https://[::]/',
    'https://10.0.0.1/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://100.64.0.1/',
    'https://[fc00::1]/',
    'https://[fe80::1]/',
    'https://localhost/',
    'https://224.0.0.1/',
    // The one exempt address is exact: its neighbour is refused.
    'https://192.0.2.1/',
  ];

  it('private, loopback, link-local, CGNAT, ULA, multicast and unspecified hosts: 400 WEBHOOK_URL_NOT_PUBLIC', async () => {
    const s = await strict.createStore('Strict Store');
    for (const url of NOT_PUBLIC) {
      const res = await create({ url, events: ['*'] }, { target: strict, as: s });
      expect(res.status, `${url}: ${res.text}`).toBe(400);
      expect(res.body, url).toEqual({
        error: 'bad_request',
        message: expect.any(String),
        code: 'WEBHOOK_URL_NOT_PUBLIC',
        ...URL_DETAILS,
        doc_url: 'http://stockless.test/docs/errors/WEBHOOK_URL_NOT_PUBLIC',
        request_id: expect.any(String),
      });
    }
    expect(await subCount(s.id, strict)).toBe(0);
  });

  it('an unresolvable host is 400 WEBHOOK_HOST_UNRESOLVABLE; a public literal is accepted', async () => {
    const s = await strict.createStore('Strict Store 2');
    const res = await create(
      { url: 'https://no-such-host.invalid/', events: ['*'] },
      { target: strict, as: s },
    );
    expectError(res, 400, 'bad_request', 'WEBHOOK_HOST_UNRESOLVABLE', URL_DETAILS);
    expect(await subCount(s.id, strict)).toBe(0);

    const ok = await create({ url: 'https://93.184.215.14/hook', events: ['*'] }, { target: strict, as: s });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.webhook).toMatchObject({ url: 'https://93.184.215.14/hook', events: ['*'], active: true });
    // The exempt range of this app is honoured.
    const exempt = await create({ url: 'https://192.0.2.0/hook', events: ['*'] }, { target: strict, as: s });
    expect(exempt.status, exempt.text).toBe(201);
    expect(await subCount(s.id, strict)).toBe(2);
  });

  it('the same rules apply when PUT changes the url', async () => {
    const s = await strict.createStore('Strict Store 3');
    const w = await created({ url: 'https://93.184.215.14/hook', as: s, target: strict });
    const before = await subRow(w.id, strict);
    for (const url of NOT_PUBLIC) {
      const res = await send<ErrorBody>('PUT', one(w.id), { target: strict, as: s, body: { url } });
      expect(res.status, `${url}: ${res.text}`).toBe(400);
      expect(res.body.code, url).toBe('WEBHOOK_URL_NOT_PUBLIC');
    }
    const unresolvable = await send('PUT', one(w.id), {
      target: strict,
      as: s,
      body: { url: 'https://no-such-host.invalid/' },
    });
    expectError(unresolvable, 400, 'bad_request', 'WEBHOOK_HOST_UNRESOLVABLE', URL_DETAILS);
    expect(await subRow(w.id, strict)).toEqual(before);
    const moved = await send<UpdateWebhookResponse>('PUT', one(w.id), {
      target: strict,
      as: s,
      body: { url: 'https://93.184.215.15/' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.webhook.url).toBe('https://93.184.215.15/');
  });
});

describe('webhook subscription limit', () => {
  it('an 11th subscription is 409 WEBHOOK_LIMIT_REACHED; deleting one makes room', async () => {
    const s = await app.createStore('Full Store');
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push((await created({ as: s, url: `https://127.0.0.1:9/h${i}` })).id);
    const eleventh = await create({ url: VALID, events: ['*'] }, { as: s });
    expectError(eleventh, 409, 'conflict', 'WEBHOOK_LIMIT_REACHED');
    expect(await subCount(s.id)).toBe(10);
    // Another store is not affected.
    const elsewhere = await app.createStore('Roomy Store');
    await created({ as: elsewhere });
    expect((await send('DELETE', one(ids[0] as number), { as: s })).status).toBe(200);
    const again = await create({ url: VALID, events: ['*'] }, { as: s });
    expect(again.status, again.text).toBe(201);
    expect(await subCount(s.id)).toBe(10);
  });

  it('11 concurrent creates on an empty store create exactly 10', async () => {
    const s = await app.createStore('Race Store');
    const answers = await Promise.all(
      Array.from({ length: 11 }, (_, i) =>
        create<unknown>({ url: `https://127.0.0.1:9/r${i}`, events: ['*'] }, { as: s }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), 409]);
    const refused = answers.find((a) => isStatus<ErrorBody>(a, 409));
    expect(refused?.body.code).toBe('WEBHOOK_LIMIT_REACHED');
    expect(await subCount(s.id)).toBe(10);
  });
});

describe('webhook management security', () => {
  type Op = { name: string; method: string; path: string; body?: unknown; write: boolean };
  let sec: Store;
  let hookId: number;
  let deliveryId: number;

  beforeAll(async () => {
    sec = await app.createStore('Security Store');
    const w = await created({ as: sec, events: ['order.created'] });
    hookId = w.id;
    const ping = await send<TestWebhookResponse>('POST', `${one(hookId)}/test`, { as: sec });
    deliveryId = ping.body.delivery.id;
  });

  const ops = (): Op[] => [
    { name: 'list', method: 'GET', path: BASE, write: false },
    { name: 'get', method: 'GET', path: one(hookId), write: false },
    { name: 'deliveries', method: 'GET', path: `${one(hookId)}/deliveries`, write: false },
    { name: 'create', method: 'POST', path: BASE, body: { url: VALID, events: ['*'] }, write: true },
    { name: 'update', method: 'PUT', path: one(hookId), body: { active: false }, write: true },
    { name: 'delete', method: 'DELETE', path: one(hookId), write: true },
    { name: 'rotate', method: 'POST', path: `${one(hookId)}/rotate-secret`, write: true },
    { name: 'resend', method: 'POST', path: `${one(hookId)}/deliveries/${deliveryId}/resend`, write: true },
    { name: 'test', method: 'POST', path: `${one(hookId)}/test`, write: true },
  ];

  async function state() {
    const sub = await subRow(hookId);
    const deliveries = await rows(
      app.em(),
      sql`SELECT id::integer, status, next_attempt_at::text FROM webhook_deliveries
        WHERE subscription_id = ${hookId} ORDER BY id`,
    );
    return { sub, deliveries, count: await subCount(sec.id) };
  }

  it('no credential (or a wrong one) is 401 with WWW-Authenticate on every operation', async () => {
    const before = await state();
    for (const op of ops()) {
      for (const key of [null, 'sk_test_not_a_real_key']) {
        const res = await send(op.method, op.path, { key, body: op.body });
        expect(res.status, `${op.name} ${key}: ${res.text}`).toBe(401);
        expect(res.body, op.name).toMatchObject({ error: 'unauthorized', request_id: expect.any(String) });
        expect(res.headers.get('www-authenticate'), op.name).toBe(WWW_AUTHENTICATE);
      }
    }
    expect(await state()).toEqual(before);
  });

  it('a read key is 403 INSUFFICIENT_SCOPE on every write and changes nothing', async () => {
    const before = await state();
    for (const op of ops().filter((o) => o.write)) {
      const res = await send(op.method, op.path, { key: sec.read, body: op.body });
      expectError(res, 403, 'forbidden', 'INSUFFICIENT_SCOPE', { required_scope: 'read_write' });
    }
    expect(await state()).toEqual(before);
  });

  it('a read key reads: 200 on list, get and the delivery log', async () => {
    const reads = ops().filter((o) => !o.write);
    expect(reads.map((o) => o.name)).toEqual(['list', 'get', 'deliveries']);
    for (const op of reads) {
      const withRead = await send(op.method, op.path, { key: sec.read });
      expect(withRead.status, `${op.name}: ${withRead.text}`).toBe(200);
      const withWrite = await send(op.method, op.path, { key: sec.readWrite });
      expect(withRead.body, op.name).toEqual(withWrite.body);
    }
  });

  it('an app token, even with every scope, is refused with 403 APP_TOKEN_NOT_ALLOWED on reads and writes', async () => {
    const actor = (kind: 'app' | 'api_key'): Actor => ({
      storeId: sec.id,
      kind,
      scope: 'read_write',
      appScopes: kind === 'app' ? new Set(APP_SCOPES) : new Set(),
      credentialId: 88_001,
      appId: kind === 'app' ? 9 : undefined,
      canReadCustomers: kind === 'app',
      livemode: true,
    });
    const caller = (kind: 'app' | 'api_key') =>
      createCaller(testContext(app, { actor: actor(kind), requestId: 'req_webhooks_app' })).webhooks;
    const calls: [string, (c: ReturnType<typeof caller>) => Promise<unknown>][] = [
      ['list', (c) => c.list({})],
      ['get', (c) => c.get({ id: hookId })],
      ['deliveries', (c) => c.deliveries({ id: hookId })],
      ['create', (c) => c.create({ url: VALID, events: ['*'] })],
      ['update', (c) => c.update({ id: hookId, active: false })],
      ['delete', (c) => c.delete({ id: hookId })],
      ['rotate', (c) => c.rotateSecret({ id: hookId })],
      ['resend', (c) => c.resend({ id: hookId, deliveryId })],
      ['test', (c) => c.test({ id: hookId })],
    ];
    const before = await state();
    for (const [name, call] of calls) {
      const shaped = shapeError(await failure(call(caller('app'))));
      expect(shaped.status, name).toBe(403);
      expect(shaped.body, name).toEqual({
        error: 'forbidden',
        code: 'APP_TOKEN_NOT_ALLOWED',
        message: expect.any(String),
      });
    }
    expect(await state()).toEqual(before);
    // The same in-process reads as the store's own API key succeed: the refusal is the actor's kind.
    const listed = (await caller('api_key').list({})) as { webhooks: { id: number }[] };
    expect(listed.webhooks.map((w) => w.id)).toEqual([hookId]);
    const got = (await caller('api_key').get({ id: hookId })) as { webhook: { id: number } };
    expect(got.webhook.id).toBe(hookId);
  });

  it('HEAD on the GET routes: the same status as GET, no body', async () => {
    const paths = [BASE, one(hookId), `${one(hookId)}/deliveries`, one(2_000_000_000), one('abc')];
    for (const path of paths) {
      for (const key of [sec.readWrite, sec.read, undefined]) {
        const get = await app.request(path, { key });
        await get.text();
        const head = await app.request(path, { key, method: 'HEAD' });
        expect(head.status, `HEAD ${path}`).toBe(get.status);
        expect(await head.text(), `HEAD ${path}`).toBe('');
        expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
        expect(head.headers.get('x-request-id'), path).toBeTruthy();
        if (!key) expect(head.headers.get('www-authenticate'), path).toBe(WWW_AUTHENTICATE);
      }
    }
    const statuses = await Promise.all(
      [BASE, one(hookId), `${one(hookId)}/deliveries`, one(2_000_000_000), one('abc')].map(
        async (p) => (await app.request(p, { key: sec.read, method: 'HEAD' })).status,
      ),
    );
    expect(statuses).toEqual([200, 200, 200, 404, 400]);
  });
});

describe('url-guard properties', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  /** An IPv4 address inside `base/bits`. */
  const inRange = (base: [number, number, number, number], bits: number) =>
    fc.tuple(octet, octet, octet, octet).map((rand) => {
      const b = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
      const r = ((rand[0] << 24) | (rand[1] << 16) | (rand[2] << 8) | rand[3]) >>> 0;
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      const n = ((b & mask) | (r & ~mask)) >>> 0;
      return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    });
  const privateV4 = fc.oneof(
    inRange([10, 0, 0, 0], 8),
    inRange([127, 0, 0, 0], 8),
    inRange([169, 254, 0, 0], 16),
    inRange([100, 64, 0, 0], 10),
    inRange([192, 168, 0, 0], 16),
  );
  const hexMapped = (v4: string) => {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    return `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };

  it('isAllowedAddress refuses every private IPv4 and its ::ffff: mapped forms', () => {
    fc.assert(
      fc.property(privateV4, (v4) => {
        expect(isAllowedAddress(v4, [])).toBe(false);
        expect(isAllowedAddress(`::ffff:${v4}`, [])).toBe(false);
        expect(isAllowedAddress(hexMapped(v4), [])).toBe(false);
        // An exemption for another range does not let it through.
        expect(isAllowedAddress(v4, ['192.0.2.0/32', '2001:db8::/128'])).toBe(false);
      }),
      { numRuns: 500 },
    );
    // Controls: the generator's own edges, and public addresses that pass.
    expect(isAllowedAddress('100.127.255.255', [])).toBe(false);
    expect(isAllowedAddress('100.128.0.0', [])).toBe(true);
    expect(isAllowedAddress('93.184.215.14', [])).toBe(true);
    expect(isAllowedAddress('::ffff:93.184.215.14', [])).toBe(true);
    expect(isAllowedAddress('2606:4700::1111', [])).toBe(true);
    expect(isAllowedAddress('::7f00:1', [])).toBe(false);
    expect(isAllowedAddress('4000::1', [])).toBe(false);
    expect(isAllowedAddress('127.0.0.1', ['127.0.0.0/8'])).toBe(true);
    expect(isAllowedAddress('not an ip', [])).toBe(false);
  });

  it('parseWebhookUrl never accepts a non-https URL', () => {
    const scheme = fc
      .stringMatching(/^[a-zA-Z][a-zA-Z0-9+.-]{0,9}$/)
      .filter((s) => s.toLowerCase() !== 'https');
    fc.assert(
      fc.property(scheme, fc.domain(), fc.webPath(), (s, host, path) => {
        const parsed = parseWebhookUrl(`${s}://${host}${path}`);
        expect(parsed).not.toBeInstanceOf(URL);
        expect(parsed).toMatchObject({ code: 'INVALID_WEBHOOK_URL' });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string()),
        (raw) => {
          const parsed = parseWebhookUrl(raw);
          if (parsed instanceof URL) {
            expect(parsed.protocol).toBe('https:');
            expect(parsed.username).toBe('');
            expect(parsed.password).toBe('');
          } else {
            expect(parsed.code).toBe('INVALID_WEBHOOK_URL');
          }
        },
      ),
      { numRuns: 1000 },
    );
    // Controls: https passes, in any letter case.
    expect(parseWebhookUrl('https://example.com/x')).toBeInstanceOf(URL);
    expect(parseWebhookUrl('HTTPS://example.com/x')).toBeInstanceOf(URL);
  });
});
