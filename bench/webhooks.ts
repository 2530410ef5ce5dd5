import { spawn } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { domainSettingsOf, loadConfig } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import type { Orm } from '../server/orm.ts';
import { rows, sql } from '../src/db/sql.ts';
import { recordEvents } from '../src/events/outbox.ts';
import type { WebhookSettings } from '../src/settings.ts';
import { createStore } from '../src/store/create-store.ts';
import type { PartnerContext } from '../src/trpc/context.ts';
import { createWebhook } from '../src/webhooks/create-webhook.ts';
import { testHostsResolver } from '../src/webhooks/delivery/host-resolver.ts';
import { signatureHeaders } from '../src/webhooks/delivery/signature-headers.ts';
import { newSigningSecret } from '../src/webhooks/delivery/signing-secrets.ts';
import { setWebhookResolver } from '../src/webhooks/delivery/url-guard.ts';
import { round } from './lib.ts';
import { BENCH_SECRET_KEY, receiverCertificate, spawnBenchWorker, until } from './webhook-harness.ts';

const SUBSCRIPTIONS = 10;
/** Ten subscriptions at five in flight each: the engine's most; the raw loop gets the same. */
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 50);
/** 10,000 events to 10 subscriptions: 100,000 deliveries. */
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
/** Subscriptions name a host, resolved by the worker (WEBHOOK_TEST_HOSTS stands in for DNS). */
const HOST = 'hooks-bench.test';

export interface WebhookBench {
  subscriptions: number;
  concurrency: number;
  deliveries: number;
  api_per_second: number;
  raw_per_second: number;
  ratio: number;
  commit_to_receipt_ms: { p50: number; p95: number; samples: number };
}

interface Receipt {
  at: number;
  /** `data.seq` of the envelope: which committed event this is. */
  seq: number | undefined;
}

/** A local HTTPS receiver that answers 204 and notes when each event arrived. */
async function receiver() {
  const { key, cert, caFile } = await receiverCertificate([HOST]);
  const receipts: Receipt[] = [];
  const server = createServer({ key, cert, keepAliveTimeout: 10_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      let seq: number | undefined;
      try {
        seq = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.data?.seq;
      } catch {}
      receipts.push({ at, seq });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://${HOST}:${(server.address() as AddressInfo).port}`;
  return { url, caFile, receipts, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The bare undici POST loop (bench/raw-webhooks.ts) in its own process. */
/** A request like the engine's: a `site.published` envelope and the full signed header set. */
export function sampleRequest(seq = 0): { body: string; headers: Record<string, string> } {
  const createdAt = new Date().toISOString();
  const body = JSON.stringify({
    event: 'site.published',
    event_key: 'site.published:1',
    created_at: createdAt,
    data: { store_id: 1, published: true, seq },
  });
  const headers = {
    'user-agent': 'Stockless-Webhooks/1.0',
    'x-stockless-event': 'site.published',
    'x-stockless-delivery-id': '1:site.published:1:1',
    ...signatureHeaders(newSigningSecret(), body, 'msg_1'),
  };
  return { body, headers };
}

export function rawLoop(
  hooks: { url: string; caFile: string },
  total: number,
  concurrency = CONCURRENCY,
  path = '/raw',
  sample = sampleRequest(),
): Promise<{ per_second: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/raw-webhooks.ts'], {
      env: {
        ...process.env,
        TARGET_URL: `${hooks.url}${path}`,
        COUNT: String(total),
        CONCURRENCY: String(concurrency),
        CA_FILE: hooks.caFile,
        // The loop resolves nothing: the engine's answer is cached for the record's TTL anyway.
        PIN_ADDRESS: '127.0.0.1',
        BODY: sample.body,
        HEADERS: JSON.stringify(sample.headers),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`raw loop exited ${code}`)),
    );
  });
}

/**
 * Deliveries per second of the real engine (a worker process: dispatcher, fan-out to 10 subscriptions,
 * signing, pinned-address POSTs, the attempt log) against a bare undici POST loop at the same
 * concurrency to the same receiver; then commit-to-receipt latency of single events at a steady rate.
 */
