import type { ServerResponse } from 'node:http';
import { migrationsList } from '../src/migrations/index.ts';
import type { ProbeClient } from './probe-client.ts';
import { sendJson } from './respond.ts';

/** One thing readiness looks at. A critical check that fails makes the process not ready (503). */
export interface ReadinessCheck {
  name: string;
  /** False: reported in the body, never a 503 (a fact about the deployment, not this process). */
  critical: boolean;
  /** Resolves with what it found; a throw, or no answer within the probe's bound, is a failure. */
  /** `db`: the probe's own connection, never the request pool's (which may be saturated). */
  run(db: ProbeClient): Promise<{ ok: boolean; detail?: string }>;
}

/** Every check gets this long; the probe answers within it whatever the database does. */
export const READY_BOUND_MS = 1000;
/** A worker schedules deliver_webhooks every minute (jobs/tasks.ts crontab): older means none is running. */
const WORKER_FRESH_S = 180;

const database: ReadinessCheck = {
  name: 'database',
  critical: true,
  run: async (db) => {
    await db.query('SELECT 1');
    return { ok: true };
  },
};

/** This build's migrations are all applied: a process newer than its database is not ready to serve. */
const migrations: ReadinessCheck = {
  name: 'migrations',
  critical: true,
  run: async (db) => {
    const applied = await db.query<{ name: string }>('SELECT name FROM mikro_orm_migrations');
    const names = new Set(applied.map((r) => r.name));
    const pending = migrationsList.filter((m) => !names.has(m.name)).map((m) => m.name);
    return pending.length === 0 ? { ok: true } : { ok: false, detail: `pending: ${pending.join(', ')}` };
  },
};

/**
 * Some worker is running: Graphile's cron bookkeeping of the per-minute delivery wake-up is the
 * heartbeat every worker writes. Stated, not critical: an API process serves without a worker.
 */
const worker: ReadinessCheck = {
  name: 'worker',
  critical: false,
  run: async (db) => {
    const [row] = await db.query<{ age: number | null }>(
      `SELECT extract(epoch FROM now() - max(last_execution))::float8 AS age
         FROM graphile_worker._private_known_crontabs WHERE identifier = 'deliver_webhooks'`,
    );
    const age = row?.age;
    if (age === null || age === undefined) return { ok: false, detail: 'no worker has run yet' };
    const detail = `last heartbeat ${Math.round(age)}s ago`;
    return { ok: age <= WORKER_FRESH_S, detail };
  },
};

/** The default checks; a deployment's own (e.g. replica lag) are appended to this list. */
export const DEFAULT_READINESS: readonly ReadinessCheck[] = [database, migrations, worker];

function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms}ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, { status: 'ok' | 'failing'; critical: boolean; detail?: string }>;
}

/**
 * What anyone may read: each check's status, never its detail (a driver's error names users and
 * addresses, replicas their hosts, migrations the build). The operator token reads the detail.
 */
function withoutDetail(ready: Readiness): Readiness {
  const checks = Object.fromEntries(
    Object.entries(ready.checks).map(([name, { detail: _, ...check }]) => [name, check]),
  );
  return { ...ready, checks };
}

/** Runs every check at once, each within the bound. */
export async function checkReadiness(db: ProbeClient, checks: readonly ReadinessCheck[]): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        return { c, ...(await bounded(c.run(db), READY_BOUND_MS)) };
      } catch (err) {
        return { c, ok: false, detail: err instanceof Error ? err.message.split('\n')[0] : 'failed' };
      }
    }),
  );
  const out: Readiness = { status: 'ok', checks: {} };
  for (const { c, ok, detail } of results) {
    out.checks[c.name] = {
      status: ok ? 'ok' : 'failing',
      critical: c.critical,
      ...(detail ? { detail } : {}),
    };
    if (!ok && c.critical) out.status = 'unavailable';
  }
  return out;
}

/**
 * `/health/live` (the process answers; nothing else is asked, so a database outage never gets
 * processes restarted) and `/health/ready` (the checks). True when the path was one of them.
 */
export async function serveHealthProbe(
  path: string,
  res: ServerResponse,
  db: ProbeClient,
  checks: readonly ReadinessCheck[],
  /** Whether the caller sent the operator token: only then does a check's detail go out. */
  operator = false,
): Promise<boolean> {
  if (path === '/health/live') {
    sendJson(res, 200, { status: 'ok' });
    return true;
  }
  if (path !== '/health/ready') return false;
  const ready = await checkReadiness(db, checks);
  sendJson(res, ready.status === 'ok' ? 200 : 503, operator ? ready : withoutDetail(ready));
  return true;
}
