import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../server/config.ts';
import { startEmbeddedPostgres } from '../server/database.ts';
import { migrate, openOrm } from '../server/orm.ts';
import { rows, sql } from '../src/db/sql.ts';
import { seedProducts } from '../src/demo/seed-catalogue.ts';
import { createApiKey } from '../src/store/create-api-key.ts';
import { createStore } from '../src/store/create-store.ts';
import { inventoryStore } from './build/inventory-store.ts';
import { seedOrders, seedPlatformListings, seedPlatformOrders } from './build/orders-data.ts';
import { buildFingerprint, ensureCurrentBuild, markBuilt } from './build-cache.ts';
import { benchBulkAdd } from './bulk.ts';
import { captureStatements } from './capture.ts';
import { benchCatalogueFanout } from './catalogue-fanout.ts';
import {
  benchCatalogueLatency,
  latencyScenarios as catalogueScenarios,
  LATENCY_TARGETS,
  selectedScenarios,
} from './catalogue-latency.ts';
import { cpuPer, sampleCpu } from './cpu.ts';
import { benchDeliveryScale } from './deliveries-scale.ts';
import { benchExport } from './export.ts';
import { benchGeneratedQueries, printGenerated } from './generated-latency.ts';
import { benchInventorySync } from './inventory.ts';
import {
  alternatingRounds,
  fmt,
  load,
  MEASURED_TABLES,
  p50Of,
  printTable,
  round,
  SECONDS,
  SMALL,
  setStatistics,
  waitFor,
} from './lib.ts';
import { benchObservability } from './observability.ts';
import { benchWholesale, contentionRound } from './orders.ts';
import { benchPlatformDay, printPlatformDay } from './platform-day.ts';
import { benchPooler } from './pooler.ts';
import { benchReplica, runReplicaPart } from './replica.ts';
import { benchRequestLog } from './request-log.ts';
import { benchSearchMix, searchQueries, searchUrl } from './search-mix.ts';
import { benchTracing } from './tracing.ts';
import { benchUnderLoad } from './under-load.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchWholesaleSoak, printSoak } from './wholesale-soak.ts';

/**
 * `npm run bench`: the catalogue read paths of the API against a raw node:http + pg server replaying
 * the same SQL, measured in the same run on the same database. Prints ratios, writes
 * bench/results.json. Settings: BENCH_SCALE (`small`: 20,000 products, 2 s rounds, for a quick check),
 * BENCH_PRODUCTS (200000), BENCH_SECONDS (8), BENCH_CONNECTIONS (10),
 * BENCH_ONLY (one of catalogue, latency, bulk, wholesale, inventory, load, webhooks, fanout, deliveries, capacity,
 * generated, platform-day, soak, request-log, export, replica, tracing, observability, pooler: runs that part alone;
 * bench/results.json then holds that part's figures alone). For the latency part: BENCH_STATS
 * (fresh, analysed, both), BENCH_LATENCY_SAMPLES (per side per round), BENCH_LATENCY_MATCH (a
 * regular expression on scenario names), BENCH_SEARCH_QUERIES (the search mix's size, 1,000),
 * BENCH_DATA_DIR (another cluster, e.g. a 2M-product one). For the generated-query part: BENCH_GENERATED
 * (how many combinations, 2,000) and BENCH_STATS. For the platform-day part: BENCH_DAY_SECONDS (60), BENCH_DAY_ALONE_SECONDS (15: each class alone, priced in machine CPU; 0 skips) and BENCH_DAY_RAW_PATHS (40 sampled paths per read class, run against the raw replay of their statements for as long; 0 skips). For the soak: BENCH_SOAK_MINUTES (20) and BENCH_SOAK_RAW_MINUTES (2, before and after). BENCH_PG_PORT (54340) and BENCH_API_PORT (3301; the raw
 * replay listens on the next ports) let two runs share a machine.
 */
const PARTS = [
  'catalogue',
  'latency',
  'bulk',
  'wholesale',
  'inventory',
  'load',
  'webhooks',
  'fanout',
  'deliveries',
  'capacity',
  'generated',
  'platform-day',
  'soak',
  'request-log',
  'export',
  'replica',
  'tracing',
  'observability',
  'pooler',
] as const;
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && !(PARTS as readonly string[]).includes(ONLY)) {
  throw new Error(`BENCH_ONLY must be one of ${PARTS.join(', ')}`);
}
const runs = (part: (typeof PARTS)[number]) => ONLY === undefined || ONLY === part;
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? (SMALL ? 20_000 : 200_000));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DATA_DIR = process.env.BENCH_DATA_DIR ?? (SMALL ? '.data/bench-small' : '.data/bench');
/** Where the export part's files go (the API serves them from there): beside the bench cluster. */
const EXPORT_DIR = join(DATA_DIR, 'exports');
/** Which planner statistics the latency part measures with: cleared (`fresh`), `analysed`, or `both`. */
const STATS = (process.env.BENCH_STATS ?? 'both') as 'fresh' | 'analysed' | 'both';
if (!['fresh', 'analysed', 'both'].includes(STATS))
  throw new Error('BENCH_STATS must be fresh, analysed or both');
const NODE = process.execPath;

