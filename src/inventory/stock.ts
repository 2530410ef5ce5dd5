import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, run } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';

/**
 * The live variant a stock change is for, locked: `variantId` may be left out for a product with a
 * single live variant. A retired variant holds no stock and takes none.
 */
async function stockVariant(tx: EntityManager, productId: number, variantId: number | undefined) {
  const variants = await run(
    db(tx)
      .selectFrom('product_variants')
      .select((eb) => ['id', eb('retired_at', 'is not', null).$castTo<boolean>().as('retired')])
      .where('product_id', '=', productId)
      .orderBy('position')
      .orderBy('id')
      .forUpdate(),
  );
  if (!variants.length) throw notFound(`No catalogue product with id ${productId}`, 'PRODUCT_NOT_FOUND');
  const live = variants.filter((v) => !v.retired);
  if (variantId === undefined) {
    if (live.length !== 1) {
      throw new AppError(
        'bad_request',
        'VARIANT_REQUIRED',
        `Product ${productId} has ${live.length} variants: name one`,
      );
    }
    return live[0]?.id as number;
  }
  const variant = variants.find((v) => v.id === variantId);
  if (!variant) throw notFound(`Product ${productId} has no variant ${variantId}`, 'VARIANT_NOT_FOUND');
  if (variant.retired) throw new AppError('conflict', 'VARIANT_RETIRED', `Variant ${variantId} is retired`);
  return variant.id;
}

/**
 * Writes a variant's stock (`set` replaces it: a supplier's stock update; `add` adds to it: goods
 * received). The product's total follows by trigger, and the same transaction enqueues the fan-out
 * that brings the change to every store listing it (`inventory.updated`, the feed).
 */
async function writeStock(
  em: EntityManager,
  productId: number,
  variantId: number | undefined,
  change: { set: number } | { add: number },
) {
  return em.transactional(async (tx) => {
    const target = await stockVariant(tx, productId, variantId);
    const variant = await first(
      db(tx)
        .updateTable('product_variants')
        // Computed in bigint: past PostgreSQL's integer, the write itself fails (22003), not the sum.
        .set((eb) => ({
          stock_quantity:
            'set' in change
              ? eb.cast<number>(eb.val(change.set), 'bigint')
              : eb(
                  eb.cast<number>('stock_quantity', 'bigint'),
                  '+',
                  eb.cast<number>(eb.val(change.add), 'bigint'),
                ),
        }))
        .where('id', '=', target)
        .returning('stock_quantity'),
    ).catch((err: unknown) => {
      // The variant's or the product's total (the sum of its variants) past PostgreSQL's integer.
      if ((err as { code?: string }).code === '22003') {
        throw new AppError('bad_request', 'STOCK_OUT_OF_RANGE', 'That stock would exceed 2147483647 units', {
          extra: { details: [{ path: 'quantity', message: 'the stock would exceed 2147483647' }] },
        });
      }
      throw err;
    });
    const after = await first(
      db(tx).selectFrom('products').select('stock_quantity').where('id', '=', productId),
    );
    return {
      product_id: productId,
      variant_id: target,
      quantity: variant?.stock_quantity ?? 0,
      product_stock: after?.stock_quantity ?? 0,
    };
  });
}

/** A supplier stock update: sets one variant's stock. */
export function setStock(em: EntityManager, productId: number, quantity: number, variantId?: number) {
  return writeStock(em, productId, variantId, { set: quantity });
}

/** Goods received: adds to one variant's stock. */
export function receiveStock(em: EntityManager, productId: number, quantity: number, variantId?: number) {
  return writeStock(em, productId, variantId, { add: quantity });
}
