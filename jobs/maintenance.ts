import type { Task } from 'graphile-worker';
import { runReadinessPass } from '../src/catalogue/run-readiness-pass.ts';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { pruneEventLog } from '../src/events-api/prune-events.ts';
import { pruneKeys } from '../src/idempotency/keys.ts';
import { pruneLimits } from '../src/ratelimit/limiter.ts';

/** `readiness_pass` (cron, nightly): every product's readiness score again. */
export function readinessPassTask(orm: Orm): Task {
  return async (payload, helpers) => {
    parseJobPayload(JOBS.readinessPass, payload);
    const result = await runReadinessPass({ em: orm.em.fork() });
    helpers.logger.info(`readiness pass scored ${result.products} products`);
  };
}

/** `prune_rate_limits` (cron, hourly): expired rate-limit windows are dropped. */
export function pruneRateLimitsTask(orm: Orm): Task {
  return async (payload) => {
    parseJobPayload(JOBS.pruneRateLimits, payload);
    await pruneLimits(orm.em.fork());
  };
}

/** `prune_idempotency_keys` (cron, hourly): keys past their 24 hours are dropped, in batches. */
export function pruneIdempotencyKeysTask(orm: Orm): Task {
  return async (payload, helpers) => {
    parseJobPayload(JOBS.pruneIdempotencyKeys, payload);
    const pruned = await pruneKeys(orm.em.fork());
    if (pruned > 0) helpers.logger.info(`pruned ${pruned} expired idempotency keys`);
  };
}

/**
 * `prune_events` (cron, hourly): the event log keeps 30 days; older events go in batches, with the
 * deliveries and attempts of that age (src/events-api/prune-events.ts).
 */
export function pruneEventsTask(orm: Orm): Task {
  return async (payload, helpers) => {
    parseJobPayload(JOBS.pruneEvents, payload);
    const pruned = await pruneEventLog(orm.em.fork());
    if (pruned.events + pruned.deliveries + pruned.attempts > 0) {
      helpers.logger.info(
        `pruned ${pruned.events} events, ${pruned.deliveries} deliveries and ${pruned.attempts} attempts past 30 days`,
      );
    }
  };
}
