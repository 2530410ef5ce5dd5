/** What the webhook engine and the management checks need from config. */
export interface WebhookSettings {
  /** CIDR ranges exempt from the public-address rule (development and tests only). */
  allowPrivate: readonly string[];
  /** The waits before each retry; the first delivery is immediate. */
  retrySchedule: readonly number[];
  coalesceWindowMs: number;
  /** The whole-request deadline of one attempt. */
  timeoutMs: number;
  /** Attempts in flight at once per worker process. */
  concurrency: number;
  /** SECRET_KEY (hex), from which the secrets-at-rest key is derived. */
  secretKey: string;
}

/** Consecutive dead-lettered events after which a subscription is switched off. */
export const DEAD_LETTER_LIMIT = 20;
/** Attempts in flight at once towards one subscription, so one slow receiver cannot take every slot. */
export const PER_SUBSCRIPTION_IN_FLIGHT = 5;
export const MAX_SUBSCRIPTIONS_PER_STORE = 10;
export const DELIVERY_LOG_SIZE = 100;
