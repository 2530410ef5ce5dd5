import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledPrograms, closedFolder, startEmbeddedPostgres } from '../../server/database.ts';
import { freePort } from '../helpers/http.ts';

/**
 * `npm start` from a checkout no other user can enter (a clone under /root, any 0700 folder). Started
 * by root, PostgreSQL runs as user postgres, which could not reach DATA_DIR/pg (initdb: Permission
 * denied) nor, in a real checkout, the programs in node_modules. The test machine runs as root; run
 * by another user, the same tests check that its own closed folders need nothing of the kind.
 */

const isRoot = process.getuid?.() === 0;
const me = { uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000 };
/** Ids no file here belongs to: a user and group of their own, as user postgres's. */
const stranger = { uid: 54_321, gid: 54_321 };

let closed: string; // mode 0700, owned by whoever runs the test
const cleanups: string[] = [];

beforeAll(async () => {
  closed = await mkdtemp(join(tmpdir(), 'stockless-closed-'));
  await chmod(closed, 0o700);
  cleanups.push(closed);
});

afterAll(async () => {
  for (const dir of cleanups.reverse()) await rm(dir, { recursive: true, force: true });
});

describe('closedFolder (what user postgres can reach)', () => {
  it('names the first folder on the way that the user may not enter, with its mode and owner', async () => {
    const deep = join(closed, 'app', '.data');
    await mkdir(deep, { recursive: true });
    expect(await closedFolder(deep, stranger)).toEqual({ folder: closed, mode: 0o700, uid: me.uid });
    // Folders not made yet are not in the way; the one above them still is.
    expect((await closedFolder(join(deep, 'pg', 'base'), stranger))?.folder).toBe(closed);
  });

  it('lets the owner in by the owner bits, the group by the group bits, others by the other bits', async () => {
    const dir = join(await openFolder(), 'd');
    await mkdir(dir);
    // As root, the folder goes to another user, as user postgres's own folders would.
    if (isRoot) await chown(dir, stranger.uid, -1);
    const owner = { uid: isRoot ? stranger.uid : me.uid, gid: stranger.gid + 1 };
    const group = { uid: stranger.uid + 1, gid: (await stat(dir)).gid };
    const other = { uid: stranger.uid + 1, gid: stranger.gid + 1 };
    const enter = async (mode: number) => {
      await chmod(dir, mode);
      return [owner, group, other].map(async (ids) => (await closedFolder(dir, ids)) === undefined);
    };
    expect(await Promise.all(await enter(0o700))).toEqual([true, false, false]);
    expect(await Promise.all(await enter(0o710))).toEqual([true, true, false]);
    expect(await Promise.all(await enter(0o701))).toEqual([true, false, true]);
    // The owner's bits alone count for the owner, even when everybody else may enter.
    expect(await Promise.all(await enter(0o077))).toEqual([false, true, true]);
    expect(await closedFolder(dir, { uid: 0, gid: 0 })).toBeUndefined(); // root enters everything
    await chmod(dir, 0o700);
  });

  it('checks the folders a link leads through as well as the link', async () => {
    const open = await openFolder();
    await mkdir(join(closed, 'target'), { recursive: true });
    await symlink(join(closed, 'target'), join(open, 'link'));
    expect((await closedFolder(join(open, 'link'), stranger))?.folder).toBe(closed);
    expect(await closedFolder(open, stranger)).toBeUndefined();
  });
});

