import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import { createApp } from '../server/app.ts';
import type { Config } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import { openOrm } from '../server/orm.ts';
import { startTracing } from '../server/tracing.ts';
import { setTracingOn } from '../src/tracing/spans.ts';
import { SMALL } from './lib.ts';

/**
 * The cost of tracing per request (issue 31): the same request mix, one request at a time, against two
 * apps in this process on their own pools, one untraced (as a process without OTEL_EXPORTER_OTLP_ENDPOINT
 * runs: plain pg client, no span) and one traced, its spans batched and POSTed over OTLP/HTTP to a
 * receiver in this process that drains them without parsing. Alternating rounds; the switch between
 * sides is the flag a traced process holds, so the untraced side runs exactly the code of an untraced
 * process. Every span of the traced side is exported (AlwaysOn sampling).
 */

const MIX = [
  '/api/v1/products?limit=20',
  '/api/v1/vendor/me',
  '/api/v1/orders?limit=20',
  '/api/v1/orders/2000000000',
];
const ROUNDS = SMALL ? 6 : 10;
const PER_ROUND = SMALL ? 200 : 600;

export interface TracingBench {
  requests_per_side: number;
  off: { p50_ms: number; p99_ms: number; mean_ms: number };
  on: { p50_ms: number; p99_ms: number; mean_ms: number };
  p50_diff_ms: number;
  p99_diff_ms: number;
  mean_diff_ms: number;
  /** This process's CPU (server, client and exporter) per request, each side; the traced side's exports included. */
  cpu_us_per_request: { off: number; on: number; diff: number };
  exported: { requests: number; bytes: number; bytes_per_request: number };
}

export const us = (ms: number) => Math.round(ms * 1000) / 1000;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

export function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((s, t) => s + t, 0) / Math.max(1, times.length);
  return { p50_ms: us(quantile(sorted, 0.5)), p99_ms: us(quantile(sorted, 0.99)), mean_ms: us(mean) };
}

export function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }),
  );
}

/** An OTLP/HTTP endpoint that counts what it is sent and answers 200. */
export function drain(received: { requests: number; bytes: number }): Server {
  return createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      received.bytes += c.length;
    });
    req.on('end', () => {
      received.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
}

async function round(base: string, key: string, agent: Agent, out: number[]) {
  for (let i = 0; i < PER_ROUND; i++) {
    const t = performance.now();
    const res = await request(`${base}${MIX[i % MIX.length]}`, {
      headers: { authorization: `Bearer ${key}` },
      dispatcher: agent,
    });
    await res.body.dump();
    out.push(performance.now() - t);
  }
}

export async function benchTracing(databaseUrl: string, config: Config, key: string): Promise<TracingBench> {
  const log = createLogger('silent');
  const received = { requests: 0, bytes: 0 };
  const collector = drain(received);
  const endpoint = await listen(collector);
  // Opened before tracing starts: the untraced side's pool has pg's own client, as an untraced process.
  const offOrm = await openOrm(databaseUrl, config.DB_POOL_SIZE);
  const traced = { ...config, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: 200 };
  const tracing = startTracing(traced, log);
  const onOrm = await openOrm(databaseUrl, config.DB_POOL_SIZE);
  const sides = {
    off: createApp({ orm: offOrm, config, log }),
    on: createApp({ orm: onOrm, config: traced, log }),
  };
  const urls = { off: await listen(sides.off), on: await listen(sides.on) };
  const agent = new Agent({ connections: 1 });
  const times = { on: [] as number[], off: [] as number[] };
  const cpu = { on: 0, off: 0 };
  try {
    for (let r = -1; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const side of order) {
        setTracingOn(side === 'on');
        const used = process.cpuUsage();
        // Round -1 warms both sides up and is not counted.
        await round(urls[side], key, agent, r < 0 ? [] : times[side]);
        if (side === 'on') await tracing?.flush();
        const spent = process.cpuUsage(used);
        if (r >= 0) cpu[side] += spent.user + spent.system;
      }
    }
    setTracingOn(true);
    await tracing?.shutdown();
    const [off, on] = [summary(times.off), summary(times.on)];
    const traced_requests = (ROUNDS + 1) * PER_ROUND;
    const perRequest = (side: 'on' | 'off') => Math.round(cpu[side] / times[side].length);
    const result: TracingBench = {
      requests_per_side: times.on.length,
      off,
      on,
      p50_diff_ms: us(on.p50_ms - off.p50_ms),
      p99_diff_ms: us(on.p99_ms - off.p99_ms),
      mean_diff_ms: us(on.mean_ms - off.mean_ms),
      cpu_us_per_request: {
        off: perRequest('off'),
        on: perRequest('on'),
        diff: perRequest('on') - perRequest('off'),
      },
      exported: {
        requests: received.requests,
        bytes: received.bytes,
        bytes_per_request: Math.round(received.bytes / traced_requests),
      },
    };
    printTracing(result);
    return result;
  } finally {
    await tracing?.shutdown();
    await agent.close();
    for (const s of Object.values(sides)) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
    collector.closeAllConnections();
    await new Promise((resolve) => collector.close(resolve));
    await offOrm.close(true);
    await onOrm.close(true);
  }
}

/** The part's lines in `npm run bench`'s output. */
function printTracing(r: TracingBench): void {
  console.log(`\nTracing: ${r.requests_per_side} requests a side, one at a time, alternating rounds`);
  console.log(`  off: p50 ${r.off.p50_ms} ms, p99 ${r.off.p99_ms} ms, mean ${r.off.mean_ms} ms`);
  console.log(`  on:  p50 ${r.on.p50_ms} ms, p99 ${r.on.p99_ms} ms, mean ${r.on.mean_ms} ms`);
  console.log(
    `  difference: p50 ${r.p50_diff_ms} ms, p99 ${r.p99_diff_ms} ms, mean ${r.mean_diff_ms} ms a request`,
  );
  const c = r.cpu_us_per_request;
  console.log(`  CPU of this process a request: off ${c.off} µs, on ${c.on} µs, difference ${c.diff} µs`);
  console.log(
    `  exported: ${r.exported.requests} OTLP requests, ${r.exported.bytes} bytes (${r.exported.bytes_per_request} B a traced request)`,
  );
}
