import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { closeCoalescingWindow } from '../src/webhooks/fanout.ts';

/** `webhook_coalesce` (payload: the window's changes per store): the window closes, one event each. */
export function webhookCoalesceTask(orm: Orm): Task {
  return async (payload) => {
    await closeCoalescingWindow(orm.em.fork(), parseJobPayload(JOBS.webhookCoalesce, payload));
  };
}
