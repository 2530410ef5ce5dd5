import pg from 'pg';

/**
 * One connection of its own for a probe (replica lag, readiness), apart from the pools requests use: a
 * pool saturated by requests must not make the probe wait, or it would report a lagging primary, a
 * replica down or a process unready exactly when load is highest. Connects when first asked, and
 * again after any failure.
 */
export class ProbeClient {
  readonly #url: string;
  readonly #timeoutMs: number;
  readonly #name: string;
  #client: Promise<pg.Client> | undefined;

  constructor(url: string, timeoutMs: number, name = 'stockless-probe') {
    this.#url = url;
    this.#timeoutMs = timeoutMs;
    this.#name = name;
  }

  /** One statement's rows within the timeout; a failure or no answer drops the connection. */
  async query<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
    try {
      const client = await this.#connected();
      const result = await withTimeout(client.query<T>(text), this.#timeoutMs);
      return result.rows;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.then((c) => c.end()).catch(() => {});
  }

  #connected(): Promise<pg.Client> {
    this.#client ??= (async () => {
      const client = new pg.Client({
        connectionString: this.#url,
        connectionTimeoutMillis: this.#timeoutMs,
        application_name: this.#name,
      });
      // A connection lost between probes is found by the next query; this only keeps Node from throwing.
      client.on('error', () => {});
      await client.connect();
      return client;
    })();
    return this.#client;
  }
}

export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
