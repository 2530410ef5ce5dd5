import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, startEmbeddedPostgres } from '../../server/database.ts';
import { migrate, openOrm } from '../../server/orm.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
  }
}

export const TEMPLATE_DB = 'stockless_template';

/**
 * One real PostgreSQL for the whole run (embedded, or TEST_DATABASE_URL's server), and one migrated
 * template database that every test file clones.
 */
export default async function setup(project: TestProject) {
  let stop = async () => {};
  let adminUrl = process.env.TEST_DATABASE_URL;
  let dir: string | undefined;
  if (!adminUrl) {
    dir = await mkdtemp(join(tmpdir(), 'stockless-test-'));
    // As root, PostgreSQL runs as its own user, which must be able to enter the directory.
    await chmod(dir, 0o755);
    const port = 55000 + Math.floor(Math.random() * 5000);
    const db = await startEmbeddedPostgres({ dataDir: dir, port, database: 'postgres' });
    adminUrl = db.url;
    stop = db.stop;
  }
  const templateUrl = withDatabase(adminUrl, TEMPLATE_DB);
  const admin = withDatabase(adminUrl, 'postgres');
  await dropDatabase(admin, TEMPLATE_DB);
  await ensureDatabase(admin, TEMPLATE_DB);
  const orm = await openOrm(templateUrl, 2);
  await migrate(orm, templateUrl);
  await orm.close(true);

  project.provide('pgAdminUrl', admin);
  project.provide('templateDb', TEMPLATE_DB);
  return async () => {
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function dropDatabase(adminUrl: string, name: string) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
