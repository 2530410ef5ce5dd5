import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { createApp } from '../server/app.ts';
import type { Config } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import type { Orm } from '../server/orm.ts';
import { recordRequest } from '../server/request-log-hook.ts';
import { stateOf } from '../server/request-state.ts';
import { rows, sql } from '../src/db/sql.ts';
import { RequestRecorder } from '../src/request-log/recorder.ts';
import { round, SMALL } from './lib.ts';

/** Milliseconds to the microsecond. */
const us = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * The request log's cost (issue 30: a request pays at most 0.2 ms). Three measures, in one process on
 * the bench database:
 * - end to end: the same request mix, one request at a time, against two apps on the same pool, one
 *   recording the log and one not, in alternating rounds: p50 and p99 of each and their difference;
 * - the hook alone: what a request runs for the log (`recordRequest`: copy the fields, push to the
 *   buffer), timed over many calls on real finished requests;
 * - a flush: the multi-row INSERTs of 20,000 rows in batches of 500, wall time and this process's CPU.
 */

/** Reads, a refusal and the log itself: what a partner integration sends. */
const MIX = [
  '/api/v1/products?limit=20',
  '/api/v1/vendor/me',
  '/api/v1/orders?limit=20',
  '/api/v1/orders/2000000000',
  '/api/v1/requests?limit=20',
];
const ROUNDS = SMALL ? 6 : 10;
const PER_ROUND = SMALL ? 150 : 600;
const HOOK_CALLS = 200_000;
const FLUSH_ROWS = 20_000;

export interface RequestLogBench {
  end_to_end: {
    requests_per_side: number;
    off: { p50_ms: number; p99_ms: number; mean_ms: number };
    on: { p50_ms: number; p99_ms: number; mean_ms: number };
    p50_diff_ms: number;
    mean_diff_ms: number;
  };
  hook_us_per_request: number;
  flush: {
    rows: number;
    batch_rows: number;
    wall_ms: number;
    cpu_ms: number;
    us_per_row: number;
    ms_per_batch: number;
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }),
  );
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((s, t) => s + t, 0) / Math.max(1, times.length);
  return {
    p50_ms: us(quantile(sorted, 0.5)),
    p99_ms: us(quantile(sorted, 0.99)),
    mean_ms: us(mean),
  };
}

/** One round of the mix, one request at a time; each request's time in ms. */
async function round_(base: string, key: string, agent: Agent, out: number[]) {
  for (let i = 0; i < PER_ROUND; i++) {
    const path = MIX[i % MIX.length] as string;
    const t = performance.now();
    const res = await request(`${base}${path}`, {
      headers: { authorization: `Bearer ${key}` },
      dispatcher: agent,
    });
    await res.body.dump();
    out.push(performance.now() - t);
  }
}

type Finished = [IncomingMessage, ServerResponse];

/** The hook's cost per request, on real finished requests of the recording app. */
function hookCost(finished: Finished[], recorder: RequestRecorder): number {
  const timing = { arrived: Date.now(), ms: 1.5 };
  for (let i = 0; i < 10_000; i++) {
    const [req, res] = finished[i % finished.length] as Finished;
    recordRequest(recorder, req, res, stateOf(req), timing);
  }
  const t = process.hrtime.bigint();
  for (let i = 0; i < HOOK_CALLS; i++) {
    const [req, res] = finished[i % finished.length] as Finished;
    recordRequest(recorder, req, res, stateOf(req), timing);
  }
  return Number(process.hrtime.bigint() - t) / 1000 / HOOK_CALLS;
}

async function flushCost(orm: Orm, finished: Finished[]): Promise<RequestLogBench['flush']> {
  const log = createLogger('silent');
  const batchRows = 500;
  const timing = { arrived: Date.now(), ms: 1.5 };
  // The batch size production writes with, the whole buffer at once.
  const writer = new RequestRecorder({
    em: () => orm.em.fork(),
    log,
    flushMs: 3_600_000,
    batchRows,
    capacity: 1e9,
  });
  for (let i = 0; i < FLUSH_ROWS; i++) {
    const [req, res] = finished[i % finished.length] as Finished;
    recordRequest(writer, req, res, stateOf(req), timing);
  }
  const cpu = process.cpuUsage();
  const t = performance.now();
  await writer.flush();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return {
    rows: FLUSH_ROWS,
    batch_rows: batchRows,
    wall_ms: round(wall),
    cpu_ms: round(cpuMs),
    us_per_row: round((wall * 1000) / FLUSH_ROWS),
    ms_per_batch: round(wall / (FLUSH_ROWS / batchRows)),
  };
}

export async function benchRequestLog(orm: Orm, config: Config, key: string): Promise<RequestLogBench> {
  const log = createLogger('silent');
  const recorder = new RequestRecorder({ em: () => orm.em.fork(), log });
  const on = createApp({ orm, config, log, requestLog: recorder });
  const off = createApp({ orm, config, log });
  const finished: Finished[] = [];
  on.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (finished.length < MIX.length * 4) res.once('finish', () => finished.push([req, res]));
  });
  const [onUrl, offUrl] = [await listen(on), await listen(off)];
  const agent = new Agent({ connections: 1 });
  const times = { on: [] as number[], off: [] as number[] };
  try {
    await round_(onUrl, key, agent, []);
    await round_(offUrl, key, agent, []);
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which goes first, so drift in the machine falls on both sides alike.
      const sides = r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const side of sides) await round_(side === 'on' ? onUrl : offUrl, key, agent, times[side]);
    }
    await recorder.flush();
    const hook = hookCost(
      finished,
      new RequestRecorder({
        em: () => orm.em.fork(),
        log,
        flushMs: 3_600_000,
        batchRows: 1e9,
        capacity: 1e9,
      }),
    );
    const flush = await flushCost(orm, finished);
    const [a, b] = [summary(times.off), summary(times.on)];
    return {
      end_to_end: {
        requests_per_side: times.on.length,
        off: a,
        on: b,
        p50_diff_ms: us(b.p50_ms - a.p50_ms),
        mean_diff_ms: us(b.mean_ms - a.mean_ms),
      },
      hook_us_per_request: round(hook),
      flush,
    };
  } finally {
    await recorder.close();
    await agent.close();
    on.closeAllConnections();
    off.closeAllConnections();
    await Promise.all([on, off].map((s) => new Promise((resolve) => s.close(resolve))));
    // The bench database is kept between runs: the rows this part wrote go.
    await rows(orm.em.fork(), sql`DELETE FROM request_log`);
  }
}
