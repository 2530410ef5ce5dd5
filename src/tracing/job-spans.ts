import { type Link, ROOT_CONTEXT, type SpanContext, SpanKind, trace } from '@opentelemetry/api';
import { contextOfTraceparent, inSpan, traceparentOf } from './spans.ts';

/** Graphile Worker's jobs, as messaging spans name their system. */
const MESSAGING = { 'messaging.system': 'graphile_worker' };

/**
 * Runs a transaction's enqueue of job `name` (and the rows it will read: events) in a producer span,
 * handing `fn` the span's `traceparent` to store with those rows (null when tracing is off): the job
 * that takes them continues the trace from there.
 */
export function inEnqueueSpan<T>(name: string, fn: (traceparent: string | null) => Promise<T>): Promise<T> {
  return inSpan(
    `send ${name}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: { ...MESSAGING, 'messaging.operation.type': 'send', 'messaging.destination.name': name },
    },
    () => fn(traceparentOf() ?? null),
  );
}

/** Links to the stored contexts of what a batch job took, at most this many (a span's links are kept in memory). */
const MAX_LINKS = 128;

/** Span links to the distinct, valid contexts among `traceparents`. */
export function linksTo(traceparents: readonly (string | null | undefined)[]): Link[] {
  const seen = new Map<string, SpanContext>();
  for (const tp of traceparents) {
    if (!tp || seen.has(tp) || seen.size >= MAX_LINKS) continue;
    const ctx = contextOfTraceparent(tp);
    const span = ctx && trace.getSpanContext(ctx);
    if (span) seen.set(tp, span);
  }
  return [...seen.values()].map((context) => ({ context }));
}

/**
 * Runs a job in a consumer span of a trace of its own (a job is started by the queue, not by one
 * request), linked to `links`: the requests whose rows it took.
 */
export function inJobSpan<T>(name: string, links: Link[], fn: () => Promise<T>): Promise<T> {
  return inSpan(
    `process ${name}`,
    {
      kind: SpanKind.CONSUMER,
      parent: ROOT_CONTEXT,
      links,
      attributes: { ...MESSAGING, 'messaging.operation.type': 'process', 'messaging.destination.name': name },
    },
    fn,
  );
}
