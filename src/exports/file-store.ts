import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** A file being written: its stream, then `commit` makes it the key's file (or `abort` drops it). */
export interface PendingFile {
  stream: Writable;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Where export files live. Local disk by default (LocalFileStore); an S3-compatible store is the
 * production choice for several machines (docs/decisions.md, "Bulk export: the file store"): `create`
 * is a multipart upload completed by `commit` (aborted by `abort`), `open` a GetObject stream with its
 * ContentLength, `remove` a DeleteObject. A key is written whole or not at all, so a retried job
 * overwrites its own key and never leaves two files.
 */
export interface ExportFileStore {
  create(key: string): Promise<PendingFile>;
  /** The file and its size, or undefined when there is none. */
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  size(key: string): Promise<number | undefined>;
  /** Deletes the key's file; none is fine. */
  remove(key: string): Promise<void>;
}

/** Keys are ours (`exp_<id>.jsonl.gz`), never a partner's text: this refuses anything else. */
function checked(key: string): string {
  if (!/^exp_\d{1,19}\.jsonl\.gz$/.test(key)) throw new Error(`not an export file key: ${key}`);
  return key;
}

/** Files in one directory: written as `<key>.part`, renamed into place on commit (atomic on one disk). */
export class LocalFileStore implements ExportFileStore {
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  async create(key: string): Promise<PendingFile> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, checked(key));
    const part = `${path}.part`;
    return {
      stream: createWriteStream(part),
      commit: () => this.commit(part, path),
      abort: () => rm(part, { force: true }),
    };
  }

  /**
   * Durable before it is the key's: the file's data, then the rename in its directory, are on disk
   * before the export is marked completed (a power loss cannot leave a short file called complete).
   */
  private async commit(part: string, path: string): Promise<void> {
    await syncPath(part);
    await rename(part, path);
    await syncPath(this.dir);
  }

  /**
   * Opened before its size is read, so a file retention deletes mid-download is still read whole (the
   * open descriptor keeps it), and one already gone is `undefined` (404), never a reset.
   */
  async open(key: string) {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(join(this.dir, checked(key)), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const { size } = await handle.stat();
    return { stream: handle.createReadStream(), size };
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(join(this.dir, checked(key)))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    // A key's unfinished write goes with it (a job that died mid-file leaves its `.part`).
    const path = join(this.dir, checked(key));
    await Promise.all([rm(path, { force: true }), rm(`${path}.part`, { force: true })]);
  }
}

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const fileKeyOf = (rowId: string) => `exp_${rowId}.jsonl.gz`;
