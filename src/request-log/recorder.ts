import type { EntityManager } from '@mikro-orm/postgresql';
import Denque from 'denque';
import type { DescribeOperation, RequestRecord } from './entry.ts';
import { writeBatch } from './write-batch.ts';

export interface RecorderOptions {
  /** A new EntityManager for each batch. */
  em: () => EntityManager;
  /** The contract's operation of a request (operationId, declared query parameters). */
  describe?: DescribeOperation;
  log: {
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
  /** How long a request may wait in the buffer before its batch is written (ms). */
  flushMs?: number;
  /** Rows per INSERT; a buffer this full is written at once. */
  batchRows?: number;
  /** Rows the buffer holds at most: past it the oldest go, counted in a log line. */
  capacity?: number;
}

export const FLUSH_MS = 200;
export const BATCH_ROWS = 500;
export const CAPACITY = 20_000;

/**
 * The request log's writer, one per API process: `record` only appends to an in-memory buffer (what a
 * request pays), and the buffer is written in multi-row INSERTs every `flushMs` or every `batchRows`
 * rows, by one writer at a time. Bounded: a database that cannot keep up (or is down) costs the oldest
 * rows, counted in a warning, never a request's time or its answer. `close` writes what is left
 * (graceful shutdown).
 */
export class RequestRecorder {
  readonly #o: Required<Omit<RecorderOptions, 'describe'>> & Pick<RecorderOptions, 'describe'>;
  // A ring: past capacity each new row drops the oldest in constant time, however full it is.
  #buffer = new Denque<RequestRecord>();
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #closed = false;

  constructor(options: RecorderOptions) {
    this.#o = { flushMs: FLUSH_MS, batchRows: BATCH_ROWS, capacity: CAPACITY, ...options };
  }

  /** Keeps a finished request for the next batch. Never throws, never waits. */
  record(entry: RequestRecord): void {
    if (this.#closed) return;
    this.#buffer.push(entry);
    while (this.#buffer.size() > this.#o.capacity) {
      this.#buffer.shift();
      this.#dropped += 1;
    }
    if (this.#buffer.size() >= this.#o.batchRows) this.#startWriting();
    else this.#schedule();
  }

  /** Names each row's operation when its batch is written (the edge's route table, known once it is built). */
  describeWith(describe: DescribeOperation): void {
    this.#o.describe = describe;
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.#buffer.size();
  }

  /** Writes everything recorded so far (and waits for a batch already being written). */
  async flush(): Promise<void> {
    while (this.#writing || this.#buffer.size() > 0) {
      this.#startWriting();
      await this.#writing;
    }
  }

  /** Graceful shutdown: records nothing more, writes what is left. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  #schedule() {
    if (this.#timer || this.#writing) return;
    this.#timer = setTimeout(() => this.#startWriting(), this.#o.flushMs);
    // Waiting rows never keep a process alive: shutdown calls close().
    this.#timer.unref();
  }

  #startWriting() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#writing || this.#buffer.isEmpty()) return;
    this.#writing = this.#writeAll().finally(() => {
      this.#writing = undefined;
      if (this.#buffer.size() > 0 && !this.#closed) this.#schedule();
    });
  }

  async #writeAll() {
    this.#reportDropped();
    while (this.#buffer.size() > 0) {
      const batch = this.#buffer.remove(0, this.#o.batchRows) ?? [];
      try {
        await writeBatch(this.#o.em(), batch, this.#o.describe);
      } catch (err) {
        // The batch is lost, not retried: a database that refuses it would refuse it again.
        this.#o.log.error({ err, rows: batch.length }, 'request log: a batch could not be written');
        return;
      }
      if (this.#buffer.size() < this.#o.batchRows) return;
    }
  }

  #reportDropped() {
    if (this.#dropped === 0) return;
    this.#o.log.warn(
      { dropped: this.#dropped, capacity: this.#o.capacity },
      'request log: buffer full, oldest requests dropped',
    );
    this.#dropped = 0;
  }
}
