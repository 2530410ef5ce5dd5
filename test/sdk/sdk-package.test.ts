import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { verifyWebhook } from '../../client/src/index.ts';
import { childOutput, type Ran } from '../helpers/child-output.ts';

/**
 * The SDK as a partner gets it (issue 28): `npm run build:sdk`, `npm pack ./client`, `npm install` of
 * the tarball in a fresh project, then run with the machine's Node 20 (/usr/bin/node), the oldest
 * Node the package supports, and type-checked as a consumer's TypeScript sees it.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'client/dist');
const NODE20 = '/usr/bin/node';

/** The environment without npm's own variables: under `npx vitest` they describe the parent npm. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env = cleanEnv()): Promise<Ran> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return childOutput(child);
}

async function ok(command: string, args: string[], cwd: string): Promise<string> {
  const ran = await run(command, args, cwd);
  if (ran.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  }
  return ran.stdout;
}

/** Why the Node 20 checks cannot run here, or undefined when /usr/bin/node is Node 20. */
async function whyNoNode20(): Promise<string | undefined> {
  if (!existsSync(NODE20)) return `${NODE20} is absent: the Node 20 checks need the machine's Node 20 there`;
  const version = (await ok(NODE20, ['-p', 'process.version'], ROOT)).trim();
  return version.startsWith('v20.') ? undefined : `${NODE20} is ${version}, not Node 20: nothing to check`;
}

/** An environment whose `node` is Node 20, for the bin's `#!/usr/bin/env node`. */
const node20Env = (extra: Record<string, string> = {}) =>
  cleanEnv({ ...extra, PATH: `${dirname(NODE20)}:${process.env.PATH ?? ''}` });

interface Packed {
  filename: string;
  files: { path: string; mode: number }[];
}

let work = '';
let project = '';
let packed: Packed;
let noNode20: string | undefined;
const distWasAbsent = !existsSync(DIST);

const needNode20 = (ctx: TestContext) => ctx.skip(noNode20 !== undefined, noNode20);
/** The bin as npm linked it: run directly, so its shebang picks the `node` of the PATH. */
const listenBin = () => join(project, 'node_modules/.bin/stockless-listen');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'stockless-sdk-package-'));
  noNode20 = await whyNoNode20();
  await ok('npm', ['run', 'build:sdk'], ROOT);
  const pack = await ok('npm', ['pack', './client', '--json', '--pack-destination', work], ROOT);
  [packed] = JSON.parse(pack) as [Packed];
  project = join(work, 'consumer');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  // No runtime dependencies, so the install needs no registry.
  const install = ['install', join(work, packed.filename), '--ignore-scripts', '--no-audit', '--no-fund'];
  await ok('npm', [...install, '--offline'], project);
}, 180_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  // A dist this test built is not left behind; one a developer had built stays (rebuilt).
  if (distWasAbsent) await rm(DIST, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  it('holds the built ESM, its declarations and the README: no sources, tests or dashboard client', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/listen-cli.js',
      ]),
    );
    for (const path of paths) {
      expect(path).toMatch(/^(package\.json|README\.md|dist\/.+\.(js|d\.ts))$/);
      expect(path).not.toMatch(/(^|\/)(src|test)\/|\.test\.|(^|\/)trpc\./);
    }
    const bin = packed.files.find((f) => f.path === 'dist/listen-cli.js');
    expect((bin?.mode ?? 0) & 0o111).not.toBe(0);
  });

  it('declares Node >= 20.3, no runtime dependencies and no private flag', async () => {
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules/@stockless/sdk/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.engines).toEqual({ node: '>=20.3.0' });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.license).toBe('UNLICENSED');
  });
});

