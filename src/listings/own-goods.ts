import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';

export interface CreateOwnGoodsInput {
  storeId: number;
  sku: string;
  name: string;
  priceCents: number;
  costCents?: number;
  stock: number;
}

/**
 * A product of the store's own supplier (created on first use), listed in the store at once: the
 * store sells it and ships it itself. Emits `product.created` like any listing.
 */
export async function createOwnGoods(em: EntityManager, input: CreateOwnGoodsInput) {
  return em.transactional(async (tx) => {
    const [store] = await rows<{ name: string }>(
      tx,
      sql`SELECT name FROM stores WHERE id = ${input.storeId}`,
    );
    if (!store) throw notFound(`No store with id ${input.storeId}`, 'STORE_NOT_FOUND');
    const [taken] = await rows(tx, sql`SELECT 1 FROM products WHERE sku = ${input.sku}`);
    if (taken) throw new AppError('conflict', 'SKU_TAKEN', `SKU ${input.sku} is already in the catalogue`);
    let [supplier] = await rows<{ id: number }>(
      tx,
      sql`SELECT id FROM suppliers WHERE owner_store_id = ${input.storeId} ORDER BY id LIMIT 1`,
    );
    supplier ??= (
      await rows<{ id: number }>(
        tx,
        sql`INSERT INTO suppliers (name, owner_store_id) VALUES (${`${store.name} (own goods)`}, ${input.storeId})
          RETURNING id`,
      )
    )[0];
    if (!supplier) throw new Error('own supplier was not created');
    const [product] = await rows<{ id: number }>(
      tx,
      sql`INSERT INTO products (supplier_id, name, sku, wholesale_price_cents, retail_price_cents)
        VALUES (${supplier.id}, ${input.name}, ${input.sku}, ${input.costCents ?? 0}, ${input.priceCents})
        RETURNING id`,
    );
    if (!product) throw new Error('own goods product was not created');
    await rows(
      tx,
      sql`INSERT INTO product_variants (product_id, sku, title, wholesale_price_cents, retail_price_cents, stock_quantity)
        VALUES (${product.id}, ${input.sku}, 'Default', ${input.costCents ?? 0}, ${input.priceCents}, ${input.stock})`,
    );
    const [listing] = await rows<{ id: number }>(
      tx,
      sql`INSERT INTO listings (store_id, product_id) VALUES (${input.storeId}, ${product.id}) RETURNING id`,
    );
    await recordEvents(tx, [
      {
        storeId: input.storeId,
        event: 'product.created',
        entityId: product.id,
        data: { product_id: product.id },
      },
    ]);
    return { product_id: product.id, listing_id: listing?.id ?? null, supplier_id: supplier.id };
  });
}

/** The store's own goods (products of its own suppliers) with whether each is listed: for the dashboard. */
export async function listOwnGoods(em: EntityManager, storeId: number) {
  return rows<{
    product_id: number;
    sku: string;
    name: string;
    stock_quantity: number;
    listed: boolean;
    created_at: string;
  }>(
    em,
    sql`SELECT p.id AS product_id, p.sku, p.name, p.stock_quantity,
        EXISTS (SELECT 1 FROM listings l WHERE l.store_id = ${storeId} AND l.product_id = p.id AND l.deleted_at IS NULL) AS listed,
        ${isoTime(sql`p.created_at`)} AS created_at
      FROM products p WHERE p.owner_store_id = ${storeId} ORDER BY p.id`,
  );
}
