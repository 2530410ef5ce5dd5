import pg from 'pg';
import { ConfigError } from './config.ts';

/** SQLSTATE protocol_violation: what PgBouncer answers a startup parameter it does not track. */
const PROTOCOL_VIOLATION = '08P01';

/**
 * The migrations' own session on the server, which holds their advisory lock (server/orm.ts, `migrate`).
 *
 * It is opened with `statement_timeout=0` in its startup parameters, for two reasons. Waiting for another
 * process's migrations (`pg_advisory_lock`) may take minutes, and a role's or database's
 * statement_timeout (how the API's budget is carried behind a pooler) must not cut it. And PostgreSQL
 * takes any setting at startup while PgBouncer refuses those it does not track: a refusal says that
 * `setting` names a pooler, where the session lock would stay held by a pooled server connection and
 * Graphile Worker's LISTEN and named statements would break. That start is stopped with one line
 * naming the setting to change, before anything runs through the pooler.
 */
export async function openMigrationSession(url: string, setting: string): Promise<pg.Client> {
  // As `options`, since pg leaves out a statement_timeout of 0.
  const client = new pg.Client({ connectionString: url, options: '-c statement_timeout=0' });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    if (refusedStartupParameter(err)) throw new ConfigError(poolerMessage(url, setting));
    throw err;
  }
  return client;
}

function refusedStartupParameter(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  return e.code === PROTOCOL_VIOLATION && /startup parameter/i.test(String(e.message));
}

function poolerMessage(url: string, setting: string): string {
  const u = new URL(url);
  const where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  const fix =
    setting === 'DATABASE_URL'
      ? 'keep DATABASE_URL on the pooler for requests and set DATABASE_DIRECT_URL to the server itself'
      : 'set DATABASE_DIRECT_URL to the PostgreSQL server itself, not the pooler';
  return (
    `${setting} (${where}) refused the startup parameter options, which PostgreSQL accepts: it ` +
    'is a connection pooler (PgBouncer?), and migrations and Graphile Worker need sessions of their own ' +
    `on the server: ${fix} (docs/scaling.md, section 3).`
  );
}
