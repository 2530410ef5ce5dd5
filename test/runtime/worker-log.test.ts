import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { run, type WorkerEvents } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeJobs } from '../../jobs/job-summary.ts';
import { graphileLogger, startWorker } from '../../jobs/worker.ts';
import { createLogger } from '../../server/logger.ts';
import { JOBS } from '../../src/db/jobs.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { capture } from '../helpers/log-capture.ts';

type LogRecord = Record<string, unknown>;
type Counts = Record<string, number>;

const SUMMARY = /^jobs in the last [\d.]+ s$/;
const isSummary = (r: LogRecord) => SUMMARY.test(String(r.msg));

async function until(check: () => boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

/** The summary lines' counts added up, per task. */
function summed(records: LogRecord[], key: 'succeeded' | 'failed'): Counts {
  const total: Counts = {};
  for (const r of records.filter(isSummary)) {
    for (const [task, n] of Object.entries(r[key] as Counts)) total[task] = (total[task] ?? 0) + n;
  }
  return total;
}

/** What the per-job outcome lines (at debug) say ran, per task. */
function outcomes(records: LogRecord[], outcome: 'succeeded' | 'failed'): Counts {
  const total: Counts = {};
  for (const r of records.filter((r) => r.outcome === outcome)) {
    const task = String(r.task);
    total[task] = (total[task] ?? 0) + 1;
  }
  return total;
}

describe('worker logs', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  /** The service's worker, logging at `level`, with one job that succeeds and one that fails. */
  async function runServiceWorker(level: string) {
    const out = capture();
    const started = Date.now();
    const runner = await startWorker({
      orm: app.orm,
      connectionString: app.databaseUrl,
      concurrency: 1,
      log: createLogger(level, 'json', out),
      mail: TEST_MAIL,
      webhooks: TEST_WEBHOOKS,
      summaryIntervalMs: 300,
    });
    let ok: string;
    let failed: string;
    try {
      ok = (await runner.addJob(JOBS.dispatchEvents, {})).id;
      // The payload schema refuses it, as it would a job queued by mistake.
      failed = (await runner.addJob(JOBS.dispatchEvents, { unexpected: 1 }, { maxAttempts: 1 })).id;
      await until(() => (summed(out.records(), 'failed')[JOBS.dispatchEvents] ?? 0) >= 1);
    } finally {
      await runner.stop();
    }
    const records = out.records();
    const about = (id: string) => records.filter((r) => r.job_id === id && r.outcome !== undefined);
    return { records, ok: about(ok), failed: about(failed), elapsed: Date.now() - started };
  }

  it("at debug: a job's success is a debug line, a failure an error line, and the summary counts them", async () => {
    const { records, ok, failed } = await runServiceWorker('debug');
    expect(ok).toEqual([
      expect.objectContaining({ level: 20, task: JOBS.dispatchEvents, outcome: 'succeeded' }),
    ]);
    expect(failed).toEqual([
      expect.objectContaining({
        level: 50,
        task: JOBS.dispatchEvents,
        outcome: 'failed',
        err: expect.objectContaining({ message: expect.stringContaining('malformed payload') }),
      }),
    ]);
    // Every job that ran is in a summary line once, the last one written as the worker stopped.
    expect(summed(records, 'succeeded')).toEqual(outcomes(records, 'succeeded'));
    expect(summed(records, 'failed')).toEqual(outcomes(records, 'failed'));
    expect(summed(records, 'succeeded')).toMatchObject({ [JOBS.dispatchEvents]: 1 });
    expect(summed(records, 'failed')).toEqual({ [JOBS.dispatchEvents]: 1 });
    for (const line of records.filter(isSummary)) {
      expect(line).toMatchObject({ level: 30, component: 'worker' });
      expect(line).not.toHaveProperty('job_id');
    }
  });

  it('at info: no line of its own for a job that succeeded; the failure and the summary remain', async () => {
    const { records, ok, failed, elapsed } = await runServiceWorker('info');
    expect(ok).toEqual([]);
    expect(failed).toEqual([expect.objectContaining({ level: 50, outcome: 'failed' })]);
    expect(records.filter((r) => r.outcome === 'succeeded')).toEqual([]);
    const summaries = records.filter(isSummary);
    expect(summed(records, 'succeeded')).toMatchObject({ [JOBS.dispatchEvents]: 1 });
    // At most one a 300 ms interval, and the one the stop writes.
    expect(summaries.length).toBeLessThanOrEqual(Math.ceil(elapsed / 300) + 1);
    const others = records.filter((r) => !isSummary(r) && r.level !== 50);
    for (const r of others) expect(String(r.msg)).toMatch(/^Worker connected and looking for jobs/);
  });

  it('writes no summary for an interval in which nothing ran', async () => {
    const out = capture();
    const log = createLogger('info', 'json', out).child({ component: 'worker' });
    const events: WorkerEvents = new EventEmitter();
    const summary = summarizeJobs(events, log, 100);
    const taskList = { log_summary_ok: async () => {} };
    const runner = await run({
      connectionString: app.databaseUrl,
      concurrency: 1,
      taskList,
      logger: graphileLogger(log),
      events,
      noHandleSignals: true,
      pollInterval: 100,
    });
    try {
      await sleep(600);
      expect(out.records().filter(isSummary)).toEqual([]);
      await runner.addJob('log_summary_ok', {});
      await until(() => out.records().some(isSummary));
      await sleep(600);
      expect(out.records().filter(isSummary)).toEqual([
        expect.objectContaining({ level: 30, succeeded: { log_summary_ok: 1 }, failed: {} }),
      ]);
    } finally {
      await runner.stop();
      summary.stop();
    }
    // Nothing was left to count when it stopped, so stopping wrote nothing either.
    expect(out.records().filter(isSummary)).toHaveLength(1);
  });
});
