import type { Task } from 'graphile-worker';
import { runProductFanout } from '../src/catalogue/change-fanout.ts';
import type { Orm } from '../src/db/orm.ts';

/** `catalogue_fanout` (payload: the product's changes, `queueProductChange`): listing stores hear of them. */
export function catalogueFanoutTask(orm: Orm): Task {
  return async (payload, helpers) => {
    const stores = await runProductFanout(orm.em.fork(), payload);
    helpers.logger.debug(`a catalogue change reached ${stores} stores`);
  };
}
