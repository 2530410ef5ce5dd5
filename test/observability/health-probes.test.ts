import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * /health/live and /health/ready over real HTTP: live asks nothing of the database; ready answers 503
 * while the database refuses connections or a migration of this build is missing, and 200 again once
 * it is back.
 */

let app: TestApp;

const OPERATOR = 'operator-token-for-the-health-tests';

beforeAll(async () => {
  app = await startTestApp({ OPERATOR_TOKEN: OPERATOR });
});
afterAll(() => app.close());

interface Ready {
  status: string;
  checks: Record<string, { status: string; critical: boolean; detail?: string }>;
}

/** The app's database refuses new connections and loses the ones it has (an outage as clients see it). */
async function cutDatabase(allow: boolean) {
  const name = new URL(app.databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS ${allow}`);
    if (!allow) {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    }
  } finally {
    await admin.end();
  }
}

describe('the health probes', () => {
  it('ready: 200 with every check named; the worker stated, not critical', async () => {
    const res = await app.get<Ready>('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.checks.database).toEqual({ status: 'ok', critical: true });
    expect(res.body.checks.migrations).toEqual({ status: 'ok', critical: true });
    // No worker runs in this test: stated, and the API process is ready all the same.
    expect(res.body.checks.worker).toMatchObject({ status: 'failing', critical: false });
  });

  it('ready: 503 when a migration of this build is not applied', async () => {
    const [gone] = await rows<{ name: string }>(
      app.em(),
      sql`DELETE FROM mikro_orm_migrations WHERE id = (SELECT max(id) FROM mikro_orm_migrations) RETURNING name`,
    );
    try {
      const res = await app.get<Ready>('/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.checks.migrations?.status).toBe('failing');
      // Anyone sees which check fails; only the operator token reads why (here: the migration's name).
      expect(res.body.checks.migrations).toEqual({ status: 'failing', critical: true });
      expect(
        (await app.get<Ready>('/health/ready', 'not-the-operator-token')).body.checks.migrations?.detail,
      ).toBe(undefined);
      const operator = await app.get<Ready>('/health/ready', OPERATOR);
      expect(operator.status).toBe(503);
      expect(operator.body.checks.migrations?.detail).toContain(gone?.name);
    } finally {
      await rows(app.em(), sql`INSERT INTO mikro_orm_migrations (name) VALUES (${gone?.name})`);
    }
    expect((await app.get('/health/ready')).status).toBe(200);
  });

  it('live stays 200 and ready answers 503 within its bound while the database is unreachable', async () => {
    await cutDatabase(false);
    try {
      const started = Date.now();
      const ready = await app.get<Ready>('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe('unavailable');
      expect(ready.body.checks.database?.status).toBe('failing');
      expect(Date.now() - started).toBeLessThan(3000);
      const live = await app.get('/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
    } finally {
      await cutDatabase(true);
    }
    await expect.poll(async () => (await app.get('/health/ready')).status, { timeout: 5000 }).toBe(200);
  });

  it('keeps /health as it was', async () => {
    const res = await app.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok' });
  });
});
