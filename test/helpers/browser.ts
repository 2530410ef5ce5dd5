import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { ensureDatabase } from '../../server/database.ts';
import { createLogger } from '../../server/logger.ts';
import { type Orm, openOrm } from '../../server/orm.ts';
import { TEST_SECRET_KEY } from './app.ts';
import { withDatabase } from './global-setup.ts';
import { freePort } from './http.ts';

/** Debian's Chromium (installed by .ci/run), or the browser CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const NO_CHROMIUM = `Chromium not found at ${CHROMIUM}. Install it (apt-get install chromium, as .ci/run does) or set CHROMIUM_PATH to a Chromium binary.`;

/** Headless Chromium, or undefined when it is missing (each test then fails with NO_CHROMIUM). */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  // As root, Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface PublicApp {
  url: string;
  orm: Orm;
  close(): Promise<void>;
}

/**
 * A fresh database and the real app listening where its PUBLIC_URL says (pages compare the browser's
 * Origin with it), on a port picked first; retried if another process takes the port meanwhile.
 */
export async function startAppAtPublicUrl(env: Record<string, string> = {}): Promise<PublicApp> {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  await ensureDatabase(adminUrl, name, inject('templateDb'));
  const databaseUrl = withDatabase(adminUrl, name);
  const orm = await openOrm(databaseUrl, 4);
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      SECRET_KEY: TEST_SECRET_KEY,
      ...env,
    });
    const server = createApp({ orm, config, log: createLogger('silent') });
    try {
      await new Promise<void>((resolve, reject) =>
        server.once('error', reject).listen(port, '127.0.0.1', () => resolve()),
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      await orm.close(true);
      throw err;
    }
    return {
      url,
      orm,
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await orm.close(true);
      },
    };
  }
}
