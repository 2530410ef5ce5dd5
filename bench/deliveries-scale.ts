import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Orm } from '../server/orm.ts';
import { rows, sql } from '../src/db/sql.ts';
import { recordEvents } from '../src/events/outbox.ts';
import { encryptSecret, newSigningSecret, secretsKey } from '../src/webhooks/delivery/signing-secrets.ts';
import { type CpuSample, cpuPer, sampleCpu } from './cpu.ts';
import { median, quantile, round } from './lib.ts';
import { BENCH_SECRET_KEY, receiverCertificate, spawnBenchWorker, until } from './webhook-harness.ts';
import { rawLoop, sampleRequest } from './webhooks.ts';

const SUBSCRIPTIONS = Number(process.env.BENCH_DELIVERY_SUBSCRIPTIONS ?? 1000);
const LATENCY_MS = 200;
/** Per worker process: 200 ms receivers and 1% of attempts held to the deadline need this many slots. */
const CONCURRENCY = Number(process.env.BENCH_DELIVERY_CONCURRENCY ?? 512);
const BACKLOG_PER_SUBSCRIPTION = Number(process.env.BENCH_DELIVERY_BACKLOG ?? 10);
/** Rounds of one worker and of two, alternating; medians. */
const ROUNDS = Number(process.env.BENCH_DELIVERY_ROUNDS ?? 3);

interface Receipt {
  at: number;
  sub: number;
  seq: number;
}

/**
 * Local HTTPS receivers behind one server: `/s/<n>` answers after LATENCY_MS, except that events
 * whose `seq` is a multiple of 97 (1%, spread over the subscriptions: each round of the backlog
 * shifts which ones) and every request to a subscription listed in `hung` never get an answer (the
 * worker's deadline ends them).
 */
const neverAnswered = (seq: number) => seq % 97 === 0;
async function receivers(hung: Set<number>) {
  const { key, cert, caFile } = await receiverCertificate();
  const receipts: Receipt[] = [];
  const state = { latencyMs: LATENCY_MS, timeouts: true };
  const open = new Set<() => void>();
  const server = createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const sub = Number(/^\/s\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
      let seq = -1;
      try {
        seq = Number(JSON.parse(Buffer.concat(chunks).toString('utf8'))?.data?.seq ?? -1);
      } catch {}
      receipts.push({ at, sub, seq });
      if (hung.has(sub) || (state.timeouts && neverAnswered(seq))) {
        open.add(() => res.destroy());
        return;
      }
      const timer = setTimeout(() => res.writeHead(204).end(), state.latencyMs);
      open.add(() => clearTimeout(timer));
    });
  });
  server.maxConnections = 20_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 4096, r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caFile,
    receipts,
    state,
    close: async () => {
      for (const end of open) end();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function startWorkers(n: number, databaseUrl: string, caFile: string): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawnBenchWorker(databaseUrl, caFile, { WEBHOOK_CONCURRENCY: String(CONCURRENCY), DB_POOL_SIZE: '10' }),
  );
}

async function stopWorkers(workers: ChildProcess[]) {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(
    workers.map((w) => new Promise((r) => (w.exitCode === null ? w.once('exit', r) : r(null)))),
  );
}

export interface DeliveryScale {
  subscriptions: number;
  concurrency_per_worker: number;
  backlog: number;
  one_worker_per_second: number;
  /** The bare undici loop at one worker's slots to the same receivers (never-answering 1% left out). */
  raw_per_second: number;
  /** CPU ms per delivery in the one-worker drains: PostgreSQL, the worker, the bench (receivers, TLS). */
  cpu_ms_per_delivery: CpuSample;
  two_workers_per_second: number;
  scale_up: number;
  hung: { subscriptions: number; others_p50_ms: number; others_p95_ms: number; samples: number };
  steady: { events_per_second: number; p50_ms: number; p99_ms: number; samples: number };
}

/**
 * Issue 16's delivery scenarios against worker processes on the bench database: a backlog to 1,000
 * subscriptions whose receivers answer in 200 ms (1% never answer) drained by one worker and by two;
 * commit → receipt for the others while 10 subscriptions hang; commit → receipt at a steady 1,000
 * events a second to fast receivers. The events take the real path: the outbox, the dispatcher, the
 * fan-out to deliveries, the claims.
 */
