import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';

/**
 * Publishes or unpublishes the storefront. Only a real change fires `site.published` /
 * `site.unpublished`, so repeating the call is harmless.
 */
export async function setPublished(em: EntityManager, storeId: number, published: boolean) {
  return em.transactional(async (tx) => {
    const [before] = await rows<{ published: boolean }>(
      tx,
      sql`SELECT published_at IS NOT NULL AS published FROM stores WHERE id = ${storeId} FOR UPDATE`,
    );
    if (!before) throw notFound(`No store with id ${storeId}`, 'STORE_NOT_FOUND');
    const [after] = await rows<{ published_at: string | null }>(
      tx,
      sql`UPDATE stores SET published_at = CASE WHEN ${published} THEN COALESCE(published_at, now()) END,
          updated_at = now()
        WHERE id = ${storeId} RETURNING ${isoTime(sql`published_at`)} AS published_at`,
    );
    const changed = before.published !== published;
    if (changed) {
      await recordEvents(tx, [
        {
          storeId,
          event: published ? 'site.published' : 'site.unpublished',
          entityId: storeId,
          data: { store_id: storeId, published, published_at: after?.published_at ?? null },
        },
      ]);
    }
    return { store_id: storeId, published, published_at: after?.published_at ?? null, changed };
  });
}
