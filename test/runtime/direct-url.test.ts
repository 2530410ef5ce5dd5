import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { createTestDatabase, startApiProcess, type TestDatabase } from '../helpers/processes.ts';
import { startReceiver, startWorkerProcess } from '../helpers/webhooks.ts';

/**
 * DATABASE_DIRECT_URL: behind a pooler in transaction mode, what needs a session of its own (the
 * migrations' advisory lock, Graphile Worker's LISTEN and named statements) goes to the server
 * directly, and requests through DATABASE_URL (docs/scaling.md, section 3). The direct connections
 * are told apart here by their `application_name`.
 */

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

const named = (url: string, name: string) => `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;

describe('DATABASE_DIRECT_URL', () => {
  it('an API process migrates over the direct URL: one that cannot be reached stops the start', async () => {
    const start = startApiProcess(db.databaseUrl, {
      DATABASE_DIRECT_URL: 'postgres://stockless:stockless@127.0.0.1:1/nowhere',
    });
    await expect(start).rejects.toThrow(/exited .* before listening[\s\S]*ECONNREFUSED/);
  });

  it('an API process starts with a reachable direct URL and serves through DATABASE_URL', async () => {
    const api = await startApiProcess(db.databaseUrl, {
      DATABASE_DIRECT_URL: named(db.databaseUrl, 'direct'),
    });
    try {
      const res = await fetch(`${api.url}/health`);
      expect(res.status).toBe(200);
    } finally {
      await api.stop();
    }
  });

  it('a worker listens for jobs over the direct URL, not the pooled one', async () => {
    const receiver = await startReceiver();
    const worker = await startWorkerProcess(named(db.databaseUrl, 'pooled'), receiver.caFile, {
      DATABASE_DIRECT_URL: named(db.databaseUrl, 'direct-worker'),
    });
    try {
      const listeners = await rows<{ application_name: string }>(
        db.em(),
        sql`SELECT application_name FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
      expect(listeners.map((l) => l.application_name)).toEqual(['direct-worker']);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
