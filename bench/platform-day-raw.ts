import { once } from 'node:events';
import { Agent, request } from 'undici';
import type { Config } from '../server/config.ts';
import type { Orm } from '../server/orm.ts';
import { captureStatements, startReplay } from './capture.ts';
import { machineBusyMs, quantile, round, seeded } from './lib.ts';
import type { ClassName } from './platform-day-calls.ts';

/** How one side answered a class's sampled paths at the day's connections. */
export interface SideFigures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** A few distinct error answers, cut short. */
  error_samples: string[];
  /** Machine CPU (both servers, PostgreSQL, the idle worker, this client) per answer, ms. */
  cpu_ms?: number;
}
export interface RawPricing {
  paths: number;
  api: SideFigures;
  raw: SideFigures;
  /** API CPU per request over the raw replay's: what our own layers add to the SQL. */
  cpu_ratio?: number;
}

/**
 * The day's read classes against the raw replay (bench/raw-server.ts) on the very same paths: each
 * class's sampled paths are run once through the app to record their statements, then looped at
 * `connections` for `seconds` against the API and against the replay in turn, each priced in machine
 * CPU. A class whose raw side is as costly as its API side is slow in its SQL, not in our layers.
 */
export async function priceAgainstRaw(opts: {
  orm: Orm;
  config: Config;
  key: string;
  apiUrl: string;
  rawPort: number;
  node: string;
  databaseUrl: string;
  connections: number;
  seconds: number;
  /** Each class's sampled paths under /api/v1. */
  sampled: Partial<Record<ClassName, string[]>>;
}): Promise<Partial<Record<ClassName, RawPricing>>> {
  const urls = Object.values(opts.sampled).flatMap((paths) => (paths ?? []).map((p) => `/api/v1${p}`));
  // A path the API refuses (a 503 at the budget) has no statements to replay: left out of both sides.
  const plan = await captureStatements(opts.orm, opts.config, opts.key, urls, { skipFailed: true });
  const { url: rawUrl, child: raw } = await startReplay(plan, {
    node: opts.node,
    databaseUrl: opts.databaseUrl,
    port: opts.rawPort,
  });
  const agent = new Agent({ connections: opts.connections, keepAliveTimeout: 30_000 });
  try {
    // Each side serves twice as many requests as there are paths, drawn at random, before any is
    // timed: the replay's connections are new backends, which fault in each shared buffer page they
    // first touch, where the API's have served the day.
    const warm = urls.filter((u) => plan[u]);
    for (const base of [opts.apiUrl, rawUrl])
      await loop(agent, base, warm, opts.key, opts.connections, 0, 2 * warm.length);
    const priced: Partial<Record<ClassName, RawPricing>> = {};
    for (const [c, paths] of Object.entries(opts.sampled) as [ClassName, string[]][]) {
      const kept = paths.map((p) => `/api/v1${p}`).filter((u) => plan[u]);
      if (kept.length === 0) continue;
      const side = (base: string) => loop(agent, base, kept, opts.key, opts.connections, opts.seconds);
      const api = await side(opts.apiUrl);
      const rawSide = await side(rawUrl);
      const cpu_ratio = api.cpu_ms && rawSide.cpu_ms ? round(api.cpu_ms / rawSide.cpu_ms) : undefined;
      priced[c] = { paths: kept.length, api, raw: rawSide, cpu_ratio };
    }
    return priced;
  } finally {
    await agent.close();
    raw.kill('SIGTERM');
    if (raw.exitCode === null) await once(raw, 'exit');
  }
}

/** `connections` loops over `urls` (each its own seeded order) for `seconds`, priced in machine CPU. */
async function loop(
  agent: Agent,
  base: string,
  urls: string[],
  key: string,
  connections: number,
  seconds: number,
  /** Instead of a time, this many requests in all. */
  count?: number,
): Promise<SideFigures> {
  const ms: number[] = [];
  let [errors, issued] = [0, 0];
  const samples = new Set<string>();
  const busyBefore = await machineBusyMs();
  const started = performance.now();
  const end = started + seconds * 1000;
  const headers = { authorization: `Bearer ${key}` };
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const rnd = seeded(91_000 + i);
      while (count === undefined ? performance.now() < end : issued++ < count) {
        const at = performance.now();
        const url = urls[Math.floor(rnd() * urls.length)] as string;
        try {
          const res = await request(base + url, { headers, dispatcher: agent });
          const text = await res.body.text();
          if (res.statusCode === 200) ms.push(performance.now() - at);
          else {
            errors++;
            if (samples.size < 3) samples.add(`${res.statusCode} ${url} ${text.slice(0, 200)}`);
          }
        } catch (err) {
          errors++;
          if (samples.size < 3) samples.add(`${url}: ${(err as Error).message}`);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const busy = busyBefore === undefined ? undefined : ((await machineBusyMs()) ?? 0) - busyBefore;
  return {
    requests: ms.length,
    rps: round(ms.length / elapsed),
    p50: round(quantile(ms, 0.5)),
    p99: round(quantile(ms, 0.99)),
    errors,
    error_samples: [...samples],
    cpu_ms: busy === undefined || ms.length === 0 ? undefined : round(busy / ms.length),
  };
}
