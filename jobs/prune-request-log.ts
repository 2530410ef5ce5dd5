import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { pruneRequestLog } from '../src/request-log/prune-requests.ts';

/** `prune_request_log` (cron, hourly): requests past the log's 7 days go, in batches. */
export function pruneRequestLogTask(orm: Orm): Task {
  return async (payload, helpers) => {
    parseJobPayload(JOBS.pruneRequestLog, payload);
    const pruned = await pruneRequestLog(orm.em.fork());
    if (pruned > 0) helpers.logger.info(`pruned ${pruned} requests past the request log's 7 days`);
  };
}
