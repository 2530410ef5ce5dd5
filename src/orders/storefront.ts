import type { EntityManager } from '@mikro-orm/postgresql';
import { EFFECTIVE_PURCHASE_MODE } from '../catalogue/filters.ts';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { insertOrder, type NewOrder, type RequestedLine, resolveVariants } from './place.ts';

export interface StorefrontCheckout {
  storeId: number;
  channel: NewOrder['channel'];
  customer: NewOrder['customer'];
  shipping: NewOrder['shipping'];
  items: RequestedLine[];
}

/**
 * A buyer's checkout on the store (the storefront lives outside this API; dashboards, demos and
 * tests drive it here). Each product must be a live listing sold by card; the price is the listing's
 * effective price. Stock is reserved like any order.
 */
export async function checkoutStorefront(em: EntityManager, input: StorefrontCheckout) {
  return em.transactional(async (tx) => {
    const resolved = await resolveVariants(tx, input.storeId, input.items);
    const listings = await rows<{
      product_id: number;
      custom: number | null;
      mode: 'buy_now' | 'enquiry';
      shown: boolean;
    }>(
      tx,
      // Hidden from the storefront by the supplier or by the store: not for sale there.
      sql`SELECT l.product_id, l.custom_retail_price_cents AS custom, ${EFFECTIVE_PURCHASE_MODE} AS mode,
          NOT ('storefront' = ANY(p.hidden_channels || l.hidden_channels)) AS shown
        FROM listings l JOIN products p ON p.id = l.product_id
        WHERE l.store_id = ${input.storeId} AND l.deleted_at IS NULL
          AND l.product_id = ANY(${resolved.map((r) => r.line.product_id)}::integer[])`,
    );
    const byProduct = new Map(listings.map((l) => [l.product_id, l]));
    const lines = resolved.map(({ line, variant }) => {
      const listing = byProduct.get(line.product_id);
      if (!listing || !variant.active || listing.mode !== 'buy_now' || !listing.shown) {
        throw new AppError(
          'bad_request',
          'PRODUCT_NOT_FOR_SALE',
          `Product ${line.product_id} is not for sale in this store`,
          {
            extra: { product_id: line.product_id },
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
    return insertOrder(tx, { ...input, orderType: 'storefront', lines });
  });
}
