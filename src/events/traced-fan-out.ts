import { context, ROOT_CONTEXT, type Span, SpanKind, trace } from '@opentelemetry/api';
import { linksTo } from '../tracing/job-spans.ts';
import { contextOfTraceparent, failSpan, startSpan, traceparentOf, tracingOn } from '../tracing/spans.ts';
import type { DispatchedEvent, EventFanOut } from './dispatch.ts';

/**
 * The dispatcher's fan-out, traced (docs/decisions.md, "Trace context through the outbox"). One
 * dispatcher job serves the events of many requests, so the job's span is a trace of its own, linked
 * to theirs; each event gets a `dispatch` span and a `fan-out` span under the request that recorded it
 * (its row's `traceparent`), and the fan-out's context is what the stored webhook event carries to its
 * delivery attempts. Tracing off in this process: no context is passed on, whatever the rows hold.
 */
export function tracedFanOut(fanOut: EventFanOut): EventFanOut {
  return async (tx, events) => {
    if (!tracingOn())
      return fanOut(
        tx,
        events.map((e) => ({ ...e, traceparent: null })),
      );
    const job = trace.getActiveSpan();
    job?.addLinks(linksTo(events.map((e) => e.traceparent)));
    const spans: Span[] = [];
    const traced = events.map((e): DispatchedEvent => {
      const dispatch = startSpan(`dispatch ${e.event}`, {
        kind: SpanKind.CONSUMER,
        parent: contextOfTraceparent(e.traceparent) ?? context.active(),
        links: job ? [{ context: job.spanContext() }] : [],
        attributes: {
          'messaging.system': 'graphile_worker',
          'messaging.operation.type': 'process',
          'messaging.destination.name': 'dispatch_events',
          'messaging.message.id': e.id,
          'messaging.batch.message_count': events.length,
          'stockless.event': e.event,
        },
      });
      const fan = startSpan(`fan-out ${e.event}`, { parent: trace.setSpan(ROOT_CONTEXT, dispatch) });
      spans.push(fan, dispatch);
      return { ...e, traceparent: traceparentOf(trace.setSpan(ROOT_CONTEXT, fan)) ?? null };
    });
    try {
      await fanOut(tx, traced);
    } catch (err) {
      for (const span of spans) failSpan(span, err);
      throw err;
    } finally {
      for (const span of spans) span.end();
    }
  };
}
