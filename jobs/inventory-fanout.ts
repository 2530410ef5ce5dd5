import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { fanOutStock, parseFanoutPayload, takeFanoutVariant } from '../src/inventory/fanout.ts';
import { syncStockTotal } from '../src/inventory/stock-total.ts';

/**
 * `inventory_fanout` (queued by the stock trigger, one job per product; payload `{ product_id }`,
 * the waiting change in inventory_fanout_pending): the product's total follows its variants, then
 * every store listing it hears of it (so a feed or an event never shows an older total).
 */
export function inventoryFanoutTask(orm: Orm): Task {
  return async (payload, helpers) => {
    // The schema refuses a payload with no usable product_id, so parseFanoutPayload's null cannot follow.
    const parsed = parseFanoutPayload(parseJobPayload(JOBS.inventoryFanout, payload));
    if (!parsed) throw new Error('inventory_fanout needs a numeric product_id');
    const em = orm.em.fork();
    await syncStockTotal(em, parsed.productId);
    const variantId = await takeFanoutVariant(em, parsed.productId, parsed.changes);
    const stores = await fanOutStock(em, parsed.productId, variantId);
    helpers.logger.debug(`stock of product ${parsed.productId} reached ${stores} stores`);
  };
}
