import type { Operations } from './generated/openapi-types.ts';

/** An export, as the API answers it. */
export type Export = Operations['getExport']['response']['export'];
export type ExportType = Export['type'];

/** What each line of an export is: exactly the item of the list endpoint its type names. */
export interface ExportLines {
  catalogue: Operations['listProducts']['response']['products'][number];
  listings: Operations['listMyProducts']['response']['products'][number];
  orders: Operations['listOrders']['response']['orders'][number];
}

export interface ExportWaitOptions {
  /** Between two looks at the export (default 1 s). */
  intervalMs?: number;
  /** Gives up after this long (default 30 min). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** An export that ended without a file: failed, or expired before it was read. */
export class StocklessExportError extends Error {
  override readonly name = 'StocklessExportError';
  readonly export: Export;
  constructor(exp: Export) {
    super(
      exp.status === 'failed'
        ? `export ${exp.id} failed: ${exp.error?.code ?? ''} ${exp.error?.message ?? ''}`.trim()
        : `export ${exp.id} is ${exp.status}: it has no file`,
    );
    this.export = exp;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** Polls the export until it completes; throws StocklessExportError when it fails or expired. */
export async function waitForExport(
  retrieve: (id: string) => Promise<{ export: Export }>,
  id: string,
  o: ExportWaitOptions = {},
): Promise<Export> {
  const deadline = Date.now() + (o.timeoutMs ?? 30 * 60_000);
  for (;;) {
    const { export: exp } = await retrieve(id);
    if (exp.status === 'completed') return exp;
    if (exp.status === 'failed' || exp.status === 'expired') throw new StocklessExportError(exp);
    if (Date.now() > deadline) throw new Error(`export ${id} did not complete in time (${exp.status})`);
    await sleep(o.intervalMs ?? 1000, o.signal);
  }
}

/**
 * The lines of a completed export's file, parsed one at a time as they stream in (gunzipped with
 * DecompressionStream), so memory stays flat whatever the file's size. The url needs no credential.
 */
export async function* readExportLines<T>(
  fetchImpl: typeof globalThis.fetch,
  exp: Export,
  signal?: AbortSignal,
): AsyncGenerator<T> {
  if (!exp.url) throw new StocklessExportError(exp);
  const res = await fetchImpl(exp.url, { signal });
  if (!res.ok || !res.body) throw new Error(`export ${exp.id}: download answered ${res.status}`);
  const text = res.body.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream());
  let rest = '';
  for await (const chunk of text as unknown as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) if (line !== '') yield JSON.parse(line) as T;
  }
  if (rest !== '') yield JSON.parse(rest) as T;
}
