import { readFile } from 'node:fs/promises';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, webhookResolverOf } from '../../server/config.ts';
import {
  type HostResolver,
  LOOKUP_TTL_SECONDS,
  type ResolvedAddress,
  systemResolver,
  TEST_HOSTS_TTL_SECONDS,
  testHostsResolver,
} from '../../src/webhooks/delivery/host-resolver.ts';
import { postWebhook } from '../../src/webhooks/delivery/post-webhook.ts';
import {
  type HostVerdict,
  hostCheck,
  MAX_TTL_SECONDS,
  REFUSAL_TTL_SECONDS,
  resolveTarget,
  setWebhookResolver,
  type Target,
} from '../../src/webhooks/delivery/url-guard.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type Receiver, startReceiver, startWorkerProcess, type WorkerProcess } from '../helpers/webhooks.ts';

/**
 * Webhook host resolution: answers kept for their TTL, refusals briefly, one lookup per host at a time,
 * a bounded number of hosts, and the connection pinned to the address that was checked.
 */

const PUBLIC = '93.184.215.14';
const PUBLIC_2 = '93.184.215.15';
const PRIVATE = '10.0.0.1';

function v4(address: string, ttl: number): ResolvedAddress {
  return { address, family: 4, ttl };
}

/** A resolver whose answer a test changes, counting the questions it is asked. */
function fakeDns(answer: (host: string) => ResolvedAddress[] | Promise<ResolvedAddress[]>) {
  const asked: string[] = [];
  let current = answer;
  const resolver: HostResolver = async (host) => {
    asked.push(host);
    return current(host);
  };
  return {
    resolver,
    asked,
    answer(next: typeof answer) {
      current = next;
    },
  };
}