const THROUGHPUT = {
  'list limit=20': '/api/v1/products?limit=20',
  'list limit=500': '/api/v1/products?limit=500',
  'list limit=20 search': '/api/v1/products?limit=20&search=oak%20table',
  'list limit=500 search': '/api/v1/products?limit=500&search=oak%20table',
  'list limit=20 filtered': '/api/v1/products?limit=20&in_stock=true&category=living-room&sort_by=margin',
  facets: '/api/v1/products/facets',
  'facets filtered': '/api/v1/products/facets?in_stock=true&category=living-room',
  'my-products variants limit=500': '/api/v1/my-products?include=variants&limit=500',
  'orders limit=20 (100k orders)': '/api/v1/orders?limit=20',
  'orders search (100k orders)': '/api/v1/orders?limit=20&search=cara%20nguyen%2012',
};
/**
 * Each facets URL is compared with a `count(*)` over the same filters, the scan the facets were first
 * measured against (the list no longer runs it: its total comes from the cells too). $1 is the store.
 */
const VISIBLE = `SELECT count(*) FROM products p
  LEFT JOIN listings l ON l.product_id = p.id AND l.store_id = $1 AND l.deleted_at IS NULL
  WHERE p.active AND (p.owner_store_id IS NULL OR p.owner_store_id = $1)`;
const COUNT_SQL: Record<string, string> = {
  facets: VISIBLE,
  'facets filtered': `${VISIBLE} AND p.stock_quantity > 0 AND p.category_id IN (
    WITH RECURSIVE c AS (SELECT id FROM categories WHERE slug = 'living-room'
      UNION ALL SELECT k.id FROM categories k JOIN c ON k.parent_id = c.id) SELECT id FROM c)`,
};

