import { AppError, field } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { insertOrder, resolveVariants } from './place.ts';
import type { WholesaleOrderInput } from './schemas.ts';

/**
 * The store buys catalogue products from Stockless at wholesale. Every product must be active, have
 * images and enough stock; a `price_cents` sent on a line must be today's wholesale price. Checked
 * and reserved in one transaction: a refused order leaves stock and numbering as they were.
 */
export async function placeWholesaleOrder(ctx: PartnerContext, input: WholesaleOrderInput) {
  const { storeId } = ctx.actor;
  return ctx.em.transactional(async (tx) => {
    const resolved = await resolveVariants(tx, storeId, input.items);
    for (const { line, index, variant } of resolved) {
      const why = variant.own_goods
        ? 'it is your own goods, not sold by Stockless'
        : !variant.active
          ? 'it is not active'
          : !variant.has_images
            ? 'it has no images'
            : null;
      if (why) {
        throw new AppError(
          'bad_request',
          'PRODUCT_NOT_ORDERABLE',
          `Product ${line.product_id} cannot be ordered: ${why}`,
          {
            extra: { product_id: line.product_id },
            details: field(`items.${index}.product_id`, `cannot be ordered: ${why}`),
          },
        );
      }
    }
    refuseUnknownPrices(resolved);
    const stale = resolved.filter(
      ({ line, variant }) =>
        line.price_cents !== undefined && line.price_cents !== variant.wholesale_price_cents,
    );
    if (stale.length) {
      throw new AppError(
        'conflict',
        'PRICE_CHANGED',
        'A wholesale price has changed; review the current prices',
        {
          extra: {
            lines: stale.map(({ line, variant }) => ({
              product_id: line.product_id,
              variant_id: variant.variant_id,
              price_cents: variant.wholesale_price_cents,
            })),
          },
          details: stale.map(({ index, variant }) => ({
            path: `items.${index}.price_cents`,
            message: `the wholesale price is now ${variant.wholesale_price_cents}`,
          })),
        },
      );
    }
    const order = await insertOrder(tx, {
      storeId,
      livemode: ctx.actor.livemode,
      orderType: 'wholesale_api',
      channel: 'direct',
      customer: input.customer,
      shipping: input.shipping,
      payment: input.payment,
      lines: resolved.map(({ line, variant }) => ({
        productId: line.product_id,
        variantId: variant.variant_id,
        sku: variant.sku,
        name: variant.name,
        quantity: line.quantity,
        priceCents: variant.wholesale_price_cents,
      })),
    });
    return { order };
  });
}

interface PricedLine {
  index: number;
  line: { product_id: number; price_cents?: number };
  variant: { wholesale_price_cents: number; recent_wholesale_price_cents: number | null };
}

/**
 * A `price_cents` that is neither today's wholesale price nor the one before its last (recent) change
 * was never a price the client could have read: 400 `PRICE_MISMATCH`, not 409 `PRICE_CHANGED`.
 */
function refuseUnknownPrices(resolved: readonly PricedLine[]) {
  const wrong = resolved.filter(
    ({ line, variant }) =>
      line.price_cents !== undefined &&
      line.price_cents !== variant.wholesale_price_cents &&
      line.price_cents !== variant.recent_wholesale_price_cents,
  );
  if (wrong.length === 0) return;
  throw new AppError('bad_request', 'PRICE_MISMATCH', 'A price_cents sent is not the wholesale price', {
    details: wrong.map(({ index, line, variant }) => ({
      path: `items.${index}.price_cents`,
      message: `${line.price_cents} is not the wholesale price of product ${line.product_id} (${variant.wholesale_price_cents}), nor was it recently`,
    })),
  });
}
