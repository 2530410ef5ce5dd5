import { writeFile } from 'node:fs/promises';
import { migrate, openOrm } from '../server/orm.ts';
import { rows, sql } from '../src/db/sql.ts';
import { seedProducts } from '../src/demo/seed-catalogue.ts';
import { createApiKey } from '../src/store/create-api-key.ts';
import { createStore } from '../src/store/create-store.ts';
import { startApiProcess } from '../test/helpers/processes.ts';
import { startReplicatedCluster } from '../test/replicas/cluster.ts';
import { alternatingRounds, load, printTable, quantile, round, SECONDS, SMALL } from './lib.ts';

/**
 * `BENCH_ONLY=replica` (issue 31): catalogue reads at 10 connections against an API process whose
 * reads go to a streaming hot standby, and against one on the primary alone, in alternating rounds;
 * then the read-your-writes page: a listing added, then that listing read at once (the credential's mark
 * sends it to the primary until the replica has replayed it), one pair at a time, p50/p99. Its own
 * primary and standby (test/replicas/cluster.ts), on this machine: both servers share its cores, so
 * the replica adds no CPU here, only a second buffer pool and a second set of backends.
 */
const PRODUCTS = SMALL ? 5_000 : 50_000;
const CONNECTIONS = 10;
const PAIRS = SMALL ? 200 : 1000;
const URL_PATH = '/api/v1/products?limit=20';

export interface ReplicaBench {
  products: number;
  connections: number;
  seconds: number;
  catalogue: Awaited<ReturnType<typeof alternatingRounds>> & { sides: [string, string] };
  read_your_writes: {
    pairs: number;
    with_replica: { read_p50_ms: number; read_p99_ms: number; pair_p99_ms: number; missed: number };
    primary_alone: { read_p50_ms: number; read_p99_ms: number; pair_p99_ms: number; missed: number };
  };
}

export async function benchReplica(): Promise<ReplicaBench> {
  const cluster = await startReplicatedCluster('stockless_bench_replica');
  const orm = await openOrm(cluster.primaryUrl, 4);
  const procs: Awaited<ReturnType<typeof startApiProcess>>[] = [];
  try {
    await migrate(orm, cluster.primaryUrl);
    const em = orm.em.fork();
    await seedProducts(em, PRODUCTS);
    await rows(em, sql`VACUUM ANALYZE`);
    const store = await createStore({ em }, { name: 'Replica Bench', slug: 'replica-bench' });
    const key = (await createApiKey({ em }, { storeId: store.id, scope: 'read_write', mode: 'live' })).key;
    const ids = (
      await rows<{ id: number }>(
        em,
        sql`SELECT id FROM products WHERE active AND owner_store_id IS NULL ORDER BY id LIMIT ${2 * PAIRS}`,
      )
    ).map((r) => r.id);
    await cluster.caughtUp(120_000);
    const env = { API_STATEMENT_TIMEOUT: '30s', LOG_LEVEL: 'error' };
    const replicated = await startApiProcess(cluster.primaryUrl, {
      ...env,
      DATABASE_REPLICA_URLS: cluster.standbyUrl,
    });
    procs.push(replicated);
    const alone = await startApiProcess(cluster.primaryUrl, env);
    procs.push(alone);
    const headers = { authorization: `Bearer ${key}` };
    const catalogue = await alternatingRounds(
      () => load(`${replicated.url}${URL_PATH}`, headers, CONNECTIONS),
      () => load(`${alone.url}${URL_PATH}`, headers, CONNECTIONS),
    );
    const withReplica = await writeThenRead(replicated.url, key, ids.slice(0, PAIRS));
    const primaryAlone = await writeThenRead(alone.url, key, ids.slice(PAIRS));
    return {
      products: PRODUCTS,
      connections: CONNECTIONS,
      seconds: SECONDS,
      catalogue: { ...catalogue, sides: ['primary + replica', 'primary alone'] },
      read_your_writes: { pairs: PAIRS, with_replica: withReplica, primary_alone: primaryAlone },
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await orm.close(true);
    await cluster.close();
  }
}

/** Adds each product, then reads that listing at once: its time, and any miss. */
async function writeThenRead(base: string, key: string, ids: number[]) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const reads: number[] = [];
  const pairs: number[] = [];
  let missed = 0;
  for (const id of ids) {
    const started = performance.now();
    const added = await fetch(`${base}/api/v1/my-products`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ product_id: id }),
    });
    await added.text();
    if (added.status !== 201) throw new Error(`add ${id}: ${added.status}`);
    const readAt = performance.now();
    // The listing just added: 404 would be a read that missed the write.
    const res = await fetch(`${base}/api/v1/my-products/${id}`, { headers });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 404) throw new Error(`read: ${res.status} ${text}`);
    const done = performance.now();
    if (res.status === 404) missed++;
    reads.push(done - readAt);
    pairs.push(done - started);
  }
  return {
    read_p50_ms: round(quantile(reads, 0.5)),
    read_p99_ms: round(quantile(reads, 0.99)),
    pair_p99_ms: round(quantile(pairs, 0.99)),
    missed,
  };
}

/** The part alone: prints its figures and writes bench/results.json with them. */
export async function runReplicaPart(): Promise<void> {
  const r = await benchReplica();
  const c = r.catalogue;
  console.log(
    `\nReplica reads: ${URL_PATH} at ${CONNECTIONS} connections, ${r.products} products, alternating rounds`,
  );
  printTable(
    ['', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
    [
      ['primary + replica', `${c.api.rps}`, `${c.api.p50}`, `${c.api.p99}`, `${c.api.errors}`],
      ['primary alone', `${c.raw.rps}`, `${c.raw.p50}`, `${c.raw.p99}`, `${c.raw.errors}`],
    ],
  );
  console.log(`ratio (primary + replica / primary alone): ${c.throughput_ratio}`);
  const w = r.read_your_writes;
  console.log(`\nRead-your-writes: ${w.pairs} pairs (add a listing, then read the list), one at a time`);
  printTable(
    ['', 'read p50 ms', 'read p99 ms', 'pair p99 ms', 'reads missing the write'],
    [
      [
        'with replica',
        ...[
          w.with_replica.read_p50_ms,
          w.with_replica.read_p99_ms,
          w.with_replica.pair_p99_ms,
          w.with_replica.missed,
        ].map(String),
      ],
      [
        'primary alone',
        ...[
          w.primary_alone.read_p50_ms,
          w.primary_alone.read_p99_ms,
          w.primary_alone.pair_p99_ms,
          w.primary_alone.missed,
        ].map(String),
      ],
    ],
  );
  await writeFile(
    'bench/results.json',
    `${JSON.stringify({ at: new Date().toISOString(), parts: ['replica'], results: { replica: r } }, null, 2)}\n`,
  );
  console.log('\nwritten bench/results.json');
}
