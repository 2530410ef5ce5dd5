import type { TaskList } from 'graphile-worker';
import type { Orm } from '../server/orm.ts';
import { runReadinessPass } from '../src/catalogue/readiness.ts';

/** Every Graphile task the service runs. Each forks its own unit of work. */
export function createTaskList(orm: Orm): TaskList {
  return {
    readiness_pass: async (_payload, helpers) => {
      const result = await runReadinessPass(orm.em.fork());
      helpers.logger.info(`readiness pass scored ${result.products} products`);
    },
  };
}

/** Nightly at 03:00 UTC; `?fill=6h` runs a missed pass once if the worker was down at that time. */
export const crontab = '0 3 * * * readiness_pass ?fill=6h';
