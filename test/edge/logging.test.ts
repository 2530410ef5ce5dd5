import { setImmediate as tick } from 'node:timers/promises';
import { quickAddJob, runOnce } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphileLogger } from '../../jobs/worker.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/logger.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { capture } from '../helpers/log-capture.ts';

describe('LOG_FORMAT', () => {
  it('is json by default, accepts pretty, and refuses anything else at start', () => {
    expect(loadConfig({}).LOG_FORMAT).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
  });

  it('json writes one JSON object a line', () => {
    const out = capture();
    createLogger('info', 'json', out).info({ request_id: 'req_1', status: 200 }, 'request done');
    expect(out.records()).toEqual([
      expect.objectContaining({ level: 30, service: 'stockless', request_id: 'req_1', msg: 'request done' }),
    ]);
  });

  it('pretty writes a readable line with the level, the message and the fields', async () => {
    const out = capture();
    const log = createLogger('info', 'pretty', out);
    log.info({ request_id: 'req_1', status: 200 }, 'request done');
    log.debug('not at info');
    // The pretty stream hands its lines on asynchronously.
    for (let i = 0; i < 50 && out.lines.length === 0; i++) await tick();
    expect(out.lines).toHaveLength(1);
    const line = out.lines[0] ?? '';
    expect(() => JSON.parse(line)).toThrow();
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*request done.*"request_id":"req_1"/);
    expect(line).not.toContain('stockless');
  });
});

describe('worker job logs', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const big = { note: 'x'.repeat(4000), customer: { email: 'buyer@example.com' } };
  const taskList = {
    log_test_ok: async () => {},
    log_test_fail: async () => {
      throw new Error('the endpoint said no');
    },
  };

  /** Runs one job of each task through the real Graphile Worker, logging at `level`. */
  async function runJobs(level: string) {
    const out = capture();
    const connectionString = app.databaseUrl;
    const log = createLogger(level, 'json', out).child({ component: 'worker' });
    const ok = await quickAddJob({ connectionString }, 'log_test_ok', big);
    const failed = await quickAddJob({ connectionString }, 'log_test_fail', big, { maxAttempts: 1 });
    await runOnce({ connectionString, taskList, logger: graphileLogger(log) });
    const about = (id: string) => out.records().filter((r) => r.job_id === id);
    return { out, ok: about(ok.id), failed: about(failed.id) };
  }

  it('at info: a failed job is one short line (task, id, attempts, duration, outcome), no payload; a success none', async () => {
    const { out, ok, failed } = await runJobs('info');
    // Successes are at debug; the worker's summary line counts them at info (test/runtime/worker-log.test.ts).
    expect(ok).toEqual([]);
    expect(failed).toEqual([
      expect.objectContaining({
        level: 50,
        task: 'log_test_fail',
        attempts: 1,
        max_attempts: 1,
        outcome: 'failed',
        err: expect.objectContaining({ message: 'the endpoint said no', stack: expect.any(String) }),
        msg: expect.stringMatching(
          /^log_test_fail job \d+ failed in [\d.]+ms \(attempt 1 of 1, no attempts left\): the endpoint said no$/,
        ),
      }),
    ]);
    for (const line of out.lines) {
      expect(line).not.toContain('xxxxxxxxxx');
      expect(line).not.toContain('buyer@example.com');
      expect(line.length).toBeLessThan(2000);
    }
    for (const r of failed) {
      expect(r).not.toHaveProperty('payload');
      expect(r).not.toHaveProperty('job');
    }
  });

  it('at debug: a succeeded job is one short line too, and the payloads are logged', async () => {
    const { ok, failed } = await runJobs('debug');
    expect(ok).toEqual([
      expect.objectContaining({
        level: 20,
        component: 'worker',
        task: 'log_test_ok',
        attempts: 1,
        max_attempts: 25,
        duration_ms: expect.any(Number),
        outcome: 'succeeded',
        msg: expect.stringMatching(/^log_test_ok job \d+ succeeded in [\d.]+ms$/),
        payload: big,
      }),
    ]);
    expect(failed).toContainEqual(expect.objectContaining({ outcome: 'failed', payload: big }));
  });
});
