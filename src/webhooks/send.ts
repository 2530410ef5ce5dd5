import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
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
      connect: { lookup: pinnedLookup(target.address, target.family), timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4000,
    });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One POST within the deadline. undici's `request` follows no redirects, so a 3xx is an answer like
 * any other; the response body is read to its end (bounded by the deadline) and ignored.
 */
export async function postWebhook(
  target: Target,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await request(target.url, {
      method: 'POST',
      dispatcher: agentFor(target, timeoutMs),
      headers: { 'content-type': 'application/json', 'user-agent': 'Stockless-Webhooks/1.0', ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
    return { kind: 'response', status: res.statusCode, durationMs: elapsed() };
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    const timedOut =
      e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
    const error = timedOut
      ? `no answer within ${timeoutMs} ms`
      : `${e.code ?? e.name ?? 'error'}: ${(e.message ?? '').slice(0, 200)}`;
    return { kind: 'error', error, durationMs: elapsed() };
  }
}

/** Closes the pooled connections (worker shutdown). */
export async function closeWebhookAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close().catch(() => {})));
}
