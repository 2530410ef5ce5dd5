import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { run, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { productEvent } from './service.ts';

/**
 * A dashboard change to how the store presents a listing: its own title (null restores the
 * catalogue's name) or the channels it is hidden from. The store gets `product.updated`, and the
 * listing's feed position moves (listing trigger) since the feed shows the title.
 */
export async function changeListingPresentation(
  em: EntityManager,
  storeId: number,
  productId: number,
  change: { customTitle?: string | null; hiddenChannels?: string[] },
) {
  return em.transactional(async (tx) => {
    const updated = await run(
      db(tx)
        .updateTable('listings')
        .set({
          updated_at: sql`now()`,
          // What the change leaves out stays as it is.
          ...(change.customTitle !== undefined && { custom_title: change.customTitle }),
          ...(change.hiddenChannels !== undefined && { hidden_channels: change.hiddenChannels }),
        })
        .where('store_id', '=', storeId)
        .where('product_id', '=', productId)
        .where('deleted_at', 'is', null)
        .returning('id'),
    );
    if (!updated.length) throw notFound(`Product ${productId} is not in store ${storeId}`, 'NOT_IN_STORE');
    await recordEvents(tx, [productEvent(storeId, 'product.updated', productId)]);
    return { store_id: storeId, product_id: productId };
  });
}