describe('the embedded cluster under a closed folder', () => {
  it('starts; for root the cluster and a copy of the programs go where user postgres can reach them', async () => {
    // The programs as an install under the closed folder has them (a checkout's node_modules).
    const programs = join(closed, 'native');
    await cp(await bundledPrograms(), programs, { recursive: true, verbatimSymlinks: true });
    const home = await openFolder();
    const dataDir = join(closed, 'programs-case', '.data');
    const db = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      programsDir: programs,
      reachableHome: home,
      sharedBuffersMb: 16,
    });
    try {
      const dataDirectory = await query(db.url, 'SHOW data_directory');
      if (isRoot) {
        expect(db.cluster?.relocated).toBe(true);
        expect(db.cluster?.dir.startsWith(`${home}/`)).toBe(true);
        expect(await readlink(join(dataDir, 'pg'))).toBe(db.cluster?.dir);
        expect(dataDirectory).toBe(db.cluster?.dir);
        // Any user reaches the folder holding it (the cluster itself is user postgres's, 0700).
        expect(await closedFolder(dirname(db.cluster?.dir ?? ''), stranger)).toBeUndefined();
        // PostgreSQL ran from the copy, not from the closed folder.
        const bindir = String(await query(db.url, "SELECT setting FROM pg_config WHERE name = 'BINDIR'"));
        expect(bindir.startsWith(`${home}/postgres-`) && bindir.endsWith('/bin')).toBe(true);
      } else {
        expect(db.cluster).toEqual({ dir: join(dataDir, 'pg'), relocated: false });
        expect(dataDirectory).toBe(join(dataDir, 'pg'));
      }
    } finally {
      await db.stop();
    }
    await expect(query(db.url, 'SELECT 1')).rejects.toThrow();
  });

  it('for a user other than root, the cluster stays in DATA_DIR/pg and runs as that user, even under a closed folder', async () => {
    // As root, as user nobody (whose own folder is closed to others); otherwise as this user.
    const nobody = { uid: 65_534, gid: 65_534 };
    const open = await openFolder();
    const own = join(open, 'own');
    await mkdir(own, { mode: 0o700 });
    await chmod(own, 0o700);
    if (isRoot) await chown(own, nobody.uid, nobody.gid);
    const dataDir = join(own, 'app', '.data');
    const port = await freePort();
    const repo = resolve(import.meta.dirname, '../..');
    const script = join(open, 'start.ts');
    await writeFile(
      script,
      [
        `import { startEmbeddedPostgres } from ${JSON.stringify(join(repo, 'server', 'database.ts'))};`,
        `const db = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${port}, sharedBuffersMb: 16 });`,
        `const { default: pg } = await import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('pg')).href)});`,
        'const client = new pg.Client(db.url);',
        'await client.connect();',
        "const { rows } = await client.query('SHOW data_directory');",
        'await client.end();',
        'await db.stop();',
        'console.log(JSON.stringify({ cluster: db.cluster, dataDirectory: rows[0].data_directory }));',
      ].join('\n'),
    );
    await chmod(script, 0o644);
    const blocked = isRoot ? await closedFolder(join(repo, 'server'), nobody) : undefined;
    if (blocked) {
      // A checkout nobody else can enter: user nobody cannot run it here, which is this file's very case.
      expect(blocked.folder.startsWith('/')).toBe(true);
      return;
    }
    const child = spawn(process.execPath, [script], {
      cwd: open,
      ...(isRoot ? nobody : {}),
      env: { ...process.env, HOME: open },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
    expect(code, output).toBe(0);
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
    expect(result).toEqual({
      cluster: { dir: join(dataDir, 'pg'), relocated: false },
      dataDirectory: join(dataDir, 'pg'),
    });
    expect((await stat(join(dataDir, 'pg'))).uid).toBe(isRoot ? nobody.uid : me.uid);
  });

  it('`npm start` serves, says where the cluster is, and keeps its data across starts', async () => {
    const dataDir = join(closed, 'app', '.data');
    const pgPort = await freePort();
    const first = await startServer(dataDir, pgPort);
    const target = isRoot ? await readlink(join(dataDir, 'pg')) : undefined;
    if (target) cleanups.push(target);
    try {
      expect(await fetchStatus(`${first.url}/health`)).toBe(200);
      // On a port other than 3000, the listen command to paste says which.
      expect(first.output()).toContain(`PORT=${new URL(first.url).port} npm run cli -- listen --store`);
      if (isRoot) {
        expect((await lstat(join(dataDir, 'pg'))).isSymbolicLink()).toBe(true);
        expect(target && !target.startsWith(closed)).toBe(true);
        expect(first.output()).toContain(`Database:  ${target} (${dataDir}/pg links to it)`);
        expect(await closedFolder(dirname(target ?? ''), stranger)).toBeUndefined();
      } else {
        expect((await lstat(join(dataDir, 'pg'))).isDirectory()).toBe(true);
        expect(first.output()).not.toContain('Database:');
      }
      // DATA_DIR keeps the rest: the secret key and the demo keys.
      expect(existsSync(join(dataDir, 'secret.key'))).toBe(true);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const creds = JSON.parse(await readFile(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const second = await startServer(dataDir, pgPort);
    try {
      expect(second.output()).not.toContain('seeding');
      const products = await fetchStatus(`${second.url}/api/v1/products?limit=1`, creds.read_key);
      expect(products).toBe(200);
      if (isRoot) expect(await readlink(join(dataDir, 'pg'))).toBe(target);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('refuses in one line, naming the folder and the fix, when a cluster is stranded under the closed folder', async () => {
    const dataDir = join(closed, 'stranded', '.data');
    await mkdir(join(dataDir, 'pg'), { recursive: true });
    await writeFile(join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    if (!isRoot) {
      // Not root: PostgreSQL runs as this user, who can reach its own closed folders.
      expect(await closedFolder(join(dataDir, 'pg'), me)).toBeUndefined();
      return;
    }
    const run = await runMain(dataDir, await freePort());
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${dataDir}/pg holds a PostgreSQL cluster that user postgres`);
    expect(lines[0]).toContain(`${closed} is mode 700`);
    expect(lines[0]).toMatch(new RegExp(`mv ${dataDir}/pg /\\S+ && ln -s /\\S+ ${dataDir}/pg`));
    // Nothing was moved or created in its place.
    expect((await lstat(join(dataDir, 'pg'))).isDirectory()).toBe(true);
  });
});

/** A temporary folder everybody may enter (removed after the tests). */
async function openFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'stockless-open-'));
  cleanups.push(dir);
  await chmod(dir, 0o755);
  return dir;
}

async function query(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    const { rows } = await client.query(sql);
    return Object.values(rows[0] ?? {})[0];
  } finally {
    await client.end();
  }
}

async function fetchStatus(url: string, key?: string): Promise<number> {
  const res = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  await res.arrayBuffer();
  return res.status;
}

function mainEnv(dataDir: string, pgPort: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    HOST: '127.0.0.1',
    PORT: '0',
    DEMO_PRODUCTS: '5',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE: '1s',
  };
  for (const name of ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'SECRET_KEY', 'PUBLIC_URL']) delete env[name];
  return env;
}

function spawnMain(dataDir: string, pgPort: number): ChildProcess {
  return spawn(process.execPath, ['server/main.ts', 'serve'], {
    cwd: resolve(import.meta.dirname, '../..'),
    env: mainEnv(dataDir, pgPort),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `npm start`'s API (the worker plays no part in where the cluster is), up to its banner. */
async function startServer(dataDir: string, pgPort: number) {
  const child = spawnMain(dataDir, pgPort);
  let output = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no banner in 90 s:\n${output}`)), 90_000);
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Stockless is serving at (\S+)[\s\S]*Try:/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        done(match[1].replace('//localhost:', '//127.0.0.1:'));
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    void exited.then((code) => fail(new Error(`exited (${code}) before serving:\n${output}`)));
  });
  return {
    url,
    output: () => output,
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function runMain(dataDir: string, pgPort: number) {
  const child = spawnMain(dataDir, pgPort);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  return { code, stderr };
}
