import { db } from '../db/kysely.ts';
import { first, isoTime, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { domainEvent, recordEvents } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { SetPublishedInput } from './schemas.ts';

/**
 * Publishes or unpublishes the storefront. Only a real change fires `site.published` /
 * `site.unpublished`, so repeating the call is harmless.
 */
export async function setPublished(ctx: UseCaseContext, { storeId, published }: SetPublishedInput) {
  return ctx.em.transactional(async (tx) => {
    const before = await first(
      db(tx)
        .selectFrom('stores')
        .select((eb) => eb('published_at', 'is not', null).$castTo<boolean>().as('published'))
        .where('id', '=', storeId)
        .forUpdate(),
    );
    if (!before) throw notFound(`No store with id ${storeId}`, 'STORE_NOT_FOUND');
    const after = await first(
      db(tx)
        .updateTable('stores')
        .set((eb) => ({
          // Publishing again keeps the first publication's time.
          published_at: published ? eb.fn.coalesce('published_at', sql<string>`now()`) : null,
          updated_at: sql`now()`,
        }))
        .where('id', '=', storeId)
        .returning((eb) => isoTime(eb.ref('published_at')).$castTo<string | null>().as('published_at')),
    );
    const changed = before.published !== published;
    if (changed) {
      await recordEvents(tx, [
        domainEvent(published ? EVENT.site.published : EVENT.site.unpublished, {
          storeId,
          entityId: storeId,
          data: { store_id: storeId, published, published_at: after?.published_at ?? null },
        }),
      ]);
    }
    return { store_id: storeId, published, published_at: after?.published_at ?? null, changed };
  });
}
