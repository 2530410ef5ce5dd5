import type pg from 'pg';

/** What one scrape reads from the database, in one read-only transaction under a short timeout. */
export interface DbSnapshot {
  jobs: { task: string; queued: number; running: number; failed: number; oldest: number }[];
  eventsOldestPending: number;
  deliveriesDue: number;
  deliveriesOldestDue: number;
  oldestXact: number;
  subscriptions: { held: number; manual: number; gone: number; dead_letters: number };
  exports: { status: string; n: number }[];
}

/**
 * Graphile Worker's jobs by task: queued (due now, not taken), running (taken), failed (out of
 * attempts, kept until removed), and the age of the oldest queued one. Every known task, so a
 * drained queue reads 0 rather than vanishing.
 */
const JOBS_SQL = `SELECT t.identifier AS task,
    count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.run_at <= now() AND j.attempts < j.max_attempts)::int AS queued,
    count(j.id) FILTER (WHERE j.locked_at IS NOT NULL)::int AS running,
    count(j.id) FILTER (WHERE j.attempts >= j.max_attempts)::int AS failed,
    COALESCE(extract(epoch FROM now() - min(j.run_at)
      FILTER (WHERE j.locked_at IS NULL AND j.run_at <= now() AND j.attempts < j.max_attempts)), 0)::float8 AS oldest
  FROM graphile_worker._private_tasks t
  LEFT JOIN graphile_worker._private_jobs j ON j.task_id = t.id
  GROUP BY t.identifier`;

/**
 * The event log's head: the oldest domain event not yet dispatched (its partial index's first row).
 * The inventory feed's head: the oldest transaction holding an xid anywhere in the cluster; the feed
 * serves rows below pg_snapshot_xmin, so nothing after it is visible until it ends. Needs
 * pg_read_all_stats (or pg_monitor) to see other roles' sessions.
 */
const HEADS_SQL = `SELECT
    COALESCE((SELECT extract(epoch FROM now() - created_at) FROM domain_events
      WHERE dispatched_at IS NULL ORDER BY id LIMIT 1), 0)::float8 AS events_oldest,
    (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now())::float8 AS due,
    COALESCE((SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now()), 0)::float8 AS oldest_due,
    COALESCE((SELECT extract(epoch FROM now() - min(xact_start)) FROM pg_stat_activity
      WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()), 0)::float8 AS oldest_xact`;

const SUBSCRIPTIONS_SQL = `SELECT
    count(*) FILTER (WHERE held_by IS NOT NULL AND held_until > now())::int AS held,
    count(*) FILTER (WHERE NOT active AND disabled_reason = 'manual')::int AS manual,
    count(*) FILTER (WHERE NOT active AND disabled_reason = 'gone')::int AS gone,
    count(*) FILTER (WHERE NOT active AND disabled_reason = 'dead_letters')::int AS dead_letters
  FROM webhook_subscriptions`;

const EXPORTS_SQL = 'SELECT status, count(*)::int AS n FROM exports GROUP BY status';

/** Reads the snapshot; the statement timeout bounds every statement, the caller bounds the whole. */
export async function readDbSnapshot(pool: pg.Pool, timeoutMs: number): Promise<DbSnapshot> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.round(timeoutMs)}`);
    const jobs = await client.query<DbSnapshot['jobs'][number]>(JOBS_SQL);
    const heads = await client.query<{
      events_oldest: number;
      due: number;
      oldest_due: number;
      oldest_xact: number;
    }>(HEADS_SQL);
    const subs = await client.query<DbSnapshot['subscriptions']>(SUBSCRIPTIONS_SQL);
    const exports = await client.query<{ status: string; n: number }>(EXPORTS_SQL);
    await client.query('COMMIT');
    const h = heads.rows[0];
    return {
      jobs: jobs.rows,
      eventsOldestPending: h?.events_oldest ?? 0,
      deliveriesDue: h?.due ?? 0,
      deliveriesOldestDue: h?.oldest_due ?? 0,
      oldestXact: h?.oldest_xact ?? 0,
      subscriptions: subs.rows[0] ?? { held: 0, manual: 0, gone: 0, dead_letters: 0 },
      exports: exports.rows,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
