import type { EntityManager } from '@mikro-orm/postgresql';
import { JOBS, keyedJob } from '../../db/jobs.ts';
import { rows, sql } from '../../db/sql.ts';

/**
 * A wake-up for when the next subscription's work falls due (a retry, a hold that may end with its
 * worker gone), at least a second ahead: what is due now is taken by the runs already going.
 */
export async function scheduleNextWake(em: EntityManager): Promise<void> {
  await rows(
    em,
    sql`SELECT ${keyedJob(JOBS.deliverWebhooks, {
      key: sql`${`${JOBS.deliverWebhooks}:`}::text || floor(extract(epoch FROM due_at))::bigint`,
      mode: 'preserve_run_at',
      runAt: sql`due_at`,
    })}
      FROM (SELECT GREATEST(soonest, now() + interval '1 second') AS due_at
            FROM (SELECT min(GREATEST(next_due_at, held_until)) AS soonest
                  FROM webhook_subscriptions WHERE active AND next_due_at IS NOT NULL) due
            -- GREATEST skips NULLs: without this, no work at all would still wake the worker every second.
            WHERE soonest IS NOT NULL) next`,
  );
}
