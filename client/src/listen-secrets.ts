import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { developmentSecret } from './listen.ts';

/** What a listener's signing secret is kept for: the same store, mode and local URL get the same one. */
export interface ListenTarget {
  baseUrl: string;
  storeId: number;
  livemode: boolean;
  forwardTo: string;
}

/**
 * Where listeners keep their secrets: `$STOCKLESS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/stockless`,
 * else `~/.config/stockless`.
 */
export function listenSecretsFile(env: NodeJS.ProcessEnv = process.env): string {
  const dir =
    env.STOCKLESS_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'stockless');
  return join(dir, 'listen-secrets.json');
}

function keyOf(t: ListenTarget): string {
  const origin = URL.canParse(t.baseUrl) ? new URL(t.baseUrl).origin : t.baseUrl;
  return `${origin} store ${t.storeId} ${t.livemode ? 'live' : 'test'} → ${t.forwardTo}`;
}

/**
 * The signing secret a listener used last time for this target, or a new one kept for next time, so
 * a receiver configured once keeps verifying across restarts of `listen`. `file` is undefined when
 * the secret could not be kept (no writable home): it is then new for this run only.
 */
export async function rememberedSecret(
  target: ListenTarget,
  file = listenSecretsFile(),
): Promise<{ secret: string; file: string | undefined; isNew: boolean }> {
  const key = keyOf(target);
  const kept = await readFile(file, 'utf8')
    .then((text) => JSON.parse(text) as Record<string, string>)
    .catch(() => ({}) as Record<string, string>);
  const secret = kept[key];
  if (typeof secret === 'string' && secret.startsWith('whsec_')) return { secret, file, isNew: false };
  const fresh = developmentSecret();
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    // Written aside and renamed: two listeners starting at once never leave half a file.
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify({ ...kept, [key]: fresh }, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
    return { secret: fresh, file, isNew: true };
  } catch {
    return { secret: fresh, file: undefined, isNew: true };
  }
}
