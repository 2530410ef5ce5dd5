import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { request } from 'undici';

/** `BENCH_SCALE=small`: a quick check (a 20,000-product database of its own, short rounds), not figures to publish. */
export const SMALL = process.env.BENCH_SCALE === 'small';
if (![undefined, 'small', 'full'].includes(process.env.BENCH_SCALE))
  throw new Error('BENCH_SCALE must be small or full');
export const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMALL ? 2 : 8));

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function load(url: string, headers: Record<string, string>, connections: number): Promise<Load> {
  const r = await autocannon({ url, headers, connections, duration: SECONDS });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
  };
}

export async function p50Of(fn: () => Promise<unknown>, runs = 60): Promise<number> {
  for (let i = 0; i < 5; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return round(times[Math.floor(times.length / 2)] ?? 0);
}

export async function waitFor(url: string, okStatus = 200) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).status === okStatus) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server at ${url} did not come up`);
}

export const round = (x: number) => Math.round(x * 100) / 100;
export const fmt = (x: number) => x.toFixed(0);

export function printTable(head: string[], body: string[][]) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of body) console.log(line(r));
}

/** One GET, read to its end; its time in ms. Anything but 200 fails the bench. */
export async function timedGet(url: string, headers: Record<string, string>): Promise<number> {
  const t = performance.now();
  const res = await request(url, { headers });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  return performance.now() - t;
}

export const median = (xs: number[]) => quantile(xs, 0.5);

/** The sample at quantile `q` (nearest rank, no interpolation). */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? 0;
}

export interface Rounds {
  /** Median of the rounds' requests per second, with the slowest and fastest round. */
  rps: number;
  rps_min: number;
  rps_max: number;
  /** Medians of the rounds' p50 and p99 latency. */
  p50: number;
  p99: number;
  errors: number;
}

/**
 * A throughput scenario as the issue asks it to be measured: one untimed warm-up round each, then
 * `rounds` rounds alternating between the two sides (API first in even rounds, raw first in odd),
 * so load from elsewhere on the machine falls on both alike. Each side's figures are the medians of
 * its rounds, with the range of requests per second beside them.
 */
export async function alternatingRounds(
  api: () => Promise<Load>,
  raw: () => Promise<Load>,
  rounds = 5,
): Promise<{ api: Rounds; raw: Rounds; throughput_ratio: number }> {
  await api();
  await raw();
  const got = { api: [] as Load[], raw: [] as Load[] };
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['api', 'raw'] as const) : (['raw', 'api'] as const);
    for (const side of order) got[side].push(await (side === 'api' ? api : raw)());
  }
  const summary = (xs: Load[]): Rounds => ({
    rps: round(median(xs.map((x) => x.rps))),
    rps_min: round(Math.min(...xs.map((x) => x.rps))),
    rps_max: round(Math.max(...xs.map((x) => x.rps))),
    p50: round(median(xs.map((x) => x.p50))),
    p99: round(median(xs.map((x) => x.p99))),
    errors: xs.reduce((n, x) => n + x.errors, 0),
  });
  const a = summary(got.api);
  const r = summary(got.raw);
  return { api: a, raw: r, throughput_ratio: round(a.rps / r.rps) };
}

export type Statistics = 'fresh' | 'analysed';
/** The tables a catalogue request reads whose statistics a bulk load leaves empty or stale. */
export const MEASURED_TABLES = ['products', 'product_variants', 'listings', 'product_search_terms'] as const;

/**
 * A freshly loaded catalogue has no planner statistics yet; the same queries must plan well both
 * ways. `fresh` clears them in place (PostgreSQL 18) and keeps autovacuum from analysing in the
 * middle of the round; `analysed` analyses and lets autovacuum run again.
 */
export async function setStatistics(
  client: { query: (text: string) => Promise<unknown> },
  stats: Statistics,
  tables: readonly string[] = MEASURED_TABLES,
): Promise<void> {
  for (const table of tables) {
    await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = ${stats === 'fresh' ? 'off' : 'on'})`);
    await client.query(
      stats === 'fresh'
        ? `SELECT pg_clear_relation_stats('public', '${table}'),
             pg_clear_attribute_stats('public', '${table}', attname::text, false)
           FROM pg_attribute WHERE attrelid = 'public.${table}'::regclass AND attnum > 0 AND NOT attisdropped`
        : `ANALYZE ${table}`,
    );
  }
}

/** mulberry32: a small seedable generator, so a bench draws the same requests on every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * The machine's busy CPU time so far, in ms, from /proc/stat (every process: API, PostgreSQL, worker
 * and the bench's own client). Undefined where there is no /proc.
 */
export async function machineBusyMs(): Promise<number | undefined> {
  const line = await readFile('/proc/stat', 'utf8').then(
    (s) => s.split('\n')[0],
    () => undefined,
  );
  if (!line?.startsWith('cpu ')) return undefined;
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy. USER_HZ is 100 on Linux.
  const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
}