async function main() {
  if (ONLY === 'replica') return runReplicaPart(); // its own primary and standby (bench/replica.ts)
  // Sized as a database server would be for its data (a quarter of memory): at 2M products the
  // catalogue is ~5 GB, and behind the demo's 256 MB every request read it through the OS cache.
  // At 4 MB of work_mem a broad search's bitmap (100,000 matches) went lossy and rechecked every
  // row of its pages: 2 s against 0.4 s at 32 MB.
  const sharedBuffersMb = Math.min(8192, Math.max(256, Math.floor(totalmem() / 4 / 2 ** 20)));
  const db = await startEmbeddedPostgres({
    dataDir: DATA_DIR,
    port: Number(process.env.BENCH_PG_PORT ?? 54340),
    database: 'stockless_bench',
    sharedBuffersMb,
    workMemMb: 32,
  });
  const fingerprint = await buildFingerprint();
  if (await ensureCurrentBuild(db.url, fingerprint))
    console.log(
      `bench database: built afresh (no build of this checkout's migrations and loader in ${DATA_DIR})`,
    );
  const orm = await openOrm(db.url, 10);
  const children: ChildProcess[] = [];
  try {
    await migrate(orm, db.url);
    const em = orm.em.fork();
    const [{ n } = { n: 0 }] = await rows<{ n: number }>(
      em,
      sql`SELECT count(*)::integer AS n FROM products`,
    );
    if (n < PRODUCTS) {
      console.log(`seeding ${PRODUCTS - n} products (kept in ${DATA_DIR} for later runs)…`);
      await seedProducts(em, PRODUCTS - n, (done, total) => {
        if (done % 50_000 === 0 || done === total) console.log(`  ${done}/${total}`);
      });
      await rows(em, sql`VACUUM ANALYZE`);
      await markBuilt(db.url, fingerprint);
    }
    const key = await benchStore(orm.em.fork());
    const [benchStoreRow] = await rows<{ id: number }>(
      orm.em.fork(),
      sql`SELECT id FROM stores WHERE slug = 'bench-store'`,
    );
    const benchStoreId = benchStoreRow?.id ?? 0;
    const needsRaw = runs('catalogue') || runs('wholesale') || runs('latency') || runs('soak');
    if (needsRaw || runs('generated') || runs('platform-day'))
      await seedOrders(db.url, benchStoreId, SMALL ? 10_000 : 100_000);
    // The rest of a platform's million orders, in 10,000 other stores.
    if (runs('latency') || runs('generated') || runs('platform-day')) {
      await seedPlatformOrders(db.url, SMALL ? 100 : 10_000, SMALL ? 10_000 : 900_000);
      const built = performance.now();
      await seedPlatformListings(db.url, SMALL ? 100 : 10_000);
      console.log(`platform listings in place (${Math.round((performance.now() - built) / 1000)} s)`);
    }
    const config = loadConfig({
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      PORT: '0',
      SECRET_KEY: 'b2'.repeat(32),
    });
    const latencyScenarios = runs('latency') ? selectedScenarios(await catalogueScenarios(db.url)) : [];
    // The search mix: BENCH_SEARCH_QUERIES queries (1,000; 0 leaves it out) from the vocabulary.
    const searchMix = runs('latency')
      ? searchQueries(Number(process.env.BENCH_SEARCH_QUERIES ?? (SMALL ? 100 : 1000)))
      : [];
    const urls = [
      ...Object.values(THROUGHPUT),
      ...latencyScenarios.map((s) => s.url),
      ...searchMix.map(searchUrl),
    ];
    const plan = needsRaw ? await captureStatements(orm, config, key, urls) : {};

    const apiPort = Number(process.env.BENCH_API_PORT ?? 3301);
    const rawPort = apiPort + 1;
    // The webhook part talks to a worker, not the API: an idle server beside it only takes memory.
    const needsApi =
      needsRaw ||
      ['bulk', 'inventory', 'load', 'capacity', 'generated', 'platform-day', 'export'].some((p) =>
        runs(p as (typeof PARTS)[number]),
      );
    if (needsApi)
      children.push(
        spawn(NODE, ['server/main.ts', 'serve'], {
          env: {
            ...process.env,
            DATABASE_URL: db.url,
            PORT: String(apiPort),
            LOG_LEVEL: 'info',
            DB_POOL_SIZE: '10',
            EXPORT_DIR: EXPORT_DIR,
            // The platform day prices each class alone at full speed: an app's allowance and the store's
            // feed allowance would cap the marketplace posts and the feed polls there. The mix itself
            // stays far below the defaults.
            ...(runs('platform-day') && {
              APP_RATE_LIMIT: '1000000',
              EXTERNAL_ORDERS_RATE_LIMIT: '1000000',
              INVENTORY_RATE_LIMIT: '1000000',
            }),
          },
          stdio: 'ignore',
        }),
      );
    if (needsRaw) {
      const planFile = join(await mkdtemp(join(tmpdir(), 'stockless-bench-')), 'plan.json');
      await writeFile(planFile, JSON.stringify(plan));
      children.push(
        spawn(NODE, ['bench/raw-server.ts'], {
          env: { ...process.env, DATABASE_URL: db.url, PORT: String(rawPort), BENCH_PLAN_FILE: planFile },
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        }),
      );
      await waitFor(`http://127.0.0.1:${rawPort}/__ready`, 404);
    }
    if (needsApi) await waitFor(`http://127.0.0.1:${apiPort}/health`);

    const headers = { authorization: `Bearer ${key}` };
    const results: Record<string, unknown> = {};
    if (runs('catalogue')) await benchCatalogue();
    if (runs('latency')) await benchLatency();
    if (runs('bulk')) await benchBulk();
    if (runs('wholesale')) await benchOrders();
    if (runs('inventory')) await benchInventory();
    if (runs('load')) await benchLoad();
    if (runs('webhooks')) await benchHooks();
    if (runs('fanout')) await benchFanout();
    if (runs('deliveries')) await benchDeliveries();
    if (runs('capacity')) await benchCapacity();
    if (runs('generated')) await benchGenerated();
    if (runs('platform-day')) await benchDay();
    if (runs('soak')) await benchSoak();
    if (runs('request-log')) await benchReqLog();
    if (runs('export')) await benchExportPart();
    if (runs('replica')) results.replica = await benchReplica();
    if (runs('tracing')) results.tracing = await benchTracing(db.url, config, key);
    if (runs('observability')) results.observability = await benchObservability(orm, config, key, db.url);
    if (runs('pooler'))
      results.pooler = await benchPooler({
        orm,
        databaseUrl: db.url,
        storeId: benchStoreId,
        connections: CONNECTIONS,
        apiPort: apiPort + 40,
      });

    /**
     * The whole catalogue exported through the API and a worker (bench/export.ts), against a bare pg
     * cursor streaming the same statement to gzip, while another partner lists the catalogue.
     */
    async function benchExportPart() {
      const f2 = (x: number) => x.toFixed(2);
      const em = orm.em.fork();
      // A leftover queued or running export of an interrupted run would answer 409.
      await rows(
        em,
        sql`UPDATE exports SET status = 'failed' WHERE store_id = ${benchStoreId} AND status IN ('queued', 'running')`,
      );
      const liveKey = (
        await createApiKey(
          { em },
          { storeId: benchStoreId, scope: 'read_write', mode: 'live', name: 'bench export' },
        )
      ).key;
      const other = await createStore(
        { em },
        { name: 'Bench Other Partner', slug: `bench-other-${Date.now()}` },
      );
      const otherKey = (
        await createApiKey({ em }, { storeId: other.id, scope: 'read', mode: 'live', name: 'bench' })
      ).key;
      const e = await benchExport({
        orm,
        dbUrl: db.url,
        apiUrl: `http://127.0.0.1:${apiPort}`,
        key: liveKey,
        storeId: benchStoreId,
        otherKey,
        exportDir: EXPORT_DIR,
        node: NODE,
      });
      results.export = e;
      console.log(`\nCatalogue export: ${e.rows} products`);
      printTable(
        ['', 'wall s', 'rows/s', 'MB (gzip)'],
        [
          ['API + worker (POST, job, polled)', f2(e.seconds), fmt(e.rowsPerSecond), f2(e.bytes / 2 ** 20)],
          ['the job alone (started_at → completed_at)', f2(e.jobSeconds), fmt(e.rows / e.jobSeconds), ''],
          [
            'raw: bare pg cursor → gzip',
            f2(e.raw.seconds),
            fmt(e.raw.rowsPerSecond),
            f2(e.raw.bytes / 2 ** 20),
          ],
        ],
      );
      console.log(
        `  the job's ratio to raw ${f2(e.ratio)}x; worker RSS MB idle ${fmt(e.rssMb.idle)}, at 10% ${fmt(e.rssMb.p10)}, ` +
          `50% ${fmt(e.rssMb.p50)}, 90% ${fmt(e.rssMb.p90)}, peak ${fmt(e.rssMb.peak)}`,
      );
      console.log(
        `  another partner's list p99: before ${fmt(e.listBefore.p99)} ms, during ${fmt(e.listDuring.p99)} ms ` +
          `(${f2(e.p99Ratio)}x; target <= 1.5x)`,
      );
    }

    /** The request log's cost per request, logging on against off, and a flush (bench/request-log.ts). */
    async function benchReqLog() {
      const r = await benchRequestLog(orm, config, key);
      results['request log'] = r;
      const e = r.end_to_end;
      console.log(
        `\nRequest log: ${e.requests_per_side} requests a side, one at a time, alternating rounds (target: ≤ 0.2 ms a request)`,
      );
      printTable(
        ['', 'p50 ms', 'p99 ms', 'mean ms'],
        [
          ['logging off', `${e.off.p50_ms}`, `${e.off.p99_ms}`, `${e.off.mean_ms}`],
          ['logging on', `${e.on.p50_ms}`, `${e.on.p99_ms}`, `${e.on.mean_ms}`],
          ['difference', `${e.p50_diff_ms}`, '', `${e.mean_diff_ms}`],
        ],
      );
      console.log(`hook alone (recordRequest): ${r.hook_us_per_request} µs a request`);
      const f = r.flush;
      console.log(
        `flush: ${f.rows} rows in batches of ${f.batch_rows}: ${f.wall_ms} ms (${f.ms_per_batch} ms a batch, ${f.us_per_row} µs a row), ${f.cpu_ms} ms of this process's CPU`,
      );
    }

    /** Wholesale orders for minutes on end, the worker running (bench/wholesale-soak.ts). */
    async function benchSoak() {
      const liveKey = (
        await createApiKey(
          { em: orm.em.fork() },
          { storeId: benchStoreId, scope: 'read_write', mode: 'live', name: 'bench soak' },
        )
      ).key;
      const worker = spawn(NODE, ['server/main.ts', 'worker'], {
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(worker);
      const soak = await benchWholesaleSoak({
        databaseUrl: db.url,
        apiUrl: `http://127.0.0.1:${apiPort}`,
        rawUrl: `http://127.0.0.1:${rawPort}`,
        key: liveKey,
        minutes: Number(process.env.BENCH_SOAK_MINUTES ?? (SMALL ? 2 : 20)),
        rawMinutes: Number(process.env.BENCH_SOAK_RAW_MINUTES ?? (SMALL ? 1 : 2)),
        connections: CONNECTIONS,
      });
      results['wholesale soak'] = soak;
      printSoak(soak);
    }

    /** A platform day: the partner mix at CONNECTIONS connections with a webhook worker (bench/platform-day.ts). */
    async function benchDay() {
      const em = orm.em.fork();
      const readKey = (
        await createApiKey({ em }, { storeId: benchStoreId, scope: 'read', mode: 'live', name: 'bench day' })
      ).key;
      // Test-mode orders take no stock, so the run leaves the catalogue as it found it.
      const writeKey = (
        await createApiKey(
          { em },
          { storeId: benchStoreId, scope: 'read_write', mode: 'test', name: 'bench day' },
        )
      ).key;
      const day = await benchPlatformDay({
        databaseUrl: db.url,
        apiUrl: `http://127.0.0.1:${apiPort}`,
        readKey,
        writeKey,
        storeId: benchStoreId,
        connections: CONNECTIONS,
        seconds: Number(process.env.BENCH_DAY_SECONDS ?? (SMALL ? 10 : 60)),
        aloneSeconds: Number(process.env.BENCH_DAY_ALONE_SECONDS ?? (SMALL ? 3 : 15)),
        // 0 paths leaves the raw side out.
        ...(Number(process.env.BENCH_DAY_RAW_PATHS ?? 40) > 0 && {
          raw: {
            ...{ orm, config, node: NODE, databaseUrl: db.url, rawPort: rawPort + 20 },
            seconds: Number(process.env.BENCH_DAY_ALONE_SECONDS ?? (SMALL ? 3 : 15)),
            paths: Number(process.env.BENCH_DAY_RAW_PATHS ?? 40),
          },
        }),
      });
      results['platform day'] = day;
      printPlatformDay(day);
    }

    /** Parameter combinations drawn from the contract's schemas (bench/generated-latency.ts). */
    async function benchGenerated() {
      const liveKey = (
        await createApiKey(
          { em: orm.em.fork() },
          { storeId: benchStoreId, scope: 'read', mode: 'live', name: 'bench generated' },
        )
      ).key;
      const generated = await benchGeneratedQueries({
        orm,
        config,
        databaseUrl: db.url,
        apiUrl: `http://127.0.0.1:${apiPort}`,
        rawPort: rawPort + 10,
        node: NODE,
        storeId: benchStoreId,
        key: liveKey,
        count: Number(process.env.BENCH_GENERATED ?? (SMALL ? 300 : 2000)),
        events: SMALL ? 20_000 : 1_000_000,
        requests: SMALL ? 20_000 : 2_000_000,
        modes: STATS === 'both' ? ['fresh', 'analysed'] : [STATS],
      });
      results['generated queries'] = generated;
      printGenerated(generated, PRODUCTS);
    }

    /**
     * CPU per catalogue request, for the capacity model (docs/scaling.md): the API process's and
     * PostgreSQL's, read from /proc around a load of 10 connections.
     */
    async function benchCapacity() {
      const api = children[0]?.pid ?? 0;
      const table: string[][] = [];
      const figures: Record<string, unknown> = {};
      for (const [name, url] of Object.entries({
        'list limit=20': THROUGHPUT['list limit=20'],
        'list limit=20 filtered': THROUGHPUT['list limit=20 filtered'],
        facets: THROUGHPUT.facets,
      })) {
        await load(`http://127.0.0.1:${apiPort}${url}`, headers, CONNECTIONS);
        const before = sampleCpu([api]);
        const r = await load(`http://127.0.0.1:${apiPort}${url}`, headers, CONNECTIONS);
        const requests = r.rps * SECONDS;
        const per = cpuPer(before, sampleCpu([api]), requests);
        figures[name] = { rps: r.rps, api_ms: per.workers, postgres_ms: per.postgres };
        table.push([name, fmt(r.rps), `${per.workers}`, `${per.postgres}`]);
      }
      results['cpu per request'] = figures;
      console.log(`\nCPU per catalogue request at ${CONNECTIONS} connections (${PRODUCTS} products)`);
      printTable(['scenario', 'req/s', 'API process CPU ms', 'PostgreSQL CPU ms'], table);
    }

    async function benchDeliveries() {
      const d = await benchDeliveryScale(orm, db.url);
      results['delivery scale'] = d;
      console.log(
        `\nWebhook delivery at scale: ${d.subscriptions} subscriptions, receivers answering in 200 ms (1% never), ${d.concurrency_per_worker} slots a worker`,
      );
      printTable(
        ['scenario', 'figure', 'target'],
        [
          [`backlog of ${d.backlog}, 1 worker`, `${d.one_worker_per_second} deliveries/s`, '≥ 1,000/s'],
          [
            'raw undici loop, same slots, same receivers (no time-outs)',
            `${d.raw_per_second} POSTs/s (engine ${Math.round((d.one_worker_per_second / d.raw_per_second) * 100)}%)`,
            'baseline',
          ],
          [
            'CPU ms per delivery (1 worker): PostgreSQL / worker / receivers',
            `${d.cpu_ms_per_delivery.postgres} / ${d.cpu_ms_per_delivery.workers} / ${d.cpu_ms_per_delivery.bench}`,
            'report',
          ],
          [
            `backlog of ${d.backlog}, 2 workers`,
            `${d.two_workers_per_second} deliveries/s (${d.scale_up}x)`,
            '≥ 1.6x',
          ],
          [
            `${d.hung.subscriptions} hung subscriptions: the others' commit → receipt`,
            `p50 ${d.hung.others_p50_ms} ms, p95 ${d.hung.others_p95_ms} ms`,
            'p95 < 1,000 ms',
          ],
          [
            `commit → receipt at ${d.steady.events_per_second} events/s`,
            `p50 ${d.steady.p50_ms} ms, p99 ${d.steady.p99_ms} ms`,
            'p99 ≤ 250 ms',
          ],
        ],
      );
    }

    async function benchFanout() {
      const f = await benchCatalogueFanout(orm, config);
      results['catalogue fan-out'] = f;
      console.log(
        `\nCatalogue change fanned out to ${f.stores} listing stores (medians of 5 alternating rounds)`,
      );
      printTable(
        ['', 'p50 ms (spread)', 'vs raw', 'target'],
        [
          [
            'change: one transaction (product, variants, readiness, prices)',
            `${f.change_ms.p50} (${f.change_ms.spread.join('–')})`,
            '',
            'report',
          ],
          [
            'fan-out: events + feed, 1,000 stores a transaction',
            `${f.api_fanout_ms.p50} (${f.api_fanout_ms.spread.join('–')})`,
            `${Math.round(f.ratio * 100)}%`,
            'batched, measured',
          ],
          [
            'raw: the same rows in one statement',
            `${f.raw_fanout_ms.p50} (${f.raw_fanout_ms.spread.join('–')})`,
            '',
            '',
          ],
          ['longest batch transaction', `${f.longest_batch_ms}`, '', '≤ 1,000 ms'],
          ['events a second', `${f.events_per_second}`, '', 'report'],
          [
            `webhooks of ${f.webhooks.stores} subscribed stores: dispatch into one coalescing job`,
            `${f.webhooks.dispatch_ms}`,
            '',
            'batched, measured',
          ],
          [
            `the window's close: ${f.webhooks.deliveries} deliveries, 1,000 stores a transaction`,
            `${f.webhooks.close_ms}`,
            '',
            'batched, measured',
          ],
        ],
      );
    }

    async function benchHooks() {
      const w = await benchWebhooks(orm, db.url);
      results['webhook deliveries'] = w;
      console.log(
        `\nWebhook deliveries (${w.subscriptions} subscriptions, concurrency ${w.concurrency}, ${w.deliveries} deliveries)`,
      );
      printTable(
        ['', 'deliveries/s', 'vs raw', 'target'],
        [
          [
            'worker: dispatch, sign, pinned POST, attempt log',
            fmt(w.api_per_second),
            `${Math.round(w.ratio * 100)}%`,
            '≥ 70% (issue 16, hostname URLs)',
          ],
          ['raw undici POST loop, same concurrency', fmt(w.raw_per_second), '', ''],
          [
            'commit to receipt, p50 / p95 ms',
            `${w.commit_to_receipt_ms.p50} / ${w.commit_to_receipt_ms.p95}`,
            '',
            'report',
          ],
        ],
      );
    }

    async function benchCatalogue() {
      const table: string[][] = [];
      for (const [name, url] of Object.entries(THROUGHPUT)) {
        const r = await alternatingRounds(
          () => load(`http://127.0.0.1:${apiPort}${url}`, headers, CONNECTIONS),
          () => load(`http://127.0.0.1:${rawPort}${url}`, headers, CONNECTIONS),
        );
        results[name] = { url, ...r };
        table.push([
          name,
          `${fmt(r.api.rps)} (${fmt(r.api.rps_min)}–${fmt(r.api.rps_max)})`,
          `${fmt(r.raw.rps)} (${fmt(r.raw.rps_min)}–${fmt(r.raw.rps_max)})`,
          `${Math.round(r.throughput_ratio * 100)}%`,
          `${r.api.p50} / ${r.api.p99}`,
          `${r.raw.p50} / ${r.raw.p99}`,
        ]);
      }
      console.log(
        `\nThroughput at ${CONNECTIONS} connections: medians of 5 alternating rounds of ${SECONDS}s, range in brackets (${PRODUCTS} products)`,
      );
      printTable(
        ['scenario', 'api req/s', 'raw req/s', 'api/raw', 'api p50 / p99 ms', 'raw p50 / p99 ms'],
        table,
      );

      // Latency with one connection, so queueing does not blur what a single request costs.
      const latency: string[][] = [];
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      for (const [name, countSql] of Object.entries(COUNT_SQL)) {
        const url = THROUGHPUT[name as keyof typeof THROUGHPUT];
        const api = await load(`http://127.0.0.1:${apiPort}${url}`, headers, 1);
        const countP50 = await p50Of(() => client.query(countSql, [benchStoreId]));
        const ratio = api.p50 / countP50;
        results[`${name} latency`] = { api_p50_ms: api.p50, count_p50_ms: countP50, ratio: round(ratio) };
        latency.push([name, `${api.p50}`, `${countP50}`, `${round(ratio)}x`, 'target ≤ 2x']);
      }
      for (const name of ['list limit=20 search', 'list limit=500 search'] as const) {
        const api = await load(`http://127.0.0.1:${apiPort}${THROUGHPUT[name]}`, headers, 1);
        results[`${name} latency`] = { api_p50_ms: api.p50 };
        latency.push([name, `${api.p50}`, '', '', 'target p50 < 50 ms']);
      }
      await client.end();
      console.log('\nLatency at 1 connection');
      printTable(['scenario', 'api p50 ms', 'count(*) p50 ms', 'ratio', ''], latency);
    }

    async function benchLatency() {
      const bases = { api: `http://127.0.0.1:${apiPort}`, raw: `http://127.0.0.1:${rawPort}` };
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const figures: Record<string, unknown> = {};
      try {
        const modes = STATS === 'both' ? (['fresh', 'analysed'] as const) : ([STATS] as const);
        for (const stats of modes) {
          await setStatistics(client, stats);
          // A line per scenario as it is measured: a long run shows its progress.
          const measured = await benchCatalogueLatency(latencyScenarios, bases, headers, (m) =>
            console.log(
              `  ${stats} ${m.name}: api p50 ${m.api_p50_ms} p99 ${m.api_p99_ms}, raw p50 ${m.raw_p50_ms} ms`,
            ),
          );
          figures[stats] = measured;
          const page1 = measured.find((m) => m.name === 'no filter')?.api_p50_ms ?? 0;
          console.log(`\nCatalogue latency at 1 connection, ${stats} statistics (${PRODUCTS} products)`);
          printTable(
            ['scenario', 'api p50 (spread)', 'api p99', 'raw p50', 'raw p99', 'api/raw', 'target'],
            measured.map((m) => {
              const t = LATENCY_TARGETS[m.kind];
              const target =
                m.kind === 'deep page'
                  ? `≤ 3x page 1 (${round(m.api_p50_ms / (page1 || 1))}x)`
                  : `p50 ≤ ${t.p50}${t.p99 ? `, p99 ≤ ${t.p99}` : ''}`;
              const met =
                m.kind === 'deep page'
                  ? m.api_p50_ms <= 3 * page1
                  : m.api_p50_ms <= t.p50 && (t.p99 === undefined || m.api_p99_ms <= t.p99);
              return [
                m.name,
                `${m.api_p50_ms} (${m.api_p50_spread_ms.join('–')})`,
                `${m.api_p99_ms}`,
                `${m.raw_p50_ms}`,
                `${m.raw_p99_ms}`,
                `${Math.round((1 / m.ratio) * 100)}%`,
                `${target} ${met ? 'met' : 'MISSED'}`,
              ];
            }),
          );
        }
        if (searchMix.length) {
          const mix = await benchSearchMix(searchMix, bases, headers);
          figures['search mix'] = mix;
          console.log(
            `\nSearch mix, ${mix.queries} queries (one-word, two-word, typos, SKU fragments), one connection`,
          );
          printTable(
            ['', 'p50 ms', 'p99 ms', 'target'],
            [
              ['api', `${mix.api_p50_ms}`, `${mix.api_p99_ms}`, 'p50 ≤ 20, p99 ≤ 80'],
              ['raw', `${mix.raw_p50_ms}`, `${mix.raw_p99_ms}`, ''],
            ],
          );
          for (const f of mix.failed) console.log(`  failed (${f.side}): ${f.query}: ${f.error}`);
        }
      } finally {
        // A part that ends in (or fails during) its fresh round leaves the tables as it found them.
        const tables = MEASURED_TABLES;
        for (const table of tables) await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = on)`);
        if (STATS === 'fresh') await client.query(`ANALYZE ${tables.join(', ')}`);
        await client.end();
      }
      results['catalogue latency'] = figures;
    }

    async function benchBulk() {
      const bulkStore = await createStore(
        { em: orm.em.fork() },
        { name: 'Bench bulk', slug: `bench-bulk-${Date.now()}` },
      );
      const bulkKey = (
        await createApiKey(
          { em: orm.em.fork() },
          { storeId: bulkStore.id, scope: 'read_write', mode: 'test' },
        )
      ).key;
      const bulk = await benchBulkAdd({
        databaseUrl: db.url,
        apiUrl: `http://127.0.0.1:${apiPort}`,
        storeId: bulkStore.id,
        key: bulkKey,
      });
      results['bulk add filter mode'] = bulk;
      console.log(`\nBulk add in filter mode (${bulk.matched} catalogue matches, median of 3)`);
      printTable(
        ['', 'ms', 'rows/s', 'speed vs raw', 'target'],
        [
          [
            'api POST /my-products/bulk',
            `${bulk.api_ms}`,
            `${bulk.api_rows_per_s}`,
            `${Math.round(bulk.speed_ratio * 100)}%`,
            '≥ 50%',
          ],
          ['raw INSERT … SELECT', `${bulk.raw_ms}`, `${bulk.raw_rows_per_s}`, '', ''],
        ],
      );
    }

    async function benchOrders() {
      // A live key: a test-mode order checks stock without taking it, and the raw side takes it.
      const writeKey = (
        await createApiKey(
          { em: orm.em.fork() },
          { storeId: benchStoreId, scope: 'read_write', mode: 'live' },
        )
      ).key;
      const wholesale = await benchWholesale(
        db.url,
        { api: `http://127.0.0.1:${apiPort}`, raw: `http://127.0.0.1:${rawPort}` },
        writeKey,
      );
      results['wholesale order placement'] = wholesale;
      const rush = await contentionRound(db.url, `http://127.0.0.1:${apiPort}`, writeKey);
      results['wholesale contention round'] = rush;
      console.log(
        `\nContention round: ${rush.buyers} buyers, ${rush.units} units: ${rush.placed} placed, ${rush.refused} refused (400 INSUFFICIENT_STOCK), ${rush.stock_left} left, ${rush.ms} ms`,
      );
      console.log('\nWholesale order placement (2 lines, 10 connections)');
      printTable(
        ['', 'orders/s', 'p50 ms', 'p99 ms', 'errors', 'vs raw', 'target'],
        [
          [
            'api POST /orders',
            fmt(wholesale.api.rps),
            `${wholesale.api.p50}`,
            `${wholesale.api.p99}`,
            `${wholesale.api.errors}`,
            `${Math.round(wholesale.throughput_ratio * 100)}%`,
            '≥ 80%, p99 ≤ 50',
          ],
          [
            'raw SQL reservation',
            fmt(wholesale.raw.rps),
            `${wholesale.raw.p50}`,
            `${wholesale.raw.p99}`,
            `${wholesale.raw.errors}`,
            '',
            '',
          ],
        ],
      );
    }

    /** The store with the platform's largest listing (50,000 products), made once. */
    async function inventoryBenchStore() {
      const invStore = await createStore(
        { em: orm.em.fork() },
        { name: 'Bench inventory', slug: 'bench-inventory' },
      ).catch(async () => {
        const [row] = await rows<{ id: number }>(
          orm.em.fork(),
          sql`SELECT id FROM stores WHERE slug = 'bench-inventory'`,
        );
        return { id: row?.id ?? 0 };
      });
      return { id: invStore.id, feedSize: await inventoryStore(db.url, invStore.id) };
    }

    async function benchLoad() {
      const feed = await inventoryBenchStore();
      const bulkStore = await createStore(
        { em: orm.em.fork() },
        { name: 'Bench load', slug: `bench-load-${Date.now()}` },
      );
      const key = async (storeId: number, scope: 'read' | 'read_write') =>
        (await createApiKey({ em: orm.em.fork() }, { storeId, scope, mode: 'test' })).key;
      const r = await benchUnderLoad({
        databaseUrl: db.url,
        apiUrl: `http://127.0.0.1:${apiPort}`,
        orderKey: await key(benchStoreId, 'read_write'),
        feedKey: await key(feed.id, 'read'),
        feedStoreId: feed.id,
        bulkKey: await key(bulkStore.id, 'read_write'),
        bulkStoreId: bulkStore.id,
        node: NODE,
      });
      results['orders and feed under load'] = r;
      const quietP99 = r.quiet.order_p99_ms;
      const row = (name: string, p: typeof r.quiet, extra: string) => [
        name,
        `${p.orders} (${p.errors})`,
        `${p.order_p50_ms} / ${p.order_p99_ms}`,
        name === 'quiet' ? '' : `${round(p.order_p99_ms / quietP99)}x`,
        `${p.feed_lag_p50_ms} / ${p.feed_lag_p99_ms}`,
        `${p.feed_unseen}`,
        `${Math.round(p.ms / 1000)} s`,
        extra,
      ];
      console.log(
        `\nOrders and the inventory feed under load (2 buyers; the feed of a ${feed.feedSize}-listing store)`,
      );
      printTable(
        [
          'while',
          'orders (errors)',
          'order p50 / p99 ms',
          'p99 vs quiet',
          'feed lag p50 / p99 ms',
          'unseen',
          'took',
          '',
        ],
        [
          row('quiet', r.quiet, ''),
          row('bulk add by filter', r.bulk_add, `${r.bulk_add.added} added`),
          row('readiness pass', r.readiness, JSON.stringify(r.readiness.pass)),
          ['target', '', '', '≤ 2x', 'p99 ≤ 2000', '0', '', ''],
        ],
      );
    }

    async function benchInventory() {
      const { id: invStoreId, feedSize } = await inventoryBenchStore();
      const invStore = { id: invStoreId };
      const invKey = (
        await createApiKey({ em: orm.em.fork() }, { storeId: invStore.id, scope: 'read', mode: 'test' })
      ).key;
      const sync = await benchInventorySync(db.url, `http://127.0.0.1:${apiPort}`, invKey, invStore.id);
      results['inventory full sync'] = { feed_size: feedSize, ...sync };
      console.log(`\nInventory full sync (${sync.items} listed products, pages of 500)`);
      printTable(
        ['', 'ms', 'rows/s', 'vs raw', 'target'],
        [
          [
            'api GET /inventory (follow next_cursor)',
            `${sync.api_ms}`,
            `${sync.api_rows_per_s}`,
            `${Math.round(sync.throughput_ratio * 100)}%`,
            '≥ 80%',
          ],
          ['raw keyset scan, same statement', `${sync.raw_ms}`, `${sync.raw_rows_per_s}`, '', ''],
          [
            'last full page vs first page, p50 ms',
            `${sync.last_full_page_p50_ms} / ${sync.first_page_p50_ms}`,
            '',
            `${sync.last_vs_first}x`,
            '≤ 1.3x',
          ],
        ],
      );
    }

    // One run's figures only, never merged with an earlier run's: `parts` says what this run measured.
    await writeFile(
      'bench/results.json',
      `${JSON.stringify({ at: new Date().toISOString(), products: PRODUCTS, seconds: SECONDS, connections: CONNECTIONS, parts: PARTS.filter(runs), results }, null, 2)}\n`,
    );
    console.log('\nwritten bench/results.json');
  } finally {
    // Each child gone before the database stops: one still holding connections reports their
    // termination as an error after the figures.
    await Promise.all(
      children.map((c) =>
        c.exitCode !== null || c.signalCode !== null
          ? undefined
          : new Promise<void>((resolve) => {
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
              setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
            }),
      ),
    );
    await orm.close(true);
    await db.stop();
  }
}

async function benchStore(em: Parameters<typeof createStore>[0]['em']) {
  const [existing] = await rows<{ id: number }>(em, sql`SELECT id FROM stores WHERE slug = 'bench-store'`);
  const storeId =
    existing?.id ?? (await createStore({ em }, { name: 'Bench Store', slug: 'bench-store' })).id;
  // The platform's largest store: one product in forty (50,000 at 2M), every one re-priced.
  const [listed] = await rows<{ n: number }>(
    em,
    sql`SELECT count(*)::integer AS n FROM listings WHERE store_id = ${storeId}`,
  );
  if ((listed?.n ?? 0) < Math.floor(PRODUCTS / 40)) {
    await rows(
      em,
      sql`INSERT INTO listings (store_id, product_id, custom_retail_price_cents)
        SELECT ${storeId}, id, retail_price_cents + 500 FROM products WHERE id % 40 = 0
        ON CONFLICT (store_id, product_id) DO UPDATE SET custom_retail_price_cents = EXCLUDED.custom_retail_price_cents`,
    );
  }
  return (await createApiKey({ em }, { storeId, scope: 'read', mode: 'test', name: 'bench' })).key;
}

await main();
process.exit(0);
