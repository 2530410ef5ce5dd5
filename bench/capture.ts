import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server/app.ts';
import type { Config } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import type { Orm } from '../server/orm.ts';
import type { CompiledStatement } from '../src/db/sql.ts';
import { observeStatements } from '../src/db/sql.ts';
import { waitFor } from './lib.ts';

type Step = { sql: string; parameters: unknown[]; settings?: Record<string, string> };

/**
 * Runs each URL once through the real app in this process and records the statements it issued,
 * grouped by overlap: a statement issued while another is still running joins that one's group.
 * With `skipFailed`, a URL not answered 200 is left out of the plan instead of failing the capture.
 */
export async function captureStatements(
  orm: Orm,
  config: Config,
  key: string,
  urls: string[],
  opts: { skipFailed?: boolean } = {},
) {
  const app = createApp({ orm, config, log: createLogger('silent') });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  const address = app.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const plan: Record<string, Step[][]> = {};
  try {
    for (const url of urls) {
      // First call warms caches and the once-a-minute key usage write, which is not part of a request.
      await fetch(base + url, { headers: { authorization: `Bearer ${key}` } });
      const groups: Step[][] = [];
      let inFlight = 0;
      observeStatements((s: CompiledStatement) => {
        if (inFlight === 0) groups.push([]);
        groups.at(-1)?.push({
          sql: s.sql,
          parameters: [...s.parameters],
          ...(s.settings ? { settings: s.settings } : {}),
        });
        inFlight++;
        return () => {
          inFlight--;
        };
      });
      const res = await fetch(base + url, { headers: { authorization: `Bearer ${key}` } });
      observeStatements(undefined);
      if (res.status === 200) plan[url] = groups;
      else if (!opts.skipFailed) throw new Error(`capture ${url}: ${res.status} ${await res.text()}`);
      else await res.arrayBuffer();
    }
  } finally {
    observeStatements(undefined);
    app.close();
  }
  return plan;
}

/** The raw replay (bench/raw-server.ts) of a captured plan on `port`, once it is listening. */
export async function startReplay(
  plan: Record<string, Step[][]>,
  opts: { node: string; databaseUrl: string; port: number },
): Promise<{ child: ChildProcess; url: string }> {
  const planFile = join(await mkdtemp(join(tmpdir(), 'stockless-replay-')), 'plan.json');
  await writeFile(planFile, JSON.stringify(plan));
  const child = spawn(opts.node, ['bench/raw-server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      PORT: String(opts.port),
      BENCH_PLAN_FILE: planFile,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = `http://127.0.0.1:${opts.port}`;
  await waitFor(`${url}/__ready`, 404);
  return { child, url };
}
