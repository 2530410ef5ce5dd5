import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { contextOfTraceparent, startSpan, tracingOn } from '../../tracing/spans.ts';
import type { Claimed } from './round.ts';

/** What the span records of an attempt (attempt-delivery.ts's `Attempted`). */
interface AttemptResult {
  outcome: string;
  status: number | null;
  error: string | null;
}

/**
 * The subscription's URL as its origin alone: a receiver may put its secret in the query, and some
 * (Slack's and Discord's incoming webhooks) in the path itself.
 */
function shownUrl(raw: string): { full: string; host: string; port: number } | undefined {
  const url = URL.parse(raw);
  if (!url) return undefined;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return { full: url.origin, host: url.hostname, port };
}

/**
 * One delivery attempt as an HTTP client span, a child of the event's dispatch when the event was
 * traced (else a trace of its own), and the headers that carry its context to the receiver
 * (`traceparent`, and `tracestate` when there is one): the receiver's spans join the trace. Tracing
 * off: no span, no header.
 */
export async function inAttemptSpan<T extends AttemptResult>(
  d: Claimed,
  attempt: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return attempt({});
  const url = shownUrl(d.url);
  const parent = contextOfTraceparent(d.traceparent) ?? ROOT_CONTEXT;
  const span = startSpan('POST', {
    kind: SpanKind.CLIENT,
    parent,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      ...(url && {
        [ATTR_URL_FULL]: url.full,
        [ATTR_SERVER_ADDRESS]: url.host,
        [ATTR_SERVER_PORT]: url.port,
      }),
      // Semantic conventions: the attempt's number among the request's resends (0: the first).
      'http.request.resend_count': d.attempts,
      'stockless.event': d.event,
      'stockless.webhook.subscription_id': d.subscription_id,
      'stockless.webhook.delivery_id': d.id,
    },
  });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), headers);
  try {
    const result = await attempt(headers);
    span.setAttribute('stockless.webhook.outcome', result.outcome);
    if (result.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
    if (result.outcome !== 'succeeded') {
      const type = result.status !== null ? String(result.status) : result.outcome;
      span.setAttribute(ATTR_ERROR_TYPE, type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? type });
    }
    return result;
  } finally {
    span.end();
  }
}
