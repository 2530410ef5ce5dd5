import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import pg from 'pg';
import { buildCatalogueQuery, catalogueFrom, whereAll } from '../src/catalogue/filters.ts';
import { productColumns } from '../src/catalogue/product-item.ts';
import type { Orm } from '../src/db/orm.ts';
import { sql } from '../src/db/sql.ts';
import { loadCatalogueContext } from '../src/store/catalogue-context.ts';
import { type Load, load, round } from './lib.ts';

/**
 * The export part: the whole catalogue exported through the API and a worker process (POST, the job,
 * polled to completion), its wall time, rows/s, bytes and the worker's RSS at 10/50/90% of the rows;
 * another partner's list p99 before and while it runs; and a raw baseline in the same run: the same
 * statement streamed by a bare pg cursor through gzip to a file, no API, job or item builder around it.
 */
export interface ExportBench {
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  /** The job alone: from its claim (started_at) to its completion, without the POST, queue and polling. */
  jobSeconds: number;
  rssMb: { p10: number; p50: number; p90: number; peak: number; idle: number };
  raw: { seconds: number; bytes: number; rowsPerSecond: number };
  ratio: number;
  listBefore: Load;
  listDuring: Load;
  p99Ratio: number;
}

interface Deps {
  orm: Orm;
  dbUrl: string;
  apiUrl: string;
  /** A read_write live key of the exporting store, and a read key of another partner's store. */
  key: string;
  storeId: number;
  otherKey: string;
  exportDir: string;
  node: string;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function worker(d: Deps): ChildProcess {
  return spawn(d.node, ['server/main.ts', 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: d.dbUrl,
      EXPORT_DIR: d.exportDir,
      LOG_LEVEL: 'warn',
      WORKER_CONCURRENCY: '2',
    },
    stdio: 'ignore',
  });
}

/** Polls the export, sampling the worker's RSS against its progress; answers the samples and the export. */
async function follow(d: Deps, id: string, pid: number) {
  const samples: { progress: number; rss: number }[] = [];
  const headers = { authorization: `Bearer ${d.key}` };
  for (;;) {
    const res = await fetch(`${d.apiUrl}/api/v1/exports/${id}`, { headers });
    const { export: exp } = (await res.json()) as {
      export: {
        status: string;
        rows_written: number;
        row_count: number | null;
        bytes: number | null;
        started_at: string | null;
        completed_at: string | null;
      };
    };
    samples.push({ progress: exp.rows_written, rss: await rssMb(pid) });
    if (exp.status === 'completed') return { samples, exp };
    if (exp.status !== 'queued' && exp.status !== 'running') throw new Error(`export ${id} ${exp.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The RSS sampled nearest to a fraction of the rows. */
function rssAt(samples: { progress: number; rss: number }[], total: number, fraction: number): number {
  const target = total * fraction;
  const best = samples.reduce((a, b) =>
    Math.abs(b.progress - target) < Math.abs(a.progress - target) ? b : a,
  );
  return round(best.rss);
}

/** The same statement the job runs, as text, with the store's parameters; read by a bare pg cursor. */
async function rawBaseline(d: Deps): Promise<ExportBench['raw']> {
  const em = d.orm.em.fork();
  const ctx = await loadCatalogueContext(em, d.storeId);
  const where = whereAll(await buildCatalogueQuery(em, ctx, {}));
  const compiled = sql`SELECT ${productColumns(ctx)} FROM ${catalogueFrom(ctx)}
    LEFT JOIN categories c ON c.id = p.category_id LEFT JOIN brands b ON b.id = p.brand_id
    WHERE ${where} ORDER BY p.id`.compile(em.getKysely());
  const client = new pg.Client({ connectionString: d.dbUrl });
  await client.connect();
  const file = join(d.exportDir, 'raw-baseline.jsonl.gz');
  const started = performance.now();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`DECLARE raw NO SCROLL CURSOR FOR ${compiled.sql}`, [...compiled.parameters]);
    async function* lines() {
      for (;;) {
        const r = await client.query('FETCH 2000 FROM raw');
        if (r.rows.length === 0) return;
        yield `${r.rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
      }
    }
    await pipeline(Readable.from(lines()), createGzip(), createWriteStream(file));
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds: round(seconds), bytes: (await stat(file)).size, rowsPerSecond: 0 };
}

/** POSTs a catalogue export and follows it to completion. */
async function exportOnce(d: Deps, pid: number) {
  const started = performance.now();
  const res = await fetch(`${d.apiUrl}/api/v1/exports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'catalogue' }),
  });
  if (res.status !== 202) throw new Error(`POST /exports answered ${res.status}: ${await res.text()}`);
  const { export: created } = (await res.json()) as { export: { id: string } };
  const followed = await follow(d, created.id, pid);
  const exp = followed.exp;
  return {
    ...followed,
    seconds: (performance.now() - started) / 1000,
    jobSeconds: (Date.parse(exp.completed_at ?? '') - Date.parse(exp.started_at ?? '')) / 1000,
  };
}

/**
 * The export alone (its time and the worker's memory), the raw baseline alone, then the export again
 * while another partner lists the catalogue (that partner's p99 before and during).
 */
export async function benchExport(d: Deps): Promise<ExportBench> {
  const list = `${d.apiUrl}/api/v1/products?limit=20&in_stock=true`;
  const otherHeaders = { authorization: `Bearer ${d.otherKey}` };
  const child = worker(d);
  try {
    await new Promise((r) => setTimeout(r, 3000));
    const pid = child.pid ?? 0;
    const idle = await rssMb(pid);
    const alone = await exportOnce(d, pid);
    const rows = alone.exp.row_count ?? 0;
    const raw = await rawBaseline(d);
    raw.rowsPerSecond = round(rows / raw.seconds);
    const listBefore = await load(list, otherHeaders, 4);
    const [listDuring] = await Promise.all([load(list, otherHeaders, 4), exportOnce(d, pid)]);
    const rss = alone.samples;
    return {
      rows,
      bytes: alone.exp.bytes ?? 0,
      seconds: round(alone.seconds),
      rowsPerSecond: round(rows / alone.seconds),
      jobSeconds: round(alone.jobSeconds),
      rssMb: {
        p10: rssAt(rss, rows, 0.1),
        p50: rssAt(rss, rows, 0.5),
        p90: rssAt(rss, rows, 0.9),
        peak: round(Math.max(...rss.map((s) => s.rss))),
        idle: round(idle),
      },
      raw,
      ratio: round(alone.jobSeconds / raw.seconds),
      listBefore,
      listDuring,
      p99Ratio: round(listDuring.p99 / Math.max(1, listBefore.p99)),
    };
  } finally {
    child.kill('SIGTERM');
  }
}
