import { EventEmitter } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { type AppDeps, createApp } from '../server/app.ts';
import type { Config } from '../server/config.ts';
import { buildOpenApiDocument } from '../server/contract/document.ts';
import { createLogger } from '../server/logger.ts';
import { enableDbGauges } from '../server/metrics/db-gauges.ts';
import { observeRequest } from '../server/metrics/http-metrics.ts';
import { startMetricsListener } from '../server/metrics/listener.ts';
import { instrumentPool } from '../server/metrics/pool-metrics.ts';
import { type Orm, openOrm } from '../server/orm.ts';
import { describeOperation, restRoutes } from '../server/rest.ts';
import { startTracing } from '../server/tracing.ts';
import { setTracingOn } from '../src/tracing/spans.ts';
import type { RequestState } from '../src/trpc/request-state.ts';
import { printTable, SMALL } from './lib.ts';
import { drain, listen, summary, us } from './tracing.ts';

/**
 * The cost of observability per request (issue 31: metrics ≤ 0.1 ms a request), in one process on the
 * bench database: the same request mix, one request at a time, against one app per mode on the same
 * pool, in alternating rounds; then the scrape itself. Modes are a list: a "metrics + tracing" mode is
 * one more entry (its `app` builds the app with the tracer installed).
 */
export interface ObservabilityMode {
  name: string;
  app(deps: AppDeps): Server;
  /** Around each of its rounds (tracing is a process-wide switch: on only while its mode runs). */
  enter?(): void;
  leave?(): void;
}

export const MODES: ObservabilityMode[] = [
  { name: 'off', app: (deps) => createApp(deps) },
  { name: 'metrics', app: (deps) => createApp({ ...deps, metrics: true }) },
];

/**
 * The third mode: metrics, and every request traced (sampled always) to a local OTLP receiver that
 * reads and drops what it gets. Its app has a pool of its own, opened with tracing on, so its
 * statements are spans as in a traced process.
 */
async function tracedMode(config: Config, databaseUrl: string) {
  const received = { requests: 0, bytes: 0 };
  const collector = drain(received);
  const endpoint = await listen(collector);
  const traced = { ...config, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: 200 };
  const tracing = startTracing(traced, createLogger('silent'));
  const orm = await openOrm(databaseUrl, config.DB_POOL_SIZE);
  setTracingOn(false);
  const mode: ObservabilityMode = {
    name: 'metrics + tracing',
    app: (deps) => createApp({ ...deps, orm, config: traced, metrics: true }),
    enter: () => setTracingOn(true),
    leave: () => setTracingOn(false),
  };
  const close = async () => {
    await tracing?.shutdown();
    await orm.close(true);
    collector.close();
  };
  return { mode, received, close };
}

const MIX = ['/api/v1/products?limit=20', '/api/v1/vendor/me', '/api/v1/orders?limit=20', '/api/v1/nope'];
const ROUNDS = SMALL ? 6 : 10;
const PER_ROUND = SMALL ? 200 : 600;
const SCRAPES = SMALL ? 30 : 100;

async function timedGets(url: string, n: number, agent: Agent, out: number[], key?: string, mix = MIX) {
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await request(`${url}${mix[i % mix.length]}`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      dispatcher: agent,
    });
    await res.body.dump();
    out.push(performance.now() - t);
  }
}

export type ObservabilityBench = {
  requests_per_mode: number;
  /** What the metrics add to one request in this process's CPU, timed alone over many calls. */
  hook_us_per_request: number;
  modes: Record<string, ReturnType<typeof summary> & { p50_diff_ms: number; mean_diff_ms: number }>;
  scrape: { scrapes: number; bytes: number; with_db_gauges: ReturnType<typeof summary> };
};

/** Every mode's app on the one pool, alternating rounds (drift in the machine falls on all alike). */
async function perRequest(orm: Orm, config: Config, key: string, agent: Agent, modes = MODES) {
  const log = createLogger('silent');
  const apps = modes.map((m) => ({
    enter: m.enter,
    leave: m.leave,
    mode: m.name,
    server: m.app({ orm, config, log }),
    times: [] as number[],
  }));
  try {
    const urls = await Promise.all(apps.map((a) => listen(a.server)));
    const run = async (i: number, out: number[]) => {
      apps[i]?.enter?.();
      try {
        await timedGets(urls[i] as string, PER_ROUND, agent, out, key);
      } finally {
        apps[i]?.leave?.();
      }
    };
    for (const i of apps.keys()) await run(i, []);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? apps.map((_, i) => i) : apps.map((_, i) => i).reverse();
      for (const i of order) await run(i, apps[i]?.times ?? []);
    }
    return apps.map((a) => ({ mode: a.mode, ...summary(a.times), n: a.times.length }));
  } finally {
    for (const a of apps) a.server.closeAllConnections();
    await Promise.all(apps.map((a) => new Promise((resolve) => a.server.close(resolve))));
  }
}

