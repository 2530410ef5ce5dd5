import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first, run } from '../db/sql.ts';
import { AppError, field, notFound } from '../errors.ts';
import { domainEvent, recordEvents } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { CreateOwnGoodsInput } from './schemas.ts';

/** The store's own supplier, created (named after the store) on first use. */
async function ownSupplier(tx: EntityManager, storeId: number, storeName: string) {
  const supplier =
    (await first(
      db(tx)
        .selectFrom('suppliers')
        .select('id')
        .where('owner_store_id', '=', storeId)
        .orderBy('id')
        .limit(1),
    )) ??
    (await first(
      db(tx)
        .insertInto('suppliers')
        .values({ name: `${storeName} (own goods)`, owner_store_id: storeId })
        .returning('id'),
    ));
  if (!supplier) throw new Error('own supplier was not created');
  return supplier;
}

/**
 * A product of the store's own supplier (created on first use), listed in the store at once: the
 * store sells it and ships it itself. Emits `product.created` like any listing.
 */
export async function createOwnGoods(ctx: UseCaseContext, input: CreateOwnGoodsInput) {
  return ctx.em.transactional(async (tx) => {
    const store = await first(db(tx).selectFrom('stores').select('name').where('id', '=', input.storeId));
    if (!store) throw notFound(`No store with id ${input.storeId}`, 'STORE_NOT_FOUND');
    const taken = await first(
      db(tx)
        .selectFrom('products')
        .select((eb) => eb.lit(1).as('one'))
        .where('sku', '=', input.sku),
    );
    if (taken) {
      throw new AppError('conflict', 'SKU_TAKEN', `SKU ${input.sku} is already in the catalogue`, {
        details: field('sku', 'already in the catalogue'),
      });
    }
    const supplier = await ownSupplier(tx, input.storeId, store.name);
    const prices = { wholesale_price_cents: input.costCents ?? 0, retail_price_cents: input.priceCents };
    const product = await first(
      db(tx)
        .insertInto('products')
        .values({ supplier_id: supplier.id, name: input.name, sku: input.sku, ...prices })
        .returning('id'),
    );
    if (!product) throw new Error('own goods product was not created');
    await run(
      db(tx)
        .insertInto('product_variants')
        .values({
          product_id: product.id,
          sku: input.sku,
          title: 'Default',
          ...prices,
          stock_quantity: input.stock,
        }),
    );
    const listing = await first(
      db(tx)
        .insertInto('listings')
        .values({ store_id: input.storeId, product_id: product.id })
        .returning('id'),
    );
    await recordEvents(tx, [
      domainEvent(EVENT.product.created, {
        storeId: input.storeId,
        entityId: product.id,
        data: { product_id: product.id },
      }),
    ]);
    return { product_id: product.id, listing_id: listing?.id ?? null, supplier_id: supplier.id };
  });
}
