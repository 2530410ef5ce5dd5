import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { TEST_SECRET_KEY } from './app.ts';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

/**
 * What the receiver does with a request: answer with a status, hang, reset, redirect, or answer with
 * a status and then a body of 256 KiB (`huge`) or one cut off after its first bytes (`cut`), or
 * answer 200 after `delay` milliseconds (a receiver's latency).
 */
export type Behaviour =
  | number
  | 'hang'
  | 'reset'
  | { redirect: string }
  | { delay: number }
  | { status: number; body: 'huge' | 'cut' };

export interface Receiver {
  url: string;
  /** The certificate to trust (NODE_EXTRA_CA_CERTS of the worker). */
  caFile: string;
  received: Received[];
  /** Decides the answer to each request (default 200); sees the requests received so far. */
  behave(fn: (req: Received, n: number) => Behaviour): void;
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A real HTTPS endpoint on 127.0.0.1 with a self-signed certificate made for this run; it names
 * `localhost`, `127.0.0.1` and any `hostnames` given (names of WEBHOOK_TEST_HOSTS, say).
 */
export async function startReceiver(opts: { hostnames?: readonly string[] } = {}): Promise<Receiver> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          ...(opts.hostnames ?? []).map((value) => ({ type: 2 as const, value })),
        ],
      },
    ],
  });
  const dir = await mkdtemp(join(tmpdir(), 'stockless-receiver-'));
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, pems.cert);
  const received: Received[] = [];
  let behaviour: (req: Received, n: number) => Behaviour = () => 200;
  const hanging = new Set<() => void>();
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      const b = behaviour(r, received.length);
      if (b === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      if (b === 'reset') {
        req.socket.destroy();
        return;
      }
      if (typeof b === 'object' && 'redirect' in b) {
        res.writeHead(302, { location: b.redirect }).end();
        return;
      }
      if (typeof b === 'object' && 'delay' in b) {
        const timer = setTimeout(
          () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
          b.delay,
        );
        hanging.add(() => {
          clearTimeout(timer);
          res.destroy();
        });
        return;
      }
      if (typeof b === 'object') {
        res.writeHead(b.status, { 'content-type': 'text/plain', 'content-length': String(256 * 1024) });
        if (b.body === 'huge') res.end('x'.repeat(256 * 1024));
        else res.write('x'.repeat(1024), () => req.socket.destroy());
        return;
      }
      res.writeHead(b, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    received,
    behave(fn) {
      behaviour = fn;
    },
    async waitFor(n, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until)
          throw new Error(`receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    async close() {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** SIGKILL: the worker dies mid-whatever, as in a crash. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Short intervals so retries, coalescing and deadlines are seen in seconds. */
export const FAST_WEBHOOKS = {
  WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms',
  WEBHOOK_COALESCE_WINDOW: '1s',
  WEBHOOK_TIMEOUT: '1500ms',
};

/** `npm run worker` as its own process against the test's database, trusting the receiver's certificate. */
export function startWorkerProcess(
  databaseUrl: string,
  caFile: string,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['server/main.ts', 'worker'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: caFile,
      LOG_LEVEL: 'info',
      ...FAST_WEBHOOKS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 20_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('worker running')) {
        clearTimeout(timer);
        resolve({
          child,
          async kill() {
            child.kill('SIGKILL');
            await exited;
          },
          async stop() {
            if (child.exitCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before starting:\n${output}`));
    });
  });
}
