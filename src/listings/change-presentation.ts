import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
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
    const updated = await rows<{ id: number }>(
      tx,
      sql`UPDATE listings SET updated_at = now(),
          custom_title = CASE WHEN ${change.customTitle !== undefined} THEN ${change.customTitle ?? null}::text
            ELSE custom_title END,
          hidden_channels = COALESCE(${change.hiddenChannels ?? null}::text[], hidden_channels)
        WHERE store_id = ${storeId} AND product_id = ${productId} AND deleted_at IS NULL
        RETURNING id`,
    );
    if (!updated.length) throw notFound(`Product ${productId} is not in store ${storeId}`, 'NOT_IN_STORE');
    await recordEvents(tx, [productEvent(storeId, 'product.updated', productId)]);
    return { store_id: storeId, product_id: productId };
  });
}