describe('installed from the tarball, on Node 20', () => {
  it('throws a StocklessConnectionError naming the URL when nothing listens', async (ctx) => {
    needNode20(ctx);
    const closed = await closedPort();
    const script = join(project, 'connect.mjs');
    await writeFile(
      script,
      `import { Stockless, StocklessConnectionError, StocklessError } from '@stockless/sdk';
const client = new Stockless({ baseUrl: process.argv[2], apiKey: 'sl_test_x', retry: false });
const err = await client.store.me().then(() => undefined, (e) => e);
console.log(JSON.stringify({
  node: process.version,
  connection: err instanceof StocklessConnectionError,
  api: err instanceof StocklessError,
  name: err?.name,
  url: err?.url,
  message: err?.message,
}));`,
    );
    const out = JSON.parse(await ok(NODE20, [script, `http://127.0.0.1:${closed}`], project));
    expect(out).toMatchObject({
      connection: true,
      api: false,
      name: 'StocklessConnectionError',
      url: `http://127.0.0.1:${closed}/api/v1/vendor/me`,
    });
    expect(out.node).toMatch(/^v20\./);
    expect(out.message).toContain('ECONNREFUSED');
  });

  it('runs stockless-listen --help from node_modules/.bin', async (ctx) => {
    needNode20(ctx);
    const ran = await run(listenBin(), ['--help'], project, node20Env());
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^usage: stockless-listen --forward-to URL/);
    expect(ran.stdout).toContain('--resend ID');
  });

  it('resends one event with stockless-listen, signed with the secret it keeps', async (ctx) => {
    needNode20(ctx);
    const api = await startStubApi();
    try {
      const config = join(work, 'config');
      const env = node20Env({
        STOCKLESS_URL: api.url,
        STOCKLESS_API_KEY: 'sl_test_x',
        STOCKLESS_CONFIG_DIR: config,
      });
      const args = ['--forward-to', `${api.url}/hook`, '--resend', 'evt_1'];
      const ran = await run(listenBin(), args, project, env);
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/order\.created\s+evt_1\s+→ 204/);
      const kept = JSON.parse(await readFile(join(config, 'listen-secrets.json'), 'utf8'));
      const [secret] = Object.values(kept) as string[];
      const [delivery] = api.deliveries;
      const signature = delivery?.headers['x-stockless-signature'];
      expect(verifyWebhook(delivery?.body ?? '', signature, secret ?? '').id).toBe('evt_1');
    } finally {
      await api.close();
    }
  });
});

describe('the published types', () => {
  it("type-check a consumer and the README's example with moduleResolution nodenext", async () => {
    await writeFile(join(project, 'consumer.ts'), CONSUMER);
    const readme = await readFile(join(project, 'node_modules/@stockless/sdk/README.md'), 'utf8');
    const usage = /## Usage\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(usage).toContain('StocklessConnectionError');
    await writeFile(join(project, 'readme-usage.ts'), usage ?? '');
    const tsconfig = {
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        lib: ['es2023'],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        // A Node consumer has @types/node (the README's example reads process.env); the repo's is used.
        typeRoots: [join(ROOT, 'node_modules/@types')],
        types: ['node'],
      },
      files: ['consumer.ts', 'readme-usage.ts'],
    };
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const ran = await run(join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', '-p', project], project);
    expect(ran.stdout + ran.stderr).toBe('');
    expect(ran.code).toBe(0);
  });
});

/** Uses the package's types; each `@ts-expect-error` proves they are the contract's, not `any`. */
const CONSUMER = `import {
  Stockless,
  StocklessConnectionError,
  StocklessError,
  type StoreProfile,
  verifyWebhook,
} from '@stockless/sdk';

const client = new Stockless({ baseUrl: 'http://localhost:3000', apiKey: 'sl_test_x', retry: false });
export const store: Promise<StoreProfile> = client.store.me().then((r) => r.store);
export function where(err: unknown): string | undefined {
  if (err instanceof StocklessConnectionError) return err.url;
  return err instanceof StocklessError ? err.requestId : undefined;
}
export const kind: string = verifyWebhook('{}', 't=1,v1=00', 'whsec_x').event;
// @ts-expect-error: no such query parameter
export const wrong = client.products.list({ no_such_filter: true });
// @ts-expect-error: the dashboard client is not part of the package
export const dashboard = import('@stockless/sdk/trpc');
`;

/** A port nothing listens on: one the system just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Just enough of the API for `stockless-listen --resend evt_1`, and the receiver it forwards to. */
async function startStubApi() {
  const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
  const event = {
    id: 'evt_1',
    event: 'order.created',
    event_key: 'order.created:1',
    created_at: '2026-11-01T00:00:00.000Z',
    livemode: false,
    data: { order: { id: 1 } },
  };
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method === 'GET' && req.url === '/api/v1/vendor/me') return json({ store: { id: 7 } });
    if (req.method === 'GET' && req.url === '/api/v1/events/evt_1') return json({ event });
    if (req.method === 'POST' && req.url === '/hook') {
      deliveries.push({ headers: req.headers, body });
      return res.writeHead(204).end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    close: () => new Promise((done) => server.close(done)),
  };
}