export async function benchWebhooks(orm: Orm, databaseUrl: string): Promise<WebhookBench> {
  const hooks = await receiver();
  const settings: WebhookSettings = {
    allowPrivate: ['127.0.0.0/8'],
    retrySchedule: [60_000],
    coalesceWindowMs: 30_000,
    timeoutMs: 10_000,
    concurrency: CONCURRENCY,
    secretKey: BENCH_SECRET_KEY,
  };
  // This process checks the subscription URLs as the API would: the test host stands in for DNS here too.
  setWebhookResolver(testHostsResolver(new Map([[HOST, ['127.0.0.1']]])));
  // Subscriptions of earlier runs point at receivers that are gone: drop them and their deliveries.
  await rows(
    orm.em.fork(),
    sql`DELETE FROM webhook_subscriptions WHERE store_id IN (SELECT id FROM stores WHERE slug LIKE 'bench-hooks-%')`,
  );
  const store = await createStore(
    { em: orm.em.fork() },
    { name: 'Bench hooks', slug: `bench-hooks-${Date.now()}` },
  );
  // The store's owner with an API key: the subscriptions are made as the API makes them.
  const owner: PartnerContext = {
    em: orm.em,
    settings: { ...domainSettingsOf(loadConfig({ SECRET_KEY: BENCH_SECRET_KEY })), webhooks: settings },
    log: createLogger('silent'),
    actor: {
      storeId: store.id,
      kind: 'api_key',
      scope: 'read_write',
      appScopes: new Set(),
      credentialId: 0,
      canReadCustomers: true,
      livemode: true,
    },
  };
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    await createWebhook(
      { ...owner, em: orm.em.fork() },
      { url: `${hooks.url}/hook/${i}`, events: ['site.published'] },
    );
  }
  const record = (n: number, seq?: number) =>
    orm.em.fork().transactional((tx) =>
      recordEvents(
        tx,
        Array.from({ length: n }, () => ({
          storeId: store.id,
          event: 'site.published',
          entityId: store.id,
          data: { store_id: store.id, published: true, seq },
        })),
      ),
    );

  const rawBefore = await rawLoop(hooks, EVENTS * SUBSCRIPTIONS);
  hooks.receipts.length = 0;
  const total = EVENTS * SUBSCRIPTIONS;
  const worker = spawnBenchWorker(databaseUrl, hooks.caFile, {
    WEBHOOK_TEST_HOSTS: `${HOST}=127.0.0.1`,
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  });
  try {
    // The worker is up and its connections open: one event to every subscription first.
    await record(1);
    await until(() => hooks.receipts.length >= SUBSCRIPTIONS, 60_000, 'the warm-up deliveries');
    hooks.receipts.length = 0;
    // Throughput: the clock runs from the commit of the backlog's transaction to the last receipt,
    // so dispatch and fan-out to the subscriptions are inside it.
    await record(EVENTS);
    const committed = Date.now();
    await until(() => hooks.receipts.length >= total, 300_000, `${total} deliveries`);
    const last = hooks.receipts[total - 1]?.at ?? Date.now();
    const apiPerSecond = total / ((last - committed) / 1000);

    // Latency: one event at a time, 20 a second, each to 10 subscriptions.
    hooks.receipts.length = 0;
    const committedAt = new Map<number, number>();
    const samples = 100;
    for (let seq = 0; seq < samples; seq++) {
      await record(1, seq);
      committedAt.set(seq, Date.now());
      await new Promise((r) => setTimeout(r, 50));
    }
    await until(() => hooks.receipts.length >= samples * SUBSCRIPTIONS, 60_000, 'the latency deliveries');
    // From the moment the event's transaction committed to the moment the receiver had the request.
    const perDelivery = hooks.receipts
      .map((r) => r.at - (committedAt.get(r.seq ?? -1) ?? r.at))
      .sort((a, b) => a - b);
    const pct = (p: number) =>
      perDelivery[Math.min(perDelivery.length - 1, Math.floor(perDelivery.length * p))] ?? 0;

    // Baseline, same receiver, same concurrency, same number of POSTs: once before the engine ran
    // and once after, averaged, so load that comes and goes on the machine weighs on both sides.
    const raw = { per_second: (rawBefore.per_second + (await rawLoop(hooks, total)).per_second) / 2 };
    return {
      subscriptions: SUBSCRIPTIONS,
      concurrency: CONCURRENCY,
      deliveries: total,
      api_per_second: round(apiPerSecond),
      raw_per_second: round(raw.per_second),
      ratio: round(apiPerSecond / raw.per_second),
      commit_to_receipt_ms: { p50: pct(0.5), p95: pct(0.95), samples: perDelivery.length },
    };
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    await hooks.close();
  }
}
