import type { Task } from 'graphile-worker';
import { runProductFanout } from '../src/catalogue/product-change-propagation.ts';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';

/**
 * `catalogue_fanout` (payload: the product's changes, `queueProductChange`; schema in
 * src/db/job-payloads.ts): listing stores hear of them.
 */
export function catalogueFanoutTask(orm: Orm): Task {
  return async (payload, helpers) => {
    const stores = await runProductFanout(orm.em.fork(), parseJobPayload(JOBS.catalogueFanout, payload));
    helpers.logger.debug(`a catalogue change reached ${stores} stores`);
  };
}
