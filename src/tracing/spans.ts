import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Our own spans, through the OpenTelemetry API only: the SDK, its exporter and the context manager
 * are registered by server/tracing.ts when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off (the default),
 * every helper here returns before touching the API, so an untraced process pays a boolean test.
 */
let on = false;

/** Set by server/tracing.ts once a provider, a propagator and a context manager are registered. */
export function setTracingOn(value: boolean): void {
  on = value;
}

export function tracingOn(): boolean {
  return on;
}

const tracer = trace.getTracer('stockless');

/** Where the HTTP server span of a request is kept in its context, so its procedure can name its route. */
export const SERVER_SPAN = createContextKey('stockless.server_span');

/** The value under SERVER_SPAN: the span and the method it was named by. */
export interface ServerSpan {
  span: Span;
  method: string;
}

export interface SpanSpec {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent: the active context unless given (ROOT_CONTEXT: a new trace). */
  parent?: Context;
}

/** Starts a span (tracing must be on: callers test `tracingOn()` first, to skip the work when off). */
export function startSpan(name: string, spec: SpanSpec = {}): Span {
  const { parent = context.active(), ...options } = spec;
  return tracer.startSpan(name, options, parent);
}

/** Marks a span failed with what was thrown (the error's class only: messages may carry a buyer's details). */
export function failSpan(span: Span, err: unknown): void {
  const type = err instanceof Error ? err.name : typeof err;
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * Runs `fn` inside a span that ends when it settles (failed if it throws); with tracing off, `fn`
 * alone. The span is the active one for everything `fn` awaits.
 */
export async function inSpan<T>(name: string, spec: SpanSpec, fn: (span?: Span) => Promise<T>): Promise<T> {
  if (!on) return fn();
  const span = startSpan(name, spec);
  try {
    return await context.with(trace.setSpan(spec.parent ?? context.active(), span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** The W3C `traceparent` of a context (the active one by default): to carry in a row or a header. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

/** The context a stored or received `traceparent` names; undefined when absent or malformed. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context | undefined {
  if (!on || !traceparent) return undefined;
  const ctx = propagation.extract(ROOT_CONTEXT, { traceparent });
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

/** Whether a span is being recorded in the active context (statements outside one are not traced). */
export function inRecordedSpan(): boolean {
  return on && trace.getSpan(context.active())?.isRecording() === true;
}
