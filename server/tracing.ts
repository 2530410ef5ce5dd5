import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { setTracingOn } from '../src/tracing/spans.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { type TracingSettings, tracingSettingsOf } from './tracing-config.ts';

export interface Tracing {
  /** Exports what is buffered now (the bench counts the export in the traced side's cost). */
  flush(): Promise<void>;
  /** Exports what is buffered and stops: the last step of shutdown. */
  shutdown(): Promise<void>;
}

function samplerOf(s: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(s.ratio);
  switch (s.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** One provider per process, however many runtimes it starts (tests start several). */
let started: { provider: TracerProvider; users: number } | undefined;

/**
 * Registers the trace SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans batched to the OTLP/HTTP
 * exporter (JSON), W3C trace context in and out, and an AsyncLocalStorage context manager so a span
 * stays active across awaits. Nothing is registered otherwise: the API's no-op tracer stays in place
 * and src/tracing/spans.ts skips its work.
 */
export function startTracing(config: Config, log: Logger): Tracing | undefined {
  const settings = tracingSettingsOf(config);
  if (!settings) return undefined;
  if (!started) {
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
      sampler: samplerOf(settings),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: settings.url }),
          scheduledDelayMillis: settings.scheduledDelayMs,
        }),
      ],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    setTracingOn(true);
    started = { provider, users: 0 };
    log.info(
      { endpoint: settings.url, service: settings.serviceName },
      'tracing: spans export over OTLP/HTTP',
    );
  }
  const mine = started;
  mine.users++;
  let stopped = false;
  return {
    flush: () => mine.provider.forceFlush(),
    async shutdown() {
      if (stopped) return;
      stopped = true;
      if (--mine.users > 0) return;
      setTracingOn(false);
      started = undefined;
      await mine.provider
        .shutdown()
        .catch((err: unknown) => log.warn({ err }, 'tracing: final export failed'));
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
