import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';

/** The product row a maintenance use case starts from, locked for the change. */
export async function lockProduct(tx: EntityManager, productId: number) {
  const product = await first(
    db(tx)
      .selectFrom('products')
      .select((eb) => ['id', eb('withdrawn_at', 'is not', null).as('withdrawn')])
      .where('id', '=', productId)
      .forUpdate(),
  );
  if (!product) throw notFound(`No catalogue product with id ${productId}`, 'PRODUCT_NOT_FOUND');
  return product;
}

/** Marks the product changed, for a change made to one of its variants. */
export async function touchProduct(tx: EntityManager, productId: number): Promise<void> {
  await run(db(tx).updateTable('products').set({ updated_at: sql`now()` }).where('id', '=', productId));
}

/** A live variant of the (locked) product, or the reason it cannot be changed. */
export async function liveVariant(tx: EntityManager, productId: number, variantId: number) {
  const variant = await first(
    db(tx)
      .selectFrom('product_variants')
      .select((eb) => ['id', eb('retired_at', 'is not', null).as('retired')])
      .where('id', '=', variantId)
      .where('product_id', '=', productId)
      .forUpdate(),
  );
  if (!variant) throw notFound(`Product ${productId} has no variant ${variantId}`, 'VARIANT_NOT_FOUND');
  if (variant.retired) throw new AppError('conflict', 'VARIANT_RETIRED', `Variant ${variantId} is retired`);
  return variant;
}

/**
 * The columns a variant's UPDATE sets beside a new wholesale price (none when it sets none): the
 * price it had, and when it changed, kept only when the price really moves. Orders read them to tell
 * a price that changed from one that never was (src/orders/place-wholesale-order.ts).
 */
export function rememberWholesalePrice(next: number | undefined) {
  if (next === undefined) return {};
  const moves = sql`${next}::integer IS DISTINCT FROM wholesale_price_cents`;
  return {
    previous_wholesale_price_cents: sql<
      number | null
    >`CASE WHEN ${moves} THEN wholesale_price_cents ELSE previous_wholesale_price_cents END`,
    wholesale_price_changed_at: sql<
      string | null
    >`CASE WHEN ${moves} THEN now() ELSE wholesale_price_changed_at END`,
  };
}
