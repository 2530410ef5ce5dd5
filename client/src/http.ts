import { StocklessConnectionError, StocklessError } from './errors.ts';
import { type Operations, operations } from './generated/openapi-types.ts';

export type OperationId = keyof Operations;

/** What a call sends: path parameters, query and JSON body, as the contract types them. */
export interface CallInput<K extends OperationId> {
  path?: Operations[K]['pathParams'];
  query?: Operations[K]['query'];
  body?: Operations[K]['body'];
  signal?: AbortSignal;
  /** The write's `Idempotency-Key` (default: a new random key per call, kept across its retries). */
  idempotencyKey?: string;
}

export interface RetryOptions {
  /**
   * Retries after a network error, a 429, a 409 `IDEMPOTENCY_KEY_IN_USE` or `CONCURRENT_UPDATE`, or a
   * 500/502/503/504
   * (default 2; 0 turns retrying off).
   */
  maxRetries?: number;
  /**
   * Also retry writes (default true: every write carries an `Idempotency-Key`, the same on each
   * attempt, so the API runs it at most once). `false` never repeats a write.
   */
  writes?: boolean;
  /** Longest wait honoured, in ms (default 60 000); a longer `Retry-After` is thrown as the error. */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  token: string;
  fetch?: typeof globalThis.fetch;
  retry?: RetryOptions | false;
  headers?: Record<string, string>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** `Retry-After` as milliseconds: delay-seconds (fractions allowed) or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function serialiseQuery(query: object | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function fillPath(template: string, params: object | undefined): string {
  const values = (params ?? {}) as Record<string, unknown>;
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === null) throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** Sends contract operations: bearer auth, JSON in and out, typed errors, 429 retries. */
export class Transport {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #retry: Required<RetryOptions>;
  readonly #headers: Record<string, string>;

  constructor(options: TransportOptions) {
    // The contract's paths carry /api/v1 themselves; accept a base URL given with it too.
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.#token = options.token;
    this.#fetch = options.fetch;
    const retry = options.retry === false ? { maxRetries: 0 } : (options.retry ?? {});
    this.#retry = { maxRetries: 2, writes: true, maxDelayMs: 60_000, ...retry };
    this.#headers = options.headers ?? {};
  }

  async call<K extends OperationId>(id: K, input: CallInput<K> = {}): Promise<Operations[K]['response']> {
    const op = operations[id];
    const url = `${this.baseUrl}${fillPath(op.path, input.path)}${serialiseQuery(input.query)}`;
    const headers: Record<string, string> = {
      ...this.#headers,
      authorization: `Bearer ${this.#token}`,
      accept: op.response === 'bytes' ? 'application/pdf, application/json' : 'application/json',
    };
    let body: string | undefined;
    if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body);
    }
    const write = op.method !== 'GET';
    // One key for every attempt of this call: a retry the API already ran answers its first result.
    if (write) headers['idempotency-key'] = input.idempotencyKey ?? crypto.randomUUID();
    const retries = !write || this.#retry.writes ? this.#retry.maxRetries : 0;

    for (let attempt = 0; ; attempt++) {
      // Looked up per call, so a fetch patched after construction (msw, instrumentation) is used.
      const fetchImpl = this.#fetch ?? globalThis.fetch;
      let res: Response;
      try {
        res = await fetchImpl(url, { method: op.method, headers, body, signal: input.signal });
      } catch (err) {
        // A network failure (the request may or may not have arrived): the same key makes it safe.
        if (input.signal?.aborted) throw err;
        if (attempt >= retries) throw new StocklessConnectionError(op.method, url, err);
        await sleep(this.#backoff(attempt), input.signal);
        continue;
      }
      if (res.ok) {
        if (op.response === 'bytes')
          return new Uint8Array(await res.arrayBuffer()) as Operations[K]['response'];
        const text = await res.text();
        return (text ? JSON.parse(text) : undefined) as Operations[K]['response'];
      }
      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      if (attempt < retries && (await retryable(res))) {
        const delay = retryAfter ?? this.#backoff(attempt);
        if (delay <= this.#retry.maxDelayMs) {
          await res.body?.cancel();
          await sleep(delay, input.signal);
          continue;
        }
      }
      throw await StocklessError.fromResponse(res, retryAfter === undefined ? undefined : retryAfter / 1000);
    }
  }

  /** Exponential backoff with full jitter: 0–500 ms, 0–1 s, 0–2 s, … capped at maxDelayMs. */
  #backoff(attempt: number): number {
    return Math.random() * Math.min(500 * 2 ** attempt, this.#retry.maxDelayMs);
  }
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** Whether an answer says "try again": overload, a transient failure, or the same write still running. */
async function retryable(res: Response): Promise<boolean> {
  if (RETRYABLE_STATUS.has(res.status)) return true;
  if (res.status !== 409) return false;
  const body = (await res
    .clone()
    .json()
    .catch(() => undefined)) as { code?: string } | undefined;
  return body?.code === 'IDEMPOTENCY_KEY_IN_USE' || body?.code === 'CONCURRENT_UPDATE';
}
