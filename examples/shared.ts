import { readFile, rename, writeFile } from 'node:fs/promises';
import { Stockless } from '@stockless/sdk';

/** The client every example uses: STOCKLESS_URL (default http://localhost:3000) and STOCKLESS_API_KEY. */
export function clientFromEnv(): Stockless {
  const apiKey = process.env.STOCKLESS_API_KEY;
  if (!apiKey) {
    console.error('Set STOCKLESS_API_KEY to a key `npm start` printed (the read_write one).');
    process.exit(1);
  }
  return new Stockless({ baseUrl: process.env.STOCKLESS_URL ?? 'http://localhost:3000', apiKey });
}

/** A cursor stored in a file, or undefined when there is none yet (start from the beginning). */
export async function loadCursor(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Written to a temporary file and renamed, so a crash never leaves half a cursor. */
export async function saveCursor(file: string, cursor: string): Promise<void> {
  await writeFile(`${file}.tmp`, `${cursor}\n`);
  await rename(`${file}.tmp`, file);
}
