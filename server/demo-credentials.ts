import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DemoCredentials } from '../src/demo/demo-store.ts';

/**
 * The demo store's keys are kept beside the embedded database (mode 0600) so every `npm start` can
 * print them; a real store's keys are only ever shown once.
 */
export async function saveDemoCredentials(dataDir: string, creds: DemoCredentials): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(resolve(dataDir, 'demo-credentials.json'), JSON.stringify(creds, null, 2), { mode: 0o600 });
}

export async function readDemoCredentials(dataDir: string): Promise<DemoCredentials | undefined> {
  const file = resolve(dataDir, 'demo-credentials.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, 'utf8')) as DemoCredentials;
}