const HOOK_CALLS = 200_000;
const HOOK_PATHS = [
  '/api/v1/products',
  '/api/v1/orders/12345',
  '/api/v1/vendor/webhooks/7/attempts',
  '/api/v1/nope',
];

/**
 * The metrics' own work for one request (in flight, the operation's label from the contract's
 * routes, the counter and the histogram), on a response object that emits as Node's does.
 */
function hookCost(publicUrl: string): number {
  const describe = describeOperation(restRoutes(buildOpenApiDocument(publicUrl)));
  const res = Object.assign(new EventEmitter(), { statusCode: 200, getHeader: () => undefined });
  const states = HOOK_PATHS.map(
    (path) => ({ target: { path, search: '' }, sentMethod: 'GET' }) as RequestState,
  );
  const once = (i: number) => {
    observeRequest(
      describe,
      res as unknown as ServerResponse,
      states[i % states.length] as RequestState,
      process.hrtime.bigint(),
    );
    res.emit('finish');
    res.emit('close');
  };
  for (let i = 0; i < 20_000; i++) once(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < HOOK_CALLS; i++) once(i);
  return Number(process.hrtime.bigint() - t) / 1000 / HOOK_CALLS;
}

/** GET /metrics over HTTP as Prometheus does, the database gauges read as a worker's scrape reads them. */
async function scrapeCost(orm: Orm, agent: Agent) {
  const log = createLogger('silent');
  await instrumentPool(orm, 'api');
  enableDbGauges(
    (await orm.driver.getConnection().getNativeClient()) as Parameters<typeof enableDbGauges>[0],
    log,
  );
  const listener = await startMetricsListener(0, '127.0.0.1', log);
  try {
    const times: number[] = [];
    // Past the gauges' shared read (250 ms), so each scrape reads the database.
    for (let i = 0; i < SCRAPES; i++) {
      await new Promise((r) => setTimeout(r, 300));
      await timedGets(listener.url, 1, agent, times, undefined, ['/metrics']);
    }
    const res = await request(`${listener.url}/metrics`, { dispatcher: agent });
    const bytes = (await res.body.text()).length;
    return { scrapes: SCRAPES, bytes, with_db_gauges: summary(times) };
  } finally {
    await listener.close();
  }
}

export async function benchObservability(
  orm: Orm,
  config: Config,
  key: string,
  databaseUrl: string,
): Promise<ObservabilityBench> {
  const agent = new Agent({ connections: 1 });
  const traced = await tracedMode(config, databaseUrl);
  try {
    const rows = await perRequest(orm, config, key, agent, [...MODES, traced.mode]);
    const off = rows.find((r) => r.mode === 'off') ?? rows[0];
    const modes: ObservabilityBench['modes'] = {};
    for (const r of rows) {
      const { mode, n: _, ...s } = r;
      modes[mode] = {
        ...s,
        p50_diff_ms: us(s.p50_ms - (off?.p50_ms ?? 0)),
        mean_diff_ms: us(s.mean_ms - (off?.mean_ms ?? 0)),
      };
    }
    const scrape = await scrapeCost(orm, agent);
    const hook = Math.round(hookCost(config.publicUrl) * 100) / 100;
    const result = { requests_per_mode: rows[0]?.n ?? 0, hook_us_per_request: hook, modes, scrape };
    report(result);
    console.log(
      `  traced mode: ${traced.received.requests} OTLP exports received, ${traced.received.bytes} bytes`,
    );
    return result;
  } finally {
    await traced.close();
    await agent.close();
  }
}

function report(r: ObservabilityBench) {
  console.log(
    `\nObservability: ${r.requests_per_mode} requests a mode, one at a time, alternating rounds (target: metrics ≤ 0.1 ms a request)`,
  );
  printTable(
    ['mode', 'p50 ms', 'p99 ms', 'mean ms', 'p50 diff', 'mean diff'],
    Object.entries(r.modes).map(([m, s]) => [
      m,
      `${s.p50_ms}`,
      `${s.p99_ms}`,
      `${s.mean_ms}`,
      `${s.p50_diff_ms}`,
      `${s.mean_diff_ms}`,
    ]),
  );
  console.log(`metrics alone (observeRequest, ${HOOK_CALLS} calls): ${r.hook_us_per_request} µs a request`);
  const s = r.scrape.with_db_gauges;
  console.log(
    `scrape (GET /metrics with the database gauges, ${r.scrape.bytes} bytes): p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms`,
  );
}
