import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { tracingSettingsOf } from '../../server/tracing-config.ts';
import { TEST_SECRET_KEY } from '../helpers/app.ts';

/** OpenTelemetry's standard variables, validated like every other setting (server/config.ts). */

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error(`expected ConfigError for ${JSON.stringify(env)}`);
}

describe('tracing settings', () => {
  it('are off unless an OTLP endpoint is set', () => {
    expect(tracingSettingsOf(loadConfig({}))).toBeUndefined();
    expect(tracingSettingsOf(loadConfig({ OTEL_SERVICE_NAME: 'api' }))).toBeUndefined();
  });

  it('send to <endpoint>/v1/traces, or to the traces endpoint as given, under OTEL_SERVICE_NAME', () => {
    expect(tracingSettingsOf(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }))).toEqual({
      url: 'http://collector:4318/v1/traces',
      serviceName: 'stockless',
      sampler: 'parentbased_always_on',
      ratio: 1,
      scheduledDelayMs: 5000,
    });
    const own = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp/traces',
      OTEL_SERVICE_NAME: 'stockless-api',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(tracingSettingsOf(own)).toMatchObject({
      url: 'https://traces.example/otlp/traces',
      serviceName: 'stockless-api',
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    });
  });

  it('refuse what is not a URL, a sampler or a ratio, naming the variable', () => {
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' })).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(refusal({ OTEL_TRACES_SAMPLER: 'sometimes' })).toContain('OTEL_TRACES_SAMPLER');
    expect(refusal({ OTEL_TRACES_SAMPLER_ARG: '2' })).toContain('OTEL_TRACES_SAMPLER_ARG');
    expect(refusal({ OTEL_BSP_SCHEDULE_DELAY: '0' })).toContain('OTEL_BSP_SCHEDULE_DELAY');
  });

  it('a bad endpoint stops the start with status 2 and the variable named, no stack', async () => {
    const run = promisify(execFile);
    const ended = await run(process.execPath, ['server/main.ts', 'serve'], {
      env: {
        ...process.env,
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'silent',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'nope',
      },
      timeout: 30_000,
    }).then(
      () => ({ code: 0, output: '' }),
      (err: { code?: number; stderr?: string }) => ({ code: err.code, output: err.stderr ?? '' }),
    );
    expect(ended.code).toBe(2);
    expect(ended.output).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(ended.output).not.toMatch(/\n\s+at /);
  }, 40_000);
});
