import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { EFFECTIVE_PURCHASE_MODE } from '../catalogue/filters.ts';
import { type DB, db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { run, sql } from '../db/sql.ts';
import { AppError, field } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { insertOrder, resolveVariants } from './place.ts';
import type { CheckoutStorefrontInput } from './schemas.ts';

/** The store's live listings of these products, with what selling them by card depends on. */
function storeListings(tx: EntityManager, storeId: number, productIds: number[]) {
  return run(
    db(tx)
      .selectFrom('listings as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .select((eb) => [
        'l.product_id',
        eb.ref('l.custom_retail_price_cents').as('custom'),
        EFFECTIVE_PURCHASE_MODE.$castTo<Selectable<DB['products']>['purchase_mode']>().as('mode'),
        // Hidden from the storefront by the supplier or by the store: not for sale there.
        eb
          .not(
            eb(
              sql.lit('storefront'),
              '=',
              eb.fn.any(eb('p.hidden_channels', '||', eb.ref('l.hidden_channels'))),
            ),
          )
          .$castTo<boolean>()
          .as('shown'),
      ])
      .where(ownedBy({ storeId }, 'listings as l'))
      .where('l.deleted_at', 'is', null)
      .where('l.product_id', '=', (eb) => eb.fn.any(sql<number[]>`${productIds}::integer[]`)),
  );
}

/**
 * A buyer's checkout on the store (the storefront lives outside this API; dashboards, demos and
 * tests drive it here). Each product must be a live listing sold by card; the price is the listing's
 * effective price. Stock is reserved like any order.
 */
export async function checkoutStorefront(
  ctx: Pick<UseCaseContext, 'em'>,
  input: Omit<CheckoutStorefrontInput, 'livemode'> & { livemode?: boolean },
) {
  return ctx.em.transactional(async (tx) => {
    const resolved = await resolveVariants(tx, input.storeId, input.items);
    const listings = await storeListings(
      tx,
      input.storeId,
      resolved.map((r) => r.line.product_id),
    );
    const byProduct = new Map(listings.map((l) => [l.product_id, l]));
    const lines = resolved.map(({ line, index, variant }) => {
      const listing = byProduct.get(line.product_id);
      if (!listing || !variant.active || listing.mode !== 'buy_now' || !listing.shown) {
        throw new AppError(
          'bad_request',
          'PRODUCT_NOT_FOR_SALE',
          `Product ${line.product_id} is not for sale in this store`,
          {
            extra: { product_id: line.product_id },
            details: field(`items.${index}.product_id`, 'not for sale in this store'),
          },
        );
      }
      return {
        productId: line.product_id,
        variantId: variant.variant_id,
        sku: variant.sku,
        name: variant.name,
        quantity: line.quantity,
        priceCents: listing.custom ?? variant.retail_price_cents,
      };
    });
    return insertOrder(tx, { ...input, livemode: input.livemode ?? true, orderType: 'storefront', lines });
  });
}
