import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { bundledPrograms, startEmbeddedPostgres } from '../../server/database.ts';
import { freePort } from '../helpers/http.ts';

const run = promisify(execFile);
const USER = 'stockless';
const PASSWORD = 'stockless';

/**
 * A real primary and a real hot standby streaming from it, built from the embedded PostgreSQL
 * programs: the primary as `npm start` makes one, the standby by pg_basebackup. As root both run as
 * user postgres, as server/database.ts runs PostgreSQL. Nothing here mocks replication.
 */
export interface ReplicatedCluster {
  primaryUrl: string;
  standbyUrl: string;
  /** Runs one statement on the standby (as the superuser) and returns its rows. */
  onStandby<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  /** Runs one statement on the primary. */
  onPrimary<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stopStandby(): Promise<void>;
  close(): Promise<void>;
}

async function postgresIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
}

export async function startReplicatedCluster(database = 'stockless'): Promise<ReplicatedCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'stockless-replica-'));
  // As root PostgreSQL runs as user postgres, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const primaryPort = await freePort();
  const primary = await startEmbeddedPostgres({
    dataDir: join(dir, 'primary'),
    port: primaryPort,
    database,
    sharedBuffersMb: 64,
  });
  const url = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const programs = await bundledPrograms();
  const ids = await postgresIds();
  const standbyDir = join(dir, 'standby');
  const standbyPort = await freePort();
  const conninfo = `host=127.0.0.1 port=${primaryPort} user=${USER} password=${PASSWORD} application_name=standby`;
  let standby: ChildProcess | undefined;
  try {
    if (!primary.cluster) throw new Error('the primary cluster was shared, not started here');
    await baseBackup(url(primaryPort), primary.cluster.dir, standbyDir, ids);
    standby = await startStandby(programs, standbyDir, standbyPort, conninfo, ids);
  } catch (err) {
    await primary.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const query = async <T extends pg.QueryResultRow>(target: string, text: string, values?: unknown[]) => {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  const cluster: ReplicatedCluster = {
    primaryUrl: url(primaryPort),
    standbyUrl: url(standbyPort),
    onStandby: (text, values) => query(url(standbyPort), text, values),
    onPrimary: (text, values) => query(url(primaryPort), text, values),
    pauseReplay: async () => {
      await cluster.onStandby('SELECT pg_wal_replay_pause()');
    },
    resumeReplay: async () => {
      await cluster.onStandby('SELECT pg_wal_replay_resume()');
    },
    async caughtUp(timeoutMs = 15_000) {
      const [head] = await cluster.onPrimary<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await cluster.onStandby<{ done: boolean }>(
          'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
          [head?.lsn],
        );
        if (row?.done) return;
        if (Date.now() > deadline) throw new Error('the standby did not catch up');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stopStandby() {
      if (standby) await stopProcess(standby);
    },
    async close() {
      await cluster.stopStandby();
      await primary.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/**
 * pg_basebackup's work by hand (the embedded programs have no pg_basebackup): a physical slot keeps
 * the WAL from the backup's start, the low-level backup API brackets a file copy of the running
 * primary, and the standby starts from its backup_label, streaming the rest from the slot.
 */
async function baseBackup(
  primaryUrl: string,
  primaryDir: string,
  standbyDir: string,
  ids: { uid: number; gid: number } | undefined,
): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    await client.query(`SELECT pg_create_physical_replication_slot('standby', true)`);
    await client.query(`SELECT pg_backup_start('stockless-replica-test', true)`);
    await run('cp', ['-a', primaryDir, standbyDir]);
    const { rows } = await client.query<{ labelfile: string; spcmapfile: string }>(
      'SELECT labelfile, spcmapfile FROM pg_backup_stop(false)',
    );
    await writeFile(join(standbyDir, 'backup_label'), rows[0]?.labelfile ?? '');
  } finally {
    await client.end();
  }
  for (const name of ['postmaster.pid', 'postmaster.opts']) await rm(join(standbyDir, name), { force: true });
  for (const folder of ['pg_wal', 'pg_replslot']) {
    await rm(join(standbyDir, folder), { recursive: true, force: true });
    await mkdir(join(standbyDir, folder), { mode: 0o700 });
  }
  await mkdir(join(standbyDir, 'pg_wal', 'archive_status'), { mode: 0o700 });
  await writeFile(join(standbyDir, 'standby.signal'), '');
  if (ids) await run('chown', ['-R', `${ids.uid}:${ids.gid}`, standbyDir]);
  await chmod(standbyDir, 0o700);
}

function startStandby(
  programs: string,
  dir: string,
  port: number,
  conninfo: string,
  ids: { uid: number; gid: number } | undefined,
): Promise<ChildProcess> {
  const args = ['-D', dir, '-p', String(port), '-c', 'max_connections=300', '-c', 'shared_buffers=64MB'];
  args.push('-c', `primary_conninfo=${conninfo}`, '-c', 'primary_slot_name=standby', '-c', 'hot_standby=on');
  // Recovery conflicts cancel a standby statement after 200 ms instead of 30 s, so a test can cause one.
  args.push('-c', 'max_standby_streaming_delay=200ms');
  const child = spawn(join(programs, 'bin', 'postgres'), args, {
    ...(ids ?? {}),
    cwd: dir,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.once('exit', () => child.kill('SIGINT'));
  let output = '';
  return new Promise((resolve, reject) => {
    const take = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      if (output.includes('ready to accept read-only connections')) resolve(child);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('exit', (code) => reject(new Error(`standby stopped while starting (${code}): ${output}`)));
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}
