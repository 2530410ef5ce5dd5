import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { migrate, type Orm, openOrm } from '../../server/orm.ts';
import { replicaFailure } from '../../server/replicas/failures.ts';
import { ReplicaSet } from '../../server/replicas/replica-set.ts';
import { replicaSnapshot } from '../../server/replicas/snapshot.ts';
import { createApiKey } from '../../src/store/create-api-key.ts';
import { createStore } from '../../src/store/create-store.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/http.ts';
import { type ApiProcess, startApiProcess } from '../helpers/processes.ts';
import { sampleValue, scrape } from '../helpers/prometheus.ts';
import { type ReplicatedCluster, startReplicatedCluster } from './cluster.ts';

/**
 * docs/scaling.md §4 over real HTTP: API processes with DATABASE_REPLICA_URLS naming a real hot
 * standby of their primary (streaming replication, built once for this file by ./cluster.ts). Lag is
 * injected by pausing the standby's replay. A read served by the replica is seen as a read that misses
 * a write the primary already has; the primary-only process `P` shows what the primary answers.
 */

let cluster: ReplicatedCluster;
let orm: Orm;
/** Replicas, lag bound 60 s: a paused standby keeps serving them. */
let A: ApiProcess;
let B: ApiProcess;
/** Replicas, lag bound 300 ms. */
let C: ApiProcess;
/** The primary alone. */
let P: ApiProcess;
let store: { id: number; readWrite: string; read: string };
/** An in-process replica set on the same standby, for its snapshot (what /metrics and /health/ready show). */
let inProcess: ReplicaSet;
let products: number[] = [];

const INVENTORY_LIMIT = 8;

async function makeStore(name: string) {
  const em = orm.em.fork();
  const s = await createStore({ em }, { name, slug: `r-${Math.random().toString(36).slice(2, 10)}` });
  const rw = await createApiKey({ em }, { storeId: s.id, scope: 'read_write', mode: 'live' });
  const ro = await createApiKey({ em }, { storeId: s.id, scope: 'read', mode: 'live' });
  return { id: s.id, readWrite: rw.key, read: ro.key };
}

async function call<T = Record<string, unknown>>(
  proc: ApiProcess,
  path: string,
  key: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${proc.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as T };
}

