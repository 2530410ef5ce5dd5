/**
 * What `Idempotency-Key` costs a write, against the same write without it, measured in one run on one
 * server: a cheap write (`PUT /my-products/{id}/pricing`) sent bare (the baseline), with a new key per
 * request (claim, then the kept answer written before it is sent), and as the replay of one kept
 * answer (no operation runs). Alternating rounds, so drift hits each side alike. Prints p50/p99 and
 * the ratio to the baseline.
 *
 *   BENCH_URL=http://localhost:3000 BENCH_KEY=sl_live_… BENCH_PRODUCT=<a listed product id> \
 *     node bench/idempotency.ts
 *
 * Settings: BENCH_SECONDS (per round, 8), BENCH_CONNECTIONS (10), BENCH_ROUNDS (3).
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

const base = process.env.BENCH_URL ?? 'http://localhost:3000';
const key = process.env.BENCH_KEY;
const product = process.env.BENCH_PRODUCT;
if (!key || !product)
  throw new Error('BENCH_KEY (a read_write key) and BENCH_PRODUCT (a listed product) are required');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const url = `${base}/api/v1/my-products/${product}/pricing`;
const body = JSON.stringify({ custom_retail_price_cents: null });
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const replayKey = `bench-replay-${randomUUID()}`;

type Side = 'bare' | 'new key' | 'replay';
const keyFor: Record<Side, () => Record<string, string>> = {
  bare: () => ({}),
  'new key': () => ({ 'idempotency-key': randomUUID() }),
  replay: () => ({ 'idempotency-key': replayKey }),
};

async function round(side: Side) {
  const r = await autocannon({
    url,
    method: 'PUT',
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, body, headers: { ...headers, ...keyFor[side]() } }) }],
  });
  if (r.non2xx || r.errors) throw new Error(`${side}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average };
}

// The replayed answer exists before its rounds start.
const first = await fetch(url, {
  method: 'PUT',
  body,
  headers: { ...headers, 'idempotency-key': replayKey },
});
if (!first.ok) throw new Error(`setup: ${first.status} ${await first.text()}`);

const seen: Record<Side, { p50: number[]; p99: number[]; rps: number[] }> = {
  bare: { p50: [], p99: [], rps: [] },
  'new key': { p50: [], p99: [], rps: [] },
  replay: { p50: [], p99: [], rps: [] },
};
for (let i = 0; i < rounds; i++) {
  for (const side of Object.keys(seen) as Side[]) {
    const r = await round(side);
    seen[side].p50.push(r.p50);
    seen[side].p99.push(r.p99);
    seen[side].rps.push(r.rps);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const baseline = median(seen.bare.p50);
console.log(
  `PUT /my-products/{id}/pricing, ${connections} connections, ${rounds} x ${seconds} s rounds (medians)`,
);
console.log('side       p50 ms  p99 ms  req/s   p50 / bare');
for (const [side, s] of Object.entries(seen)) {
  const p50 = median(s.p50);
  console.log(
    `${side.padEnd(10)} ${String(p50).padStart(6)}  ${String(median(s.p99)).padStart(6)}  ${String(Math.round(median(s.rps))).padStart(6)}  ${(p50 / baseline).toFixed(2)}`,
  );
}