/** A clock the test moves by hand (milliseconds). */
function manualClock() {
  let t = 1_000_000;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

function addressOf(v: HostVerdict): string | undefined {
  return 'addresses' in v ? v.addresses[0]?.address : undefined;
}

describe('kept verdicts', () => {
  it('asks once within the TTL and again once it has passed', async () => {
    const clock = manualClock();
    const dns = fakeDns(() => [v4(PUBLIC, 30)]);
    const check = hostCheck({ resolver: dns.resolver, now: clock.now });
    expect(addressOf(await check('hooks.example', [], 1000))).toBe(PUBLIC);
    clock.advance(29_999);
    expect(addressOf(await check('hooks.example', [], 1000))).toBe(PUBLIC);
    expect(dns.asked).toHaveLength(1);
    clock.advance(2);
    expect(addressOf(await check('hooks.example', [], 1000))).toBe(PUBLIC);
    expect(dns.asked).toHaveLength(2);
  });

  it('keeps an answer for its shortest TTL, at least 1 s and at most 300 s', async () => {
    /** Questions asked by a check at 0, one just before `ms`, and one just after. */
    async function asked(answer: ResolvedAddress[], ms: number) {
      const clock = manualClock();
      const dns = fakeDns(() => answer);
      const check = hostCheck({ resolver: dns.resolver, now: clock.now });
      await check('hooks.example', [], 1000);
      clock.advance(ms - 1);
      await check('hooks.example', [], 1000);
      const before = dns.asked.length;
      clock.advance(2);
      await check('hooks.example', [], 1000);
      return [before, dns.asked.length];
    }
    expect(await asked([v4(PUBLIC, 0)], 1000)).toEqual([1, 2]);
    expect(await asked([v4(PUBLIC, 86_400)], MAX_TTL_SECONDS * 1000)).toEqual([1, 2]);
    const mixed = [v4(PUBLIC, 600), { address: '2606:4700::1111', family: 6 as const, ttl: 10 }];
    expect(await asked(mixed, 10_000)).toEqual([1, 2]);
  });

  it('keeps a refusal for a few seconds only, so a fixed record is accepted soon', async () => {
    const clock = manualClock();
    const dns = fakeDns(() => [v4(PRIVATE, 3600)]);
    const check = hostCheck({ resolver: dns.resolver, now: clock.now });
    expect(await check('hooks.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
    dns.answer(() => [v4(PUBLIC, 3600)]);
    clock.advance(REFUSAL_TTL_SECONDS * 1000 - 1);
    expect(await check('hooks.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
    expect(dns.asked).toHaveLength(1);
    clock.advance(2);
    expect(addressOf(await check('hooks.example', [], 1000))).toBe(PUBLIC);

    // A host that does not resolve (no answer, or a failing resolver) is refused just as briefly.
    dns.answer(() => Promise.reject(new Error('SERVFAIL')));
    expect(await check('broken.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_HOST_UNRESOLVABLE' });
    dns.answer(() => [v4(PUBLIC, 60)]);
    expect(await check('broken.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_HOST_UNRESOLVABLE' });
    clock.advance(REFUSAL_TTL_SECONDS * 1000 + 1);
    expect(addressOf(await check('broken.example', [], 1000))).toBe(PUBLIC);
  });

  it('refuses a host that rebinds to a private address once the kept answer expires', async () => {
    const clock = manualClock();
    const dns = fakeDns(() => [v4(PUBLIC, 60)]);
    const check = hostCheck({ resolver: dns.resolver, now: clock.now });
    expect(addressOf(await check('rebind.example', [], 1000))).toBe(PUBLIC);
    dns.answer(() => [v4(PRIVATE, 0)]);
    // Within the TTL the checked public address is still the one used, never the new answer.
    clock.advance(59_000);
    expect(addressOf(await check('rebind.example', [], 1000))).toBe(PUBLIC);
    clock.advance(1001);
    expect(await check('rebind.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
    // One private address among public ones refuses the host.
    dns.answer(() => [v4(PUBLIC, 60), v4(PUBLIC_2, 60), { address: '::1', family: 6, ttl: 60 }]);
    expect(await check('partly.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
  });

  it('keeps verdicts per allow list', async () => {
    const dns = fakeDns(() => [v4(PRIVATE, 60)]);
    const check = hostCheck({ resolver: dns.resolver });
    expect(await check('lan.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
    expect(addressOf(await check('lan.example', ['10.0.0.0/8'], 1000))).toBe(PRIVATE);
    expect(await check('lan.example', [], 1000)).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
  });

  it('shares one lookup among the deliveries that ask for a host at once', async () => {
    let release: (a: ResolvedAddress[]) => void = () => {};
    const dns = fakeDns(() => new Promise((resolve) => (release = resolve)));
    const check = hostCheck({ resolver: dns.resolver });
    const all = Promise.all(Array.from({ length: 50 }, () => check('busy.example', [], 1000)));
    await Promise.resolve();
    release([v4(PUBLIC, 60)]);
    const verdicts = await all;
    expect(dns.asked).toEqual(['busy.example']);
    expect(new Set(verdicts.map(addressOf))).toEqual(new Set([PUBLIC]));
    await check('busy.example', [], 1000);
    expect(dns.asked).toHaveLength(1);
  });

  it('holds at most maxHosts verdicts, dropping the oldest', async () => {
    const dns = fakeDns(() => [v4(PUBLIC, 300)]);
    const check = hostCheck({ resolver: dns.resolver, maxHosts: 3 });
    for (const host of ['a.example', 'b.example', 'c.example', 'd.example']) await check(host, [], 1000);
    expect(dns.asked).toHaveLength(4);
    await check('d.example', [], 1000);
    await check('c.example', [], 1000);
    expect(dns.asked).toHaveLength(4);
    await check('a.example', [], 1000);
    expect(dns.asked).toHaveLength(5);
    // a.example came back in place of b.example, the oldest then.
    await check('b.example', [], 1000);
    expect(dns.asked).toHaveLength(6);
  });

  it('gives up at the deadline and tells the resolver to stop', async () => {
    let signal: AbortSignal | undefined;
    const check = hostCheck({
      resolver: (_host, s) => {
        signal = s;
        return new Promise(() => {});
      },
    });
    const started = performance.now();
    expect(await check('slow.example', [], 50)).toMatchObject({ code: 'WEBHOOK_HOST_UNRESOLVABLE' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(signal?.aborted).toBe(true);
  });
});

describe('resolveTarget', () => {
  afterEach(() => setWebhookResolver());

  it('checks IP literals itself and asks no resolver', async () => {
    const dns = fakeDns(() => [v4(PUBLIC, 60)]);
    setWebhookResolver(dns.resolver);
    expect(await resolveTarget('https://127.0.0.1/x', [])).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
    expect(await resolveTarget('https://[::1]/x', ['::1/128'])).toMatchObject({ address: '::1', family: 6 });
    expect(await resolveTarget(`https://${PUBLIC}/x`, [])).toMatchObject({ address: PUBLIC, family: 4 });
    expect(await resolveTarget('http://hooks.example/x', [])).toMatchObject({ code: 'INVALID_WEBHOOK_URL' });
    expect(dns.asked).toEqual([]);
  });

  it('targets the first checked address, from one kept answer for every URL of the host', async () => {
    const dns = fakeDns(() => [v4(PUBLIC, 60), v4(PUBLIC_2, 60)]);
    setWebhookResolver(dns.resolver);
    const first = (await resolveTarget('https://Hooks.Example/a?b=1', [], 1000)) as Target;
    expect(first).toMatchObject({ address: PUBLIC, family: 4 });
    expect(first.url.href).toBe('https://hooks.example/a?b=1');
    await resolveTarget('https://hooks.example:8443/other', [], 1000);
    expect(dns.asked).toEqual(['hooks.example']);
  });

  it('answers localhost from the system, as before, with a short fixed TTL', async () => {
    const answer = await systemResolver('localhost', new AbortController().signal);
    expect(answer.map((a) => a.address)).toContain('127.0.0.1');
    expect(answer.every((a) => a.ttl === LOOKUP_TTL_SECONDS)).toBe(true);
    expect(await resolveTarget('https://localhost/x', [])).toMatchObject({ code: 'WEBHOOK_URL_NOT_PUBLIC' });
    expect(await resolveTarget('https://localhost/x', ['127.0.0.0/8', '::1/128'])).toMatchObject({
      url: new URL('https://localhost/x'),
    });
    expect(await resolveTarget('https://nothing-here.invalid/x', [], 3000)).toMatchObject({
      code: 'WEBHOOK_HOST_UNRESOLVABLE',
    });
  });
});

describe('WEBHOOK_TEST_HOSTS', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    return '';
  };

  it('maps .test names to addresses and leaves other names to DNS', async () => {
    const cfg = loadConfig({
      WEBHOOK_TEST_HOSTS: 'hooks-1.test=127.0.0.1, Hooks-2.TEST=127.0.0.2,hooks-2.test=::1',
    });
    expect([...cfg.WEBHOOK_TEST_HOSTS]).toEqual([
      ['hooks-1.test', ['127.0.0.1']],
      ['hooks-2.test', ['127.0.0.2', '::1']],
    ]);
    const fallback = fakeDns(() => [v4(PUBLIC, 60)]);
    const resolver = testHostsResolver(cfg.WEBHOOK_TEST_HOSTS, fallback.resolver);
    const signal = new AbortController().signal;
    expect(await resolver('hooks-2.test', signal)).toEqual([
      { address: '127.0.0.2', family: 4, ttl: TEST_HOSTS_TTL_SECONDS },
      { address: '::1', family: 6, ttl: TEST_HOSTS_TTL_SECONDS },
    ]);
    expect(await resolver('partner.example', signal)).toEqual([v4(PUBLIC, 60)]);
    expect(fallback.asked).toEqual(['partner.example']);
    expect(webhookResolverOf(loadConfig({}))).toBe(systemResolver);
  });

  it('refuses names outside .test and entries that are not name=address', () => {
    expect(refusal({ WEBHOOK_TEST_HOSTS: 'partner.example=127.0.0.1' })).toContain('WEBHOOK_TEST_HOSTS');
    expect(refusal({ WEBHOOK_TEST_HOSTS: 'hooks.test=localhost' })).toContain('WEBHOOK_TEST_HOSTS');
    expect(refusal({ WEBHOOK_TEST_HOSTS: 'hooks.test' })).toContain('WEBHOOK_TEST_HOSTS');
    expect(refusal({ WEBHOOK_TEST_HOSTS: 'test=127.0.0.1' })).toContain('WEBHOOK_TEST_HOSTS');
    expect(refusal({ WEBHOOK_TEST_HOSTS: 'hooks.test=127.0.0.1=x' })).toContain('WEBHOOK_TEST_HOSTS');
  });

  it('is refused when NODE_ENV=production, so a production process can never use it', () => {
    const message = refusal({ NODE_ENV: 'production', WEBHOOK_TEST_HOSTS: 'hooks-1.test=127.0.0.1' });
    expect(message).toContain('WEBHOOK_TEST_HOSTS');
    expect(message).toContain('NODE_ENV=production');
    expect(webhookResolverOf(loadConfig({ NODE_ENV: 'production' }))).toBe(systemResolver);
  });
});

describe('pinned HTTPS to a hostname', () => {
  let receiver: Receiver;
  let port: string;
  const allow = ['127.0.0.0/8'];

  beforeAll(async () => {
    receiver = await startReceiver({ hostnames: ['hooks-1.test'] });
    port = new URL(receiver.url).port;
    // This process trusts the receiver's certificate, as NODE_EXTRA_CA_CERTS does for a worker.
    setDefaultCACertificates([...getCACertificates('default'), await readFile(receiver.caFile, 'utf8')]);
  });
  afterAll(() => receiver.close());
  afterEach(() => setWebhookResolver());

  async function post(url: string) {
    const target = await resolveTarget(url, allow, 2000);
    if (!('address' in target)) throw new Error(target.message);
    return postWebhook(target, '{}', {}, 2000);
  }

  it('verifies the certificate against the hostname while connecting to the checked address', async () => {
    const before = receiver.received.length;
    expect(await post(`https://localhost:${port}/dns`)).toMatchObject({ kind: 'response', status: 200 });
    const [got] = (await receiver.waitFor(before + 1)).slice(before);
    expect(got?.headers.host).toBe(`localhost:${port}`);
  });

  it('refuses a certificate that names the pinned address but not the hostname', async () => {
    setWebhookResolver(testHostsResolver(new Map([['other.test', ['127.0.0.1']]])));
    const r = await post(`https://other.test:${port}/dns`);
    expect(r).toMatchObject({ kind: 'error' });
    expect(r.kind === 'error' && r.error).toMatch(/ALTNAME|does not match/i);
  });

  it('connects only to the checked address, never to one the system would look up', async () => {
    // The system resolves localhost to 127.0.0.1, where the receiver listens; the checked answer
    // says 127.0.0.2, where nothing does.
    setWebhookResolver(async () => [v4('127.0.0.2', 60)]);
    const before = receiver.received.length;
    const r = await post(`https://localhost:${port}/dns`);
    expect(r).toMatchObject({ kind: 'error' });
    expect(r.kind === 'error' && r.error).toMatch(/ECONNREFUSED/);
    expect(receiver.received.length).toBe(before);
  });

  it('keeps sending to the checked address until the answer expires, then refuses a rebound host', async () => {
    const clock = manualClock();
    const dns = fakeDns(() => [v4('127.0.0.1', 30)]);
    setWebhookResolver(dns.resolver, { now: clock.now });
    const url = `https://hooks-1.test:${port}/rebind`;
    expect(await post(url)).toMatchObject({ kind: 'response', status: 200 });
    dns.answer(() => [v4('169.254.169.254', 30)]);
    clock.advance(20_000);
    expect(await post(url)).toMatchObject({ kind: 'response', status: 200 });
    clock.advance(10_001);
    await expect(post(url)).rejects.toThrow(/private or reserved/);
    expect(dns.asked).toEqual(['hooks-1.test', 'hooks-1.test']);
  });
});

describe('delivery to a hostname through WEBHOOK_TEST_HOSTS', () => {
  let app: TestApp;
  let receiver: Receiver;
  let worker: WorkerProcess | undefined;
  const TEST_HOSTS = 'hooks-1.test=127.0.0.1';

  beforeAll(async () => {
    // The API in this process checks the URL at create with the setting, as an API process would.
    app = await startTestApp({ WEBHOOK_TEST_HOSTS: TEST_HOSTS });
    receiver = await startReceiver({ hostnames: ['hooks-1.test'] });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver.close();
    await app.close();
  });

  it('signs up https://hooks-1.test:<port> and the worker process delivers to it', async () => {
    worker = await startWorkerProcess(app.databaseUrl, receiver.caFile, { WEBHOOK_TEST_HOSTS: TEST_HOSTS });
    const store = await app.createStore('Hostname hooks');
    const url = `https://hooks-1.test:${new URL(receiver.url).port}/by-name`;
    const created = await app.request('/api/v1/vendor/webhooks', {
      key: store.readWrite,
      method: 'POST',
      body: { url, events: ['order.created'] },
    });
    const body = (await created.json()) as { webhook: { id: number; url: string } };
    expect(created.status, JSON.stringify(body)).toBe(201);
    expect(body.webhook.url).toBe(`${url}`);
    const ping = await app.request(`/api/v1/vendor/webhooks/${body.webhook.id}/test`, {
      key: store.readWrite,
      method: 'POST',
    });
    expect(ping.status).toBe(202);
    const [got] = await receiver.waitFor(1);
    expect(got?.headers.host).toBe(new URL(url).host);
    expect(got?.headers['x-stockless-event']).toBe('webhook.ping');
    expect(JSON.parse(got?.body ?? '{}')).toMatchObject({ data: { webhook_id: body.webhook.id } });
  });

  it('a production worker given the setting refuses to start', async () => {
    const env = { NODE_ENV: 'production', WEBHOOK_TEST_HOSTS: TEST_HOSTS };
    await expect(startWorkerProcess(app.databaseUrl, receiver.caFile, env)).rejects.toThrow(
      /exited \(2\)[\s\S]*WEBHOOK_TEST_HOSTS[\s\S]*NODE_ENV=production/,
    );
  });

  it('is refused by the API for a .test name it was not given', async () => {
    const store = await app.createStore('Unknown test host');
    const res = await app.request('/api/v1/vendor/webhooks', {
      key: store.readWrite,
      method: 'POST',
      body: { url: `https://hooks-9.test:${new URL(receiver.url).port}/x`, events: ['order.created'] },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'WEBHOOK_HOST_UNRESOLVABLE' });
  });
});