const storeName = async (proc: ApiProcess, key: string) => {
  const res = await call<{ store: { name: string } }>(proc, '/api/v1/vendor/me', key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.store.name;
};

const listed = async (proc: ApiProcess, key: string) => {
  const res = await call<{ products: { product_id: number }[] }>(proc, '/api/v1/my-products?limit=100', key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.products.map((p) => p.product_id).sort((a, b) => a - b);
};

type FeedPage = { items: { product_id: number }[]; next_cursor: string; has_more: boolean };
const feed = async (proc: ApiProcess, key: string, cursor?: string, limit = 2) => {
  const q = new URLSearchParams({ limit: String(limit), ...(cursor ? { updated_since: cursor } : {}) });
  const res = await call<FeedPage>(proc, `/api/v1/inventory?${q}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

let metricsPort = 0;

type Ready = {
  status: string;
  checks: Record<string, { status: string; critical: boolean; detail?: string }>;
};
const OPERATOR = 'operator-token-for-the-replica-tests';
const ready = async (proc: ApiProcess, operator?: string) => {
  const res = await fetch(`${proc.url}/health/ready`, {
    headers: operator ? { authorization: `Bearer ${operator}` } : {},
  });
  return { status: res.status, body: (await res.json()) as Ready };
};

/** Every probe of a process has run at least once more: a second covers a 60 s bound's 1 s interval. */
const probed = () => new Promise((r) => setTimeout(r, 1300));

beforeAll(async () => {
  cluster = await startReplicatedCluster();
  orm = await openOrm(cluster.primaryUrl, 4);
  await migrate(orm, cluster.primaryUrl);
  store = await makeStore('Replica Store');
  const fx = fixtures(orm.em.fork());
  const supplierId = await fx.supplier();
  products = [];
  for (let i = 0; i < 8; i++) products.push(await fx.product({ supplierId, stock: [5] }));
  const env = { DATABASE_REPLICA_URLS: cluster.standbyUrl, INVENTORY_RATE_LIMIT: String(INVENTORY_LIMIT) };
  // One after another: four Node starts at once on a shared 2-core machine can pass the helper's 30 s.
  A = await startApiProcess(cluster.primaryUrl, { ...env, REPLICA_MAX_LAG: '60s' });
  B = await startApiProcess(cluster.primaryUrl, { ...env, REPLICA_MAX_LAG: '60s' });
  metricsPort = await freePort();
  C = await startApiProcess(cluster.primaryUrl, {
    ...env,
    REPLICA_MAX_LAG: '300ms',
    METRICS_PORT: String(metricsPort),
    OPERATOR_TOKEN: OPERATOR,
  });
  P = await startApiProcess(cluster.primaryUrl, { INVENTORY_RATE_LIMIT: String(INVENTORY_LIMIT) });
  inProcess = await ReplicaSet.open({
    urls: [cluster.standbyUrl],
    primary: orm,
    poolSize: 2,
    budget: { onCancelled: () => {} },
    maxLagMs: 60_000,
    log: createLogger('silent'),
  });
  await cluster.caughtUp();
  await probed();
}, 180_000);

afterAll(async () => {
  await Promise.all([A, B, C, P].map((p) => p?.stop()));
  await inProcess?.close();
  await orm?.close(true);
  await cluster?.close();
});

describe('read replicas (docs/scaling.md §4)', () => {
  it("the snapshot shows each replica's host, port, state, lag and replay LSN, never its credentials", async () => {
    await inProcess.probe();
    const [one, ...more] = replicaSnapshot(inProcess);
    const port = Number(new URL(cluster.standbyUrl).port);
    expect(more).toEqual([]);
    expect(one).toMatchObject({ host: '127.0.0.1', port, up: true, serving: true, reason: null });
    expect(one?.replayLsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(one?.replayLagMs).toBeGreaterThanOrEqual(0);
    expect(one?.replayLagMs).toBeLessThan(60_000);
    expect(JSON.stringify(one)).not.toContain('stockless:stockless');
  });

  it('a partner read is served by the replica: it misses a write the primary has while replay is paused', async () => {
    await cluster.pauseReplay();
    try {
      await cluster.onPrimary(`UPDATE stores SET name = 'Renamed on the primary' WHERE id = $1`, [store.id]);
      expect(await storeName(P, store.read)).toBe('Renamed on the primary');
      expect(await storeName(A, store.read)).toBe('Replica Store');
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await probed();
    expect(await storeName(A, store.read)).toBe('Renamed on the primary');
  });

  it("read-your-writes across two processes: a credential's write on A is read back on B while the replica lags", async () => {
    const [first, second] = products as [number, number];
    await cluster.pauseReplay();
    try {
      // The write on A, the read on B: the mark is in PostgreSQL, not in A's memory.
      const added = await call(A, '/api/v1/my-products', store.readWrite, {
        method: 'POST',
        body: { product_id: first },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      expect(await listed(B, store.readWrite)).toEqual([first]);
      expect((await call(B, `/api/v1/my-products/${first}`, store.readWrite)).status).toBe(200);
      // Another credential of the store has written nothing: its reads still go to the lagging replica.
      expect(await listed(B, store.read)).toEqual([]);
      // A write by another path (keyed, so it commits after the procedure) marks too.
      const keyed = await fetch(`${B.url}/api/v1/my-products`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${store.readWrite}`,
          'content-type': 'application/json',
          'idempotency-key': `ryw-${Date.now()}`,
        },
        body: JSON.stringify({ product_id: second }),
      });
      expect(keyed.status).toBe(201);
      expect(await listed(A, store.readWrite)).toEqual([first, second]);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await probed();
    expect(await listed(B, store.read)).toEqual([first, second]);
  });

  it('a replica further behind than REPLICA_MAX_LAG is skipped: the primary answers', async () => {
    await cluster.pauseReplay();
    try {
      await cluster.onPrimary(`UPDATE stores SET name = 'Renamed again' WHERE id = $1`, [store.id]);
      await new Promise((r) => setTimeout(r, 1000));
      // C's bound is 300 ms: the paused standby is a second behind, so C reads the primary.
      expect(await storeName(C, store.read)).toBe('Renamed again');
      // A's is 60 s: the same standby still serves A.
      expect(await storeName(A, store.read)).toBe('Renamed on the primary');
      // Readiness states the skipped replica and stays 200 (the primary answers); /metrics shows it too.
      const c = await ready(C);
      expect(c.status).toBe(200);
      expect(c.body.checks.replicas).toEqual({ status: 'failing', critical: false });
      const detailed = await ready(C, OPERATOR);
      expect(detailed.body.checks.replicas?.detail).toMatch(/skipped \(lag (\d+|unknown) ms\)/);
      expect((await ready(A)).body.checks.replicas).toMatchObject({ status: 'ok', critical: false });
      const m = await scrape(`http://127.0.0.1:${metricsPort}`);
      const replica = `${new URL(cluster.standbyUrl).hostname}:${new URL(cluster.standbyUrl).port}`;
      expect(sampleValue(m, 'stockless_replica_serving', { replica })).toBe(0);
      expect(sampleValue(m, 'stockless_replica_lag_seconds', { replica })).toBeGreaterThan(0.3);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
  });

  it('a 404 from a lagging replica is asked again of the primary: a product a webhook just named is found', async () => {
    await cluster.pauseReplay();
    try {
      const fx = fixtures(orm.em.fork());
      const fresh = await fx.product({ supplierId: await fx.supplier(), stock: [3] });
      // A read key has written nothing, so A picks the paused replica, which has not replayed the product.
      const res = await call<{ product?: unknown }>(A, `/api/v1/products/${fresh}`, store.read);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.product).toBeTruthy();
      const missing = await call(A, '/api/v1/products/987654321', store.read);
      expect(missing.status).toBe(404);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
  });

  it('the inventory feed cursor stays exact when pages alternate between the primary and a lagging replica', async () => {
    await probed();
    // The head of the feed as it is now (the two listings above), on the primary.
    let head = await feed(P, store.read, undefined, 100);
    expect(head.items.map((i) => i.product_id)).toEqual(products.slice(0, 2));
    const seen: number[] = [];
    const fresh = products.slice(2, 5);
    await cluster.pauseReplay();
    try {
      const fx = fixtures(orm.em.fork());
      for (const id of fresh) await fx.listing(store.id, id); // each its own transaction
      // Page 1 from the primary.
      const one = await feed(P, store.read, head.next_cursor);
      seen.push(...one.items.map((i) => i.product_id));
      expect(one.has_more).toBe(true);
      // Page 2 from the paused replica: nothing new yet, the same cursor back, never a skip.
      const two = await feed(A, store.read, one.next_cursor);
      expect(two.items).toEqual([]);
      expect(two.has_more).toBe(false);
      expect(two.next_cursor).toBe(one.next_cursor);
      // From the start of this walk the replica has nothing either: it never shows what it has not replayed.
      expect((await feed(A, store.read, head.next_cursor)).items).toEqual([]);
      head = two;
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await probed();
    // Page 3 from the replica, caught up: the rest, in order.
    const three = await feed(A, store.read, head.next_cursor);
    seen.push(...three.items.map((i) => i.product_id));
    expect(seen).toEqual(fresh);
    expect((await feed(P, store.read, three.next_cursor)).items).toEqual([]);
  });

  it('rate limits stay exact across two processes whose pages come from the replica', async () => {
    const limited = await makeStore('Limited Store');
    await cluster.caughtUp();
    await probed();
    await cluster.pauseReplay();
    try {
      const statuses: number[] = [];
      for (let i = 0; i <= INVENTORY_LIMIT; i++) {
        const res = await call(i % 2 === 0 ? A : B, '/api/v1/inventory', limited.read);
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array(INVENTORY_LIMIT).fill(200), 429]);
    } finally {
      await cluster.resumeReplay();
    }
  });

  it("a statement the standby cancels for a recovery conflict is the replica's failure: the read goes back to the primary", async () => {
    await cluster.caughtUp();
    await inProcess.probe();
    const choice = inProcess.choose(undefined);
    if (!choice) throw new Error('the caught-up standby was not offered');
    // A read holding its lock on `stores` while the primary's ACCESS EXCLUSIVE lock replays.
    const reading = choice.em
      .getConnection()
      .execute('SELECT pg_sleep(10) FROM stores LIMIT 1')
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    await new Promise((r) => setTimeout(r, 300));
    await cluster.onPrimary('BEGIN; LOCK TABLE stores IN ACCESS EXCLUSIVE MODE; COMMIT');
    const err = await reading;
    expect(String(err)).toMatch(/conflict with recovery/);
    expect(replicaFailure(err)).toBe('conflict');
    expect(choice.failed(err)).toBe(true);
    // A conflict is the statement's bad luck, not the replica's state: it stays up.
    expect(replicaSnapshot(inProcess)[0]?.up).toBe(true);
  });

  it('a stopped replica: every read is answered by the primary with 200', async () => {
    // A store of its own: the inventory limit of the others is spent by the tests above.
    const own = await makeStore('Standby Gone');
    await cluster.caughtUp();
    await probed();
    await cluster.onPrimary(`UPDATE stores SET name = 'After the standby' WHERE id = $1`, [store.id]);
    await cluster.stopStandby();
    const paths = [
      '/api/v1/vendor/me',
      '/api/v1/products',
      '/api/v1/my-products',
      '/api/v1/orders',
      '/api/v1/inventory',
    ];
    for (let round = 0; round < 3; round++) {
      for (const path of paths) {
        const res = await call(A, path, own.readWrite);
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      }
    }
    expect(await storeName(A, store.read)).toBe('After the standby');
    expect(await storeName(B, store.read)).toBe('After the standby');
    expect(A.child.exitCode).toBeNull();
    expect(B.child.exitCode).toBeNull();
    const a = await ready(A);
    expect(a.status).toBe(200);
    expect(a.body.checks.replicas).toMatchObject({ status: 'failing', critical: false });
    await inProcess.probe();
    expect(replicaSnapshot(inProcess)[0]).toMatchObject({
      up: false,
      serving: false,
      reason: expect.any(String),
    });
    expect(inProcess.choose(undefined)).toBeUndefined();
  });
});
