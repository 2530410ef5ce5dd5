import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * A self-signed certificate for the benches' local HTTPS receivers, valid for 127.0.0.1 and the
 * given host names, and a file holding it for the workers' NODE_EXTRA_CA_CERTS.
 */
export async function receiverCertificate(hostnames: readonly string[] = []) {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7 as const, ip: '127.0.0.1' },
          ...hostnames.map((value) => ({ type: 2 as const, value })),
        ],
      },
    ],
  });
  const caFile = join(await mkdtemp(join(tmpdir(), 'stockless-bench-ca-')), 'ca.pem');
  await writeFile(caFile, pems.cert);
  return { key: pems.private, cert: pems.cert, caFile };
}

/** The secrets-at-rest key the webhook benches and their workers share. */
export const BENCH_SECRET_KEY = 'b2'.repeat(32);

/**
 * `npm run worker` against the bench database, allowed to deliver to loopback and trusting the
 * receivers' certificate; `env` adds the part's own settings. BENCH_WORKER_NODE_ARGS adds Node
 * flags (for example `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the worker).
 */
export function spawnBenchWorker(
  databaseUrl: string,
  caFile: string,
  env: Record<string, string>,
): ChildProcess {
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...nodeArgs, 'server/main.ts', 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SECRET_KEY: BENCH_SECRET_KEY,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: caFile,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Waits until `check` holds, polling every 20 ms; a bounded wait. */
export async function until(check: () => boolean, timeoutMs: number, what: string) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
