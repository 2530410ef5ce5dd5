/**
 * Settings that several domains and the transports share, kept at the bottom of the layers so any
 * of them can name these types without importing another domain (docs/architecture.md).
 */

/** Who issues invoices and mail: Stockless is the merchant of record. */
export interface Merchant {
  name: string;
  abn: string;
  address: string;
  email: string;
}

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
