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

/** Bulk exports (src/exports/): where files go and how long they and their urls live. */
export interface ExportSettings {
  /** The local file store's directory (EXPORT_DIR; default `<DATA_DIR>/exports`). */
  dir: string;
  /** How long a signed download url is valid (EXPORT_URL_TTL, default 1h). */
  urlTtlMs: number;
  /** How long a completed export's file is kept (EXPORT_RETENTION, default and at most 7 days). */
  retentionMs: number;
  /** Exports a store may create per mode in 24 hours (EXPORTS_PER_DAY, default 50). */
  perDay: number;
  /** Rows read per keyset batch of the job (EXPORT_BATCH, default 2,000). */
  batch: number;
}

/** The defaults, for callers built without config (in-process tests). */
export const DEFAULT_EXPORT_SETTINGS: ExportSettings = {
  dir: '.data/exports',
  urlTtlMs: 3_600_000,
  retentionMs: 7 * 86_400_000,
  perDay: 50,
  batch: 2000,
};