export async function benchDeliveryScale(orm: Orm, databaseUrl: string): Promise<DeliveryScale> {
  const em = () => orm.em.fork();
  const hung = new Set<number>();
  const hooks = await receivers(hung);
  // A store per subscription, so each event goes to exactly one receiver.
  await rows(
    em(),
    sql`DELETE FROM webhook_subscriptions WHERE store_id IN (SELECT id FROM stores WHERE slug LIKE 'bench-scale-%')`,
  );
  await rows(
    em(),
    sql`INSERT INTO stores (name, slug) SELECT 'Scale ' || g, 'bench-scale-' || g
      FROM generate_series(1, ${SUBSCRIPTIONS}) g ON CONFLICT (slug) DO NOTHING`,
  );
  const stores = (
    await rows<{ id: number }>(
      em(),
      sql`SELECT id FROM stores WHERE slug LIKE 'bench-scale-%' ORDER BY id LIMIT ${SUBSCRIPTIONS}`,
    )
  ).map((s) => s.id);
  const encrypted = encryptSecret(secretsKey(BENCH_SECRET_KEY), newSigningSecret());
  await rows(
    em(),
    sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
      SELECT s.id, ${hooks.url} || '/s/' || s.n, ARRAY['site.published'], ${encrypted}
      FROM unnest(${stores}::integer[]) WITH ORDINALITY AS s(id, n)`,
  );
  let seq = 1;
  const committedAt = new Map<number, number>();
  /** One `site.published` event per listed store, committed together; returns their seq numbers. */
  const publish = async (storeIds: number[]) => {
    const first = seq;
    seq += storeIds.length;
    await em().transactional((tx) =>
      recordEvents(
        tx,
        storeIds.map((storeId, i) => ({
          storeId,
          event: 'site.published',
          entityId: storeId,
          data: { store_id: storeId, published: true, seq: first + i },
        })),
      ),
    );
    const at = Date.now();
    for (let i = 0; i < storeIds.length; i++) committedAt.set(first + i, at);
  };
  // Keep the never-answered seqs out of the latency samples.
  const nextSeqNotTimedOut = () => {
    if (neverAnswered(seq)) seq++;
  };

  let cpu: CpuSample[] = [];
  const drain = async (workers: number) => {
    const before = hooks.receipts.length;
    const total = SUBSCRIPTIONS * BACKLOG_PER_SUBSCRIPTION;
    for (let round = 0; round < BACKLOG_PER_SUBSCRIPTION; round++) await publish(stores);
    const procs = startWorkers(workers, databaseUrl, hooks.caFile);
    const pids = procs.map((p) => p.pid ?? 0);
    try {
      await until(() => hooks.receipts.length > before, 60_000, 'the first delivery');
      const cpuStart = sampleCpu(pids);
      const counted = hooks.receipts.length;
      await until(() => hooks.receipts.length - before >= total, 600_000, `${total} deliveries`);
      cpu.push(cpuPer(cpuStart, sampleCpu(pids), hooks.receipts.length - counted));
      const got = hooks.receipts.slice(before, before + total).map((r) => r.at);
      // The middle 90% of arrivals: the first connections' handshakes and the last stragglers are the
      // edges of a drain, not its rate.
      const t5 = quantile(got, 0.05);
      const t95 = quantile(got, 0.95);
      const rate = (0.9 * total) / Math.max(0.001, (t95 - t5) / 1000);
      const wall = (total - 1) / Math.max(0.001, ((got.at(-1) ?? 0) - (got[0] ?? 0)) / 1000);
      console.log(
        `  ${workers} worker(s): ${round(rate)} deliveries/s in the middle 90%, ${round(wall)} first to last`,
      );
      return rate;
    } finally {
      await stopWorkers(procs);
    }
  };
  const result: Partial<DeliveryScale> = {
    subscriptions: SUBSCRIPTIONS,
    concurrency_per_worker: CONCURRENCY,
    backlog: SUBSCRIPTIONS * BACKLOG_PER_SUBSCRIPTION,
  };
  try {
    // Alternating one and two workers, ROUNDS each; medians.
    const one: number[] = [];
    const two: number[] = [];
    const oneCpu: CpuSample[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const drainOne = async () => {
        cpu = oneCpu;
        one.push(await drain(1));
        cpu = [];
      };
      if (i % 2 === 0) {
        await drainOne();
        two.push(await drain(2));
      } else {
        two.push(await drain(2));
        await drainOne();
      }
      console.log(`  deliveries/s, 1 worker ${round(one.at(-1) ?? 0)}, 2 workers ${round(two.at(-1) ?? 0)}`);
    }
    result.one_worker_per_second = round(median(one));
    // Each request answers after 200 ms like the engine's; a seq that is no multiple of 100 never hangs.
    const raw: number[] = [];
    for (let i = 0; i < ROUNDS; i++)
      raw.push(
        (
          await rawLoop(
            hooks,
            SUBSCRIPTIONS * BACKLOG_PER_SUBSCRIPTION,
            CONCURRENCY,
            '/s/0',
            sampleRequest(1),
          )
        ).per_second,
      );
    result.raw_per_second = round(median(raw));
    result.cpu_ms_per_delivery = {
      postgres: median(oneCpu.map((c) => c.postgres)),
      workers: median(oneCpu.map((c) => c.workers)),
      bench: median(oneCpu.map((c) => c.bench)),
    };
    result.two_workers_per_second = round(median(two));
    result.scale_up = round(median(two) / median(one));

    // Ten hung subscriptions among the rest; the rest get 100 events a second for 10 s.
    hooks.state.timeouts = false;
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) hung.add(n);
    const procs = startWorkers(1, databaseUrl, hooks.caFile);
    try {
      const latencies = async (perSecond: number, seconds: number, pick: (i: number) => number[]) => {
        const before = hooks.receipts.length;
        const seqs: number[] = [];
        const started = Date.now();
        for (let tick = 0; tick < perSecond * seconds; ) {
          const batch = pick(tick);
          nextSeqNotTimedOut();
          const first = seq;
          await publish(batch);
          for (let i = 0; i < batch.length; i++) seqs.push(first + i);
          tick += batch.length;
          const due = started + (tick / perSecond) * 1000;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
        const wanted = new Set(seqs);
        await until(
          () => hooks.receipts.slice(before).filter((r) => wanted.has(r.seq)).length >= seqs.length,
          60_000,
          'the latency deliveries',
        );
        return hooks.receipts
          .slice(before)
          .filter((r) => wanted.has(r.seq))
          .map((r) => r.at - (committedAt.get(r.seq) ?? r.at));
      };
      // Warm the worker's connections first.
      await latencies(100, 2, (i) => [stores[10 + (i % (SUBSCRIPTIONS - 10))] as number]);
      // Hung subscriptions get events too (their slots stay taken); the others are measured.
      for (const n of hung) await publish([stores[n - 1] as number, stores[n - 1] as number]);
      const others = await latencies(100, 10, (i) => [stores[10 + (i % (SUBSCRIPTIONS - 10))] as number]);
      result.hung = {
        subscriptions: hung.size,
        others_p50_ms: quantile(others, 0.5),
        others_p95_ms: quantile(others, 0.95),
        samples: others.length,
      };
      // Steady rate to fast receivers: 1,000 events a second (10 per commit, 100 commits a second).
      hung.clear();
      hooks.state.latencyMs = 0;
      const steady = await latencies(1000, 10, (i) =>
        Array.from({ length: 10 }, (_, k) => stores[10 + ((i + k) % (SUBSCRIPTIONS - 10))] as number),
      );
      result.steady = {
        events_per_second: 1000,
        p50_ms: quantile(steady, 0.5),
        p99_ms: quantile(steady, 0.99),
        samples: steady.length,
      };
    } finally {
      await stopWorkers(procs);
    }
    return result as DeliveryScale;
  } finally {
    await hooks.close();
  }
}
