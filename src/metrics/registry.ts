import { Counter, Histogram, Registry } from 'prom-client';

/**
 * The service's own metrics registry (never prom-client's global one, which any library may fill):
 * what `GET /metrics` on the metrics listener answers (server/metrics/listener.ts). One per process;
 * a process that serves and works (`npm start`) answers both sides' metrics from it.
 */
export const registry = new Registry();

/**
 * Limits the shared limiter counts under (src/ratelimit/keys.ts), by the key's prefix: a label from
 * this set only, so a key (which names a store, a client or an address) never becomes one.
 */
const LIMIT_NAMES = new Set([
  'app',
  'mcp',
  'inventory',
  'external_orders',
  'oauth_token',
  'oauth_register',
  'discovery',
  'signin',
]);

export const rateLimitRefusals = new Counter({
  name: 'stockless_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit (429), by the limit that refused them.',
  labelNames: ['limit'] as const,
  registers: [registry],
});

/** Counts a refusal under its limit's name: the key's first part, after a test-mode prefix. */
export function countRefusal(key: string): void {
  const name = key.replace(/^test:/, '').split(':', 1)[0] ?? '';
  rateLimitRefusals.inc({ limit: LIMIT_NAMES.has(name) ? name : 'other' });
}

export const webhookAttempts = new Counter({
  name: 'stockless_webhook_attempts_total',
  help:
    'Webhook delivery attempts written by this worker, by outcome: succeeded (2xx), failed (other status, ' +
    'timeout, network), gone (410, the subscription is switched off), refused (the URL failed the address rules).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookDeadLetters = new Counter({
  name: 'stockless_webhook_dead_letters_total',
  help: 'Deliveries that ran out of attempts (dead-lettered) in this worker.',
  registers: [registry],
});

export const webhookDeliveryLag = new Histogram({
  name: 'stockless_webhook_delivery_lag_seconds',
  help:
    "From the event's commit (its envelope's created_at) to the receiver's 2xx being written, per " +
    'successful delivery.',
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
  registers: [registry],
});
