import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { LocalFileStore } from '../../src/exports/file-store.ts';

const KEY = 'exp_7.jsonl.gz';

async function written(files: LocalFileStore, body: string) {
  const pending = await files.create(KEY);
  await pipeline(Readable.from([body]), pending.stream);
  await pending.commit();
}

describe('the local file store', () => {
  it('reads a file whole when retention deletes it mid-download, and answers none once it is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stockless-files-'));
    const files = new LocalFileStore(dir);
    const body = 'x'.repeat(200_000);
    await written(files, body);
    const file = await files.open(KEY);
    expect(file?.size).toBe(body.length);
    await files.remove(KEY);
    expect(existsSync(join(dir, KEY))).toBe(false);
    expect(await text(file?.stream as Readable)).toBe(body);
    expect(await files.open(KEY)).toBeUndefined();
  });

  it('commits a file by renaming its part, and removing a key removes its unfinished part too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stockless-files-'));
    const files = new LocalFileStore(dir);
    await written(files, 'done');
    expect(existsSync(join(dir, `${KEY}.part`))).toBe(false);
    expect(await files.size(KEY)).toBe(4);
    writeFileSync(join(dir, `${KEY}.part`), 'half');
    await files.remove(KEY);
    expect(existsSync(join(dir, KEY))).toBe(false);
    expect(existsSync(join(dir, `${KEY}.part`))).toBe(false);
    await expect(files.open('../etc/passwd')).rejects.toThrow(/not an export file key/);
  });
});
