import type { LookupFunction } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import type { Target } from './url-guard.ts';

export type SendResult =
  | { kind: 'response'; status: number; durationMs: number }
  | { kind: 'error'; error: string; durationMs: number };

const MAX_AGENTS = 256;
/** One keep-alive agent per (origin, checked address), so repeated deliveries reuse connections. */
const agents = new Map<string, Agent>();

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

let secureContext: SecureContext | undefined;
/**
 * One TLS context for every connection (the system's roots and NODE_EXTRA_CA_CERTS): without it, Node
 * builds a context per connection, a tenth of a worker's CPU when it opens hundreds of them.
 */
function sharedSecureContext(): SecureContext {
  secureContext ??= createSecureContext();
  return secureContext;
}

function agentFor(target: Target, timeoutMs: number): Agent {
  const key = `${target.url.origin}|${target.address}|${timeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value as [string, Agent];
      agents.delete(oldestKey);
      void oldest.close().catch(() => {});
    }
    agent = new Agent({
      // The checked address is the only one this agent ever connects to (no second DNS lookup).
      connect: {
        lookup: pinnedLookup(target.address, target.family),
        timeout: timeoutMs,
        secureContext: sharedSecureContext(),
      },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4000,
    });
    agents.set(key, agent);
  }
  return agent;
}

/** What a receiver may answer with before the rest is cut off; the body itself is never used. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Follows one exchange to its result, within the deadline: the answer's status is all a delivery
 * needs, so the body is counted and dropped as it arrives, with no stream or abort signal per
 * request. Once the status is in, the receiver has answered: what happens to the rest of its body
 * (too slow, too long, cut off) does not change the outcome.
 */
function watchExchange(timeoutMs: number, resolve: (r: SendResult) => void): Dispatcher.DispatchHandler {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let status = 0;
  let received = 0;
  let settled = false;
  let controller: Dispatcher.DispatchController | undefined;
  const finish = (result: SendResult) => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline);
    resolve(result);
  };
  const timedOut = () => ({
    kind: 'error' as const,
    error: `no answer within ${timeoutMs} ms`,
    durationMs: elapsed(),
  });
  const answered = () => ({ kind: 'response' as const, status, durationMs: elapsed() });
  const deadline = setTimeout(() => {
    finish(status ? answered() : timedOut());
    controller?.abort(new Error('deadline'));
  }, timeoutMs);
  return {
    onRequestStart(c) {
      controller = c;
      if (settled) c.abort(new Error('deadline'));
    },
    onResponseStart(_c, statusCode) {
      status = statusCode;
    },
    onResponseData(c, chunk) {
      received += chunk.length;
      if (received > MAX_RESPONSE_BYTES) {
        finish(answered());
        c.abort(new Error('response too large'));
      }
    },
    onResponseEnd() {
      finish(answered());
    },
    onResponseError(_c, err) {
      if (status) return finish(answered());
      const e = err as { name?: string; code?: string; message?: string };
      if (e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT')
        return finish(timedOut());
      const error = `${e.code ?? e.name ?? 'error'}: ${(e.message ?? '').slice(0, 200)}`;
      finish({ kind: 'error', error, durationMs: elapsed() });
    },
  };
}

/**
 * One POST within the deadline, the whole exchange included, dispatched straight to the agent.
 * undici follows no redirects, so a 3xx is an answer like any other; a receiver that talks for too
 * long, or sends more than 64 KiB, is cut off.
 */
export function postWebhook(
  target: Target,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  return new Promise<SendResult>((resolve) => {
    const handler = watchExchange(timeoutMs, resolve);
    try {
      agentFor(target, timeoutMs).dispatch(
        {
          origin: target.url.origin,
          path: `${target.url.pathname}${target.url.search}`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Stockless-Webhooks/1.0', ...headers },
          body,
        },
        handler,
      );
    } catch (err) {
      // No controller yet: the dispatch itself failed.
      handler.onResponseError?.(undefined as unknown as Dispatcher.DispatchController, err as Error);
    }
  });
}

/** Closes the pooled connections (worker shutdown). */
export async function closeWebhookAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close().catch(() => {})));
}
