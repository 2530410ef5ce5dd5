import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlBool } from 'kysely';
import { minimumPrice, visibility } from '../catalogue/filters.ts';
import { db } from '../db/kysely.ts';
import { first, sql } from '../db/sql.ts';
import { AppError, field } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import { loadCatalogueContext } from '../store/catalogue-context.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { belowMinimum, type Cents, productEvent, vendorProduct } from './queries.ts';
import type { AddListingInput } from './schemas.ts';

/**
 * Adds a catalogue product to the store, or restores it if it was removed (keeping its earlier
 * settings unless a price is given). A product already in the store is a 409: the caller meant
 * something else (a price change is PUT /pricing).
 */
export async function addListing(ctx: PartnerContext, input: AddListingInput) {
  const { storeId } = ctx.actor;
  const { product_id: productId, custom_retail_price_cents: customPrice } = input;
  return ctx.em.transactional(async (tx) => {
    const store = await loadCatalogueContext(tx, storeId);
    const product = await first(
      db(tx)
        .selectFrom('products as p')
        .select(minimumPrice(store).$castTo<Cents>().as('minimum'))
        .where('p.id', '=', productId)
        .where(visibility(store).$castTo<SqlBool>()),
    );
    if (!product) {
      throw new AppError('not_found', 'PRODUCT_NOT_FOUND', `No catalogue product with id ${productId}`, {
        details: field('product_id', 'no such catalogue product'),
      });
    }
    if (customPrice !== undefined && customPrice < product.minimum) throw belowMinimum(product.minimum);
    const written = await first(insertListing(tx, storeId, productId, product.minimum, customPrice));
    if (!written) {
      throw new AppError('conflict', 'ALREADY_LISTED', `Product ${productId} is already in your store`, {
        extra: { product_id: productId },
        details: field('product_id', 'already in your store'),
      });
    }
    await recordEvents(tx, [productEvent(storeId, EVENT.product.created, productId)]);
    return {
      message: written.restored ? 'Product restored to your store' : 'Product added to your store',
      vendor_product: await vendorProduct(tx, storeId, productId),
    };
  });
}

/**
 * A new listing, or a removed one restored (`restored`): its custom price stays if still above the
 * minimum, unless a new one is given. Nothing when the product is listed already.
 */
function insertListing(
  tx: EntityManager,
  storeId: number,
  productId: number,
  minimum: Cents,
  price?: number,
) {
  return (
    db(tx)
      .insertInto('listings')
      .values({ store_id: storeId, product_id: productId, custom_retail_price_cents: price ?? null })
      .onConflict((oc) =>
        oc
          .columns(['store_id', 'product_id'])
          .doUpdateSet((eb) => ({
            deleted_at: null,
            updated_at: sql`now()`,
            custom_retail_price_cents: eb.fn.coalesce(
              'excluded.custom_retail_price_cents',
              eb
                .case()
                .when('listings.custom_retail_price_cents', '>=', minimum)
                .then(eb.ref('listings.custom_retail_price_cents'))
                .end(),
            ),
          }))
          .where('listings.deleted_at', 'is not', null),
      )
      // xmax is set on a row version that an update wrote: the conflict path, a restore.
      .returning(sql<boolean>`(xmax <> 0)`.as('restored'))
  );
}
