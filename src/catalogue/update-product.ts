import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { queueProductChange } from './change-fanout.ts';
import { minimumPriceAt } from './filters.ts';
import type { UpdateProductInput } from './maintenance-schemas.ts';
import { scoreRange } from './readiness.ts';

/** The product row a maintenance use case starts from, locked for the change. */
export async function lockProduct(tx: EntityManager, productId: number) {
  const [product] = await rows<{ id: number; withdrawn: boolean }>(
    tx,
    sql`SELECT id, withdrawn_at IS NOT NULL AS withdrawn FROM products WHERE id = ${productId} FOR UPDATE`,
  );
  if (!product) throw notFound(`No catalogue product with id ${productId}`, 'PRODUCT_NOT_FOUND');
  return product;
}

/**
 * A store's custom price must never sit below its minimum: when a price change raises the minimum
 * past it, the custom price is cleared (the listing sells at the suggested price again, as a
 * restored listing does) rather than kept at a loss. The stores hear of it through the
 * `product.updated` every listing store gets. Returns how many listings were cleared.
 */
export async function clearPricesBelowMinimum(tx: EntityManager, productId: number): Promise<number> {
  const cleared = await rows(
    tx,
    sql`UPDATE listings l SET custom_retail_price_cents = NULL, updated_at = now()
      FROM products p, stores s
      WHERE p.id = ${productId} AND l.product_id = p.id AND s.id = l.store_id
        AND l.deleted_at IS NULL AND l.custom_retail_price_cents IS NOT NULL
        AND l.custom_retail_price_cents < ${minimumPriceAt(sql`s.min_margin_bps`)}
      RETURNING l.id`,
  );
  return cleared.length;
}

async function categoryId(tx: EntityManager, slug: string | null): Promise<number | null> {
  if (slug === null) return null;
  const [found] = await rows<{ id: number }>(tx, sql`SELECT id FROM categories WHERE slug = ${slug}`);
  if (!found) {
    throw new AppError('bad_request', 'UNKNOWN_CATEGORY', `No category with slug ${slug}`, {
      extra: { details: [{ path: 'category', message: 'not a category slug' }] },
    });
  }
  return found.id;
}

/**
 * Changes a catalogue product's details, prices or channel visibility in one transaction: the facet
 * cells, the stores' cells and earn follow by trigger, the readiness scores are recomputed, custom
 * prices the change put below a store's minimum are cleared, and every listing store gets
 * `product.updated` (with the product at the head of its inventory feed when the feed shows the change).
 */
export async function updateProduct(em: EntityManager, input: UpdateProductInput) {
  return em.transactional(async (tx) => {
    await lockProduct(tx, input.productId);
    const set: RawBuilder<unknown>[] = [sql`updated_at = now()`];
    if (input.name !== undefined) set.push(sql`name = ${input.name}`);
    if (input.description !== undefined) set.push(sql`description = ${input.description}`);
    if (input.image_url !== undefined) set.push(sql`image_url = ${input.image_url}`);
    if (input.category !== undefined) {
      set.push(sql`category_id = ${await categoryId(tx, input.category)}, category_raw = NULL`);
    }
    if (input.weight_oz !== undefined) set.push(sql`weight_oz = ${input.weight_oz}`);
    if (input.dimensions !== undefined) {
      const d = input.dimensions;
      set.push(sql`width_cm = ${d?.width_cm ?? null}, depth_cm = ${d?.depth_cm ?? null},
        height_cm = ${d?.height_cm ?? null}`);
    }
    if (input.wholesale_price_cents !== undefined)
      set.push(sql`wholesale_price_cents = ${input.wholesale_price_cents}`);
    if (input.retail_price_cents !== undefined)
      set.push(sql`retail_price_cents = ${input.retail_price_cents}`);
    if (input.hidden_channels !== undefined)
      set.push(sql`hidden_channels = ${input.hidden_channels}::text[]`);
    await rows(tx, sql`UPDATE products SET ${sql.join(set)} WHERE id = ${input.productId}`);

    if (input.images !== undefined) {
      await rows(tx, sql`DELETE FROM product_images WHERE product_id = ${input.productId}`);
      if (input.images.length) {
        await rows(
          tx,
          sql`INSERT INTO product_images (product_id, url, alt, position)
            SELECT ${input.productId}, u.url, u.alt, u.position
            FROM unnest(${input.images.map((i) => i.url)}::text[], ${input.images.map((i) => i.alt)}::text[])
              WITH ORDINALITY AS u(url, alt, position)`,
        );
      }
    }
    // The product's price is every variant's price: a variant priced on its own is changed as a variant.
    const repriced = input.wholesale_price_cents !== undefined || input.retail_price_cents !== undefined;
    if (repriced) {
      await rows(
        tx,
        sql`UPDATE product_variants SET
            wholesale_price_cents = COALESCE(${input.wholesale_price_cents ?? null}::integer, wholesale_price_cents),
            retail_price_cents = COALESCE(${input.retail_price_cents ?? null}::integer, retail_price_cents)
          WHERE product_id = ${input.productId} AND retired_at IS NULL`,
      );
    }
    const cleared = repriced ? await clearPricesBelowMinimum(tx, input.productId) : 0;
    await scoreRange(tx, input.productId, input.productId);
    await queueProductChange(tx, {
      productId: input.productId,
      event: 'product.updated',
      feed: input.name !== undefined,
    });
    return { product_id: input.productId, custom_prices_cleared: cleared };
  });
}
