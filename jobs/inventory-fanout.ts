import type { Task } from 'graphile-worker';
import { enqueueJob, JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { onlyVariant } from '../src/events/ids-only.ts';
import { drainStockChanges } from '../src/inventory/stock-change-drain.ts';
import { fanOutStock, parseFanoutPayload } from '../src/inventory/stock-propagation.ts';
import { syncStockTotal } from '../src/inventory/stock-total.ts';

/** How soon a drain follows one that could not finish everything (see Drained). */
const RECHECK_MS = 250;

/**
 * `inventory_fanout` (queued by the stock trigger when a product starts waiting, keyed by one of 64
 * shards of its id; payload `{ product_id }`, the shard's first):
 * drains every waiting stock change (src/inventory/stock-change-drain.ts), the product's among them, so a
 * burst of orders is fanned out a batch of products per transaction, not a job's transactions per
 * product. An older array payload names its variants and is fanned out alone, as it was.
 */
export function inventoryFanoutTask(orm: Orm): Task {
  return async (payload, helpers) => {
    // The schema refuses a payload with no usable product_id, so parseFanoutPayload's null cannot follow.
    const parsed = parseFanoutPayload(parseJobPayload(JOBS.inventoryFanout, payload));
    if (!parsed) throw new Error('inventory_fanout needs a numeric product_id');
    const em = orm.em.fork();
    const reached = [];
    if (parsed.changes.length > 0) {
      await syncStockTotal(em, parsed.productId);
      const stores = await fanOutStock(em, parsed.productId, onlyVariant(parsed.changes));
      reached.push({ productId: parsed.productId, stores });
    }
    const drained = await drainStockChanges(em);
    reached.push(...drained.reached);
    for (const r of reached)
      helpers.logger.debug(`stock of product ${r.productId} reached ${r.stores} stores`);
    if (drained.again) {
      await enqueueJob(
        helpers,
        JOBS.inventoryFanout,
        { product_id: parsed.productId },
        {
          jobKey: `${JOBS.inventoryFanout}:recheck`,
          jobKeyMode: 'preserve_run_at',
          runAt: new Date(Date.now() + RECHECK_MS),
        },
      );
    }
  };
}
