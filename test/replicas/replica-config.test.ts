import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { lsnValue } from '../../server/replicas/lsn.ts';
import { PrimarySamples } from '../../server/replicas/primary-samples.ts';
import { probeIntervalMs } from '../../server/replicas/replica-set.ts';
import { TEST_SECRET_KEY } from '../helpers/app.ts';

const PRIMARY = 'postgres://u:p@db:5432/stockless';

describe('DATABASE_REPLICA_URLS and REPLICA_MAX_LAG', () => {
  it('reads a comma-separated list, and a lag bound with a 1 s default', () => {
    const cfg = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_REPLICA_URLS: ' postgres://u:p@r1:5432/stockless ,postgresql://u:p@r2/stockless,',
    });
    expect(cfg.DATABASE_REPLICA_URLS).toEqual([
      'postgres://u:p@r1:5432/stockless',
      'postgresql://u:p@r2/stockless',
    ]);
    expect(cfg.REPLICA_MAX_LAG).toBe(1000);
    expect(loadConfig({}).DATABASE_REPLICA_URLS).toEqual([]);
    expect(loadConfig({ REPLICA_MAX_LAG: '250ms' }).REPLICA_MAX_LAG).toBe(250);
  });

  it('refuses what is no postgres URL, without printing its password', () => {
    const bad = () => loadConfig({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: 'mysql://u:secret@r1/x' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/DATABASE_REPLICA_URLS: entry 1 of 1 is not a postgres:\/\/ URL/);
    expect(bad).not.toThrow(/secret/);
    // A comma or a slash in a password split or end the value where masking would look for it.
    for (const urls of [`${PRIMARY},postgres://u:se,cret@r2/x`, 'postgres://u:se/cret@r2/x']) {
      const split = () => loadConfig({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: urls });
      expect(split).toThrow(/is not a postgres:\/\/ URL/);
      expect(split).not.toThrow(/cret/);
    }
  });

  it('refuses replicas without DATABASE_URL (the embedded server has none) and a lag bound out of range', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://u:p@r1/x' })).toThrow(
      /DATABASE_REPLICA_URLS: .*set DATABASE_URL too/,
    );
    expect(() => loadConfig({ REPLICA_MAX_LAG: '5ms' })).toThrow(
      /REPLICA_MAX_LAG: must be between 10ms and 10m/,
    );
    expect(() => loadConfig({ REPLICA_MAX_LAG: 'soon' })).toThrow(/REPLICA_MAX_LAG: not a positive duration/);
  });

  it('a bad value stops `serve` with status 2 and one line naming the setting', async () => {
    const run = promisify(execFile);
    const ended = await run(process.execPath, ['server/main.ts', 'serve'], {
      env: {
        ...process.env,
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'silent',
        PORT: '0',
        DATABASE_URL: PRIMARY,
        DATABASE_REPLICA_URLS: 'replica-1:5432',
      },
      timeout: 60_000,
    }).then(
      () => ({ code: 0, output: '' }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code,
        output: `${e.stdout ?? ''}${e.stderr ?? ''}`,
      }),
    );
    expect(ended.code).toBe(2);
    expect(ended.output).toContain('DATABASE_REPLICA_URLS: entry 1 of 1 is not a postgres:// URL');
    expect(ended.output).not.toMatch(/\n\s+at /);
  });
});

describe('replica lag, measured against samples of the primary', () => {
  it('orders LSNs as PostgreSQL does', () => {
    expect(lsnValue('0/16B3748') < lsnValue('1/0')).toBe(true);
    expect(lsnValue('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(() => lsnValue('16-B374')).toThrow(/not a pg_lsn/);
  });

  it('a replica is as fresh as the newest primary sample its replay covers', () => {
    const samples = new PrimarySamples(10_000);
    samples.add({ at: 1000, value: 100n });
    samples.add({ at: 2000, value: 200n });
    samples.add({ at: 3000, value: 300n });
    expect(samples.newestAtOrBelow(250n)?.at).toBe(2000);
    expect(samples.newestAtOrBelow(300n)?.at).toBe(3000);
    expect(samples.newestAtOrBelow(99n)).toBeUndefined();
    // Past the horizon samples go, but the newest always stays.
    samples.add({ at: 20_000, value: 300n });
    expect(samples.newestAtOrBelow(250n)).toBeUndefined();
    expect(samples.newestAtOrBelow(300n)?.at).toBe(20_000);
  });

  it('probes every quarter of the bound, between 50 ms and 1 s', () => {
    expect(probeIntervalMs(1000)).toBe(250);
    expect(probeIntervalMs(10)).toBe(50);
    expect(probeIntervalMs(60_000)).toBe(1000);
  });
});

describe('which procedures read from a replica (docs/scaling.md §4, the table)', () => {
  it('exactly the partner reads the table names, each a GET', async () => {
    const { appRouter } = await import('../../src/router.ts');
    const { proceduresMeta } = await import('../../src/trpc/meta.ts');
    const routed = [...proceduresMeta(appRouter)].filter(([, meta]) => meta.readsFrom === 'replica');
    for (const [path, meta] of routed) expect(meta.openapi?.method, path).toBe('GET');
    expect(routed.map(([, meta]) => meta.openapi?.path).sort()).toEqual(
      [
        '/api/v1/products',
        '/api/v1/products/facets',
        '/api/v1/products/{id}',
        '/api/v1/my-products',
        '/api/v1/my-products/{productId}',
        '/api/v1/orders',
        '/api/v1/orders/{id}',
        '/api/v1/vendor/me',
        '/api/v1/inventory',
        '/api/v1/requests',
        '/api/v1/requests/{request_id}',
        '/api/v1/exports',
        '/api/v1/exports/{id}',
      ].sort(),
    );
  });
});
