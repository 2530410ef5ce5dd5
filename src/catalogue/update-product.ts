import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import { minimumPriceAt } from './filters.ts';
import { queueProductChange } from './product-change-propagation.ts';
import { lockProduct, rememberWholesalePrice } from './product-writes.ts';
import { scoreRange } from './readiness-scores.ts';
import type { UpdateProductInput } from './schemas.ts';

/**
 * A store's custom price must never sit below its minimum: when a price change raises the minimum
 * past it, the custom price is cleared (the listing sells at the suggested price again, as a
 * restored listing does) rather than kept at a loss. The stores hear of it through the
 * `product.updated` every listing store gets. Returns how many listings were cleared.
 */
async function clearPricesBelowMinimum(tx: EntityManager, productId: number): Promise<number> {
  const cleared = await run(
    db(tx)
      .updateTable('listings as l')
      .from(['products as p', 'stores as s'])
      .set({ custom_retail_price_cents: null, updated_at: sql`now()` })
      .where('p.id', '=', productId)
      .whereRef('l.product_id', '=', 'p.id')
      .whereRef('s.id', '=', 'l.store_id')
      .where('l.deleted_at', 'is', null)
      .where('l.custom_retail_price_cents', 'is not', null)
      // minimumPriceAt is an `::integer` expression of `p` (filters.ts, shared with the reads).
      .where('l.custom_retail_price_cents', '<', minimumPriceAt(sql`s.min_margin_bps`).$castTo<number>())
      .returning('l.id'),
  );
  return cleared.length;
}

async function categoryId(tx: EntityManager, slug: string | null): Promise<number | null> {
  if (slug === null) return null;
  const found = await first(db(tx).selectFrom('categories').select('id').where('slug', '=', slug));
  if (!found) {
    throw new AppError('bad_request', 'UNKNOWN_CATEGORY', `No category with slug ${slug}`, {
      extra: { details: [{ path: 'category', message: 'not a category slug' }] },
    });
  }
  return found.id;
}

/**
 * A measure for a numeric column, which the entities type as its text (what the driver reads): a
 * number is sent as that same text.
 */
const numeric = (n: number | null) => (n === null ? null : String(n));

/** The product's own columns the input changes (kysely leaves out those it does not name). */
async function productChanges(tx: EntityManager, input: UpdateProductInput) {
  const d = input.dimensions;
  return {
    name: input.name,
    description: input.description,
    image_url: input.image_url,
    ...(input.category !== undefined && {
      category_id: await categoryId(tx, input.category),
      category_raw: null,
    }),
    weight_oz: input.weight_oz === undefined ? undefined : numeric(input.weight_oz),
    ...(d !== undefined && {
      width_cm: numeric(d?.width_cm ?? null),
      depth_cm: numeric(d?.depth_cm ?? null),
      height_cm: numeric(d?.height_cm ?? null),
    }),
    wholesale_price_cents: input.wholesale_price_cents,
    retail_price_cents: input.retail_price_cents,
    hidden_channels: input.hidden_channels,
  };
}

/** Replaces the product's gallery with `images`, numbered from 1 in the order given. */
async function replaceImages(tx: EntityManager, productId: number, images: { url: string; alt: string }[]) {
  await run(db(tx).deleteFrom('product_images').where('product_id', '=', productId));
  if (!images.length) return;
  await run(
    db(tx)
      .insertInto('product_images')
      .values(images.map((i, n) => ({ product_id: productId, url: i.url, alt: i.alt, position: n + 1 }))),
  );
}

/**
 * Changes a catalogue product's details, prices or channel visibility in one transaction: the facet
 * cells, the stores' cells and earn follow by trigger, the readiness scores are recomputed, custom
 * prices the change put below a store's minimum are cleared, and every listing store gets
 * `product.updated` (with the product at the head of its inventory feed when the feed shows the change).
 */
export async function updateProduct(ctx: UseCaseContext, input: UpdateProductInput) {
  return ctx.em.transactional(async (tx) => {
    await lockProduct(tx, input.productId);
    const changes = await productChanges(tx, input);
    await run(
      db(tx)
        .updateTable('products')
        .set({ updated_at: sql`now()`, ...changes })
        .where('id', '=', input.productId),
    );
    if (input.images !== undefined) await replaceImages(tx, input.productId, input.images);
    // The product's price is every variant's price: a variant priced on its own is changed as a variant.
    const repriced = input.wholesale_price_cents !== undefined || input.retail_price_cents !== undefined;
    if (repriced) {
      await run(
        db(tx)
          .updateTable('product_variants')
          .set((eb) => ({
            ...rememberWholesalePrice(input.wholesale_price_cents),
            wholesale_price_cents: eb.fn.coalesce(
              eb.val(input.wholesale_price_cents ?? null),
              'wholesale_price_cents',
            ),
            retail_price_cents: eb.fn.coalesce(
              eb.val(input.retail_price_cents ?? null),
              'retail_price_cents',
            ),
          }))
          .where('product_id', '=', input.productId)
          .where('retired_at', 'is', null),
      );
    }
    const cleared = repriced ? await clearPricesBelowMinimum(tx, input.productId) : 0;
    await scoreRange(tx, input.productId, input.productId);
    await queueProductChange(tx, {
      productId: input.productId,
      event: EVENT.product.updated,
      feed: input.name !== undefined,
    });
    return { product_id: input.productId, custom_prices_cleared: cleared };
  });
}
