import { z } from 'zod';

/** An OTLP/HTTP endpoint: the collector's base URL (…:4318) or, for traces alone, its full path. */
const otlpUrl = z.url({ protocol: /^https?$/ });

/**
 * OpenTelemetry's standard variables that this service reads (docs/tracing.md). Tracing is on only when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only one) is set; the exporter reads its own
 * OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION from the environment.
 */
export const tracingFields = {
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl.optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default('stockless'),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  // The batch processor's delay between exports, in ms (the SDK's default is 5000).
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(600_000).default(5000),
};

export interface TracingSettings {
  /** Where spans are POSTed (…/v1/traces). */
  url: string;
  serviceName: string;
  sampler: z.output<typeof tracingFields.OTEL_TRACES_SAMPLER>;
  ratio: number;
  scheduledDelayMs: number;
}

/** The tracing settings of a config, or undefined when no endpoint is set (tracing off). */
export function tracingSettingsOf(
  cfg: z.output<z.ZodObject<typeof tracingFields>>,
): TracingSettings | undefined {
  const base = cfg.OTEL_EXPORTER_OTLP_ENDPOINT;
  // As the specification says: the signal's own endpoint is used as is, the base one gets /v1/traces.
  const url = cfg.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base && `${base.replace(/\/+$/, '')}/v1/traces`);
  if (!url) return undefined;
  return {
    url,
    serviceName: cfg.OTEL_SERVICE_NAME,
    sampler: cfg.OTEL_TRACES_SAMPLER,
    ratio: cfg.OTEL_TRACES_SAMPLER_ARG,
    scheduledDelayMs: cfg.OTEL_BSP_SCHEDULE_DELAY,
  };
}
