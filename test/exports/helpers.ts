import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { JobHelpers, Task } from 'graphile-worker';
import { expect } from 'vitest';
import { createTaskList } from '../../jobs/tasks.ts';
import { JOBS } from '../../src/db/jobs.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { dispatchPendingEvents } from '../../src/events/dispatch.ts';
import type { ExportObject } from '../../src/exports/schemas.ts';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings } from '../../src/settings.ts';
import { webhookFanOut } from '../../src/webhooks/fanout.ts';
import { TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';

/** A fresh export directory and settings whose batches are tiny, so a few rows cross several. */
export function exportSettings(batch = 2): ExportSettings {
  return { ...DEFAULT_EXPORT_SETTINGS, dir: mkdtempSync(join(tmpdir(), 'stockless-exports-')), batch };
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

export function helpers(attempts = 1, max = 3): JobHelpers {
  return { logger: quiet, job: { attempts, max_attempts: max } } as unknown as JobHelpers;
}

/** Runs every queued `export_run` job as the worker would (the task of jobs/tasks.ts), then drops it. */
export async function runQueuedExports(app: TestApp, settings: ExportSettings, attempt = 1): Promise<number> {
  const task = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS, settings)[JOBS.runExport] as Task;
  const jobs = await rows<{ id: string; payload: unknown }>(
    app.em(),
    sql`SELECT j.id::text AS id, j.payload FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = ${JOBS.runExport}
      ORDER BY j.id`,
  );
  for (const job of jobs) {
    await task(job.payload, helpers(attempt));
    await rows(app.em(), sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${job.id}::bigint`);
  }
  return jobs.length;
}

/** The dispatcher's run, as the worker's `dispatch_events` task does it. */
export async function dispatch(app: TestApp): Promise<void> {
  await dispatchPendingEvents(app.em(), webhookFanOut(60_000));
}

export async function createExport(
  app: TestApp,
  key: string,
  body: unknown,
  headers?: Record<string, string>,
) {
  return send<{ export: ExportObject }>(app, 'POST', '/api/v1/exports', { key, body, headers });
}

export async function getExport(app: TestApp, key: string, id: string) {
  const res = await send<{ export: ExportObject }>(app, 'GET', `/api/v1/exports/${id}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.export;
}

/** The signed url as served by this test app (the url names the public host). */
export const local = (app: TestApp, url: string) => url.replace('http://stockless.test', app.url);

/** Downloads a completed export with no credential and parses its lines. */
export async function download(app: TestApp, exp: ExportObject): Promise<unknown[]> {
  expect(exp.status).toBe('completed');
  const res = await fetch(local(app, exp.url ?? ''));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/gzip');
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${exp.id}.jsonl.gz"`);
  const body = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(body.length);
  expect(body.length).toBe(exp.bytes);
  const text = gunzipSync(body).toString('utf8');
  return text === ''
    ? []
    : text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
}

/** Until every event of the store is below every running transaction (other files share the cluster). */
export async function settled(app: TestApp, storeId: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const [r] = await rows<{ done: boolean }>(
      app.em(),
      sql`SELECT COALESCE(bool_and(xid < pg_snapshot_xmin(pg_current_snapshot())), true) AS done
        FROM webhook_events WHERE store_id = ${storeId}`,
    );
    if (r?.done) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the log did not settle');
}
