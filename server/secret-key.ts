import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Config, ConfigError } from './config.ts';

/**
 * The key that encrypts secrets at rest (webhook signing secrets). Production must configure
 * SECRET_KEY; a development machine gets one generated once under DATA_DIR, outside the database,
 * so a copy of the database alone never reveals the secrets.
 */
export async function resolveSecretKey(config: Config): Promise<string> {
  if (config.SECRET_KEY) return config.SECRET_KEY;
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(
      'SECRET_KEY is required in production (64 hex characters, e.g. `openssl rand -hex 32`)',
    );
  }
  const file = join(config.DATA_DIR, 'secret.key');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing && /^[0-9a-f]{64}$/i.test(existing.trim())) return existing.trim();
  await mkdir(config.DATA_DIR, { recursive: true });
  const key = randomBytes(32).toString('hex');
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    // Another process created it first: use theirs.
    if (err.code !== 'EEXIST') throw err;
  });
  return (await readFile(file, 'utf8')).trim();
}
