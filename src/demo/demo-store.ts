import type { EntityManager } from '@mikro-orm/postgresql';
import { runReadinessPass } from '../catalogue/readiness.ts';
import { rows, sql } from '../db/sql.ts';
import { checkoutStorefront } from '../orders/storefront.ts';
import { advanceOrder } from '../orders/transitions.ts';
import { createApiKey } from '../store/api-keys.ts';
import { createStore } from '../store/service.ts';
import { seedProducts } from './seed-catalogue.ts';

/** A few storefront orders from different channels, one shipped (so it has a tax invoice). */
async function demoOrders(em: EntityManager, storeId: number) {
  const listed = await rows<{ product_id: number; variant_id: number }>(
    em,
    sql`SELECT DISTINCT ON (l.product_id) l.product_id, v.id AS variant_id
      FROM listings l JOIN products p ON p.id = l.product_id JOIN product_variants v ON v.product_id = p.id
      WHERE l.store_id = ${storeId} AND l.deleted_at IS NULL AND p.active AND p.purchase_mode = 'buy_now'
        AND v.stock_quantity >= 2
      ORDER BY l.product_id, v.id LIMIT 5`,
  );
  const channels = ['google', 'facebook_instagram', 'direct', 'email', 'vendor_link'] as const;
  const buyers = ['Mia Thompson', 'Noah Williams', 'Olivia Brown', 'Jack Wilson', 'Ava Taylor'];
  const ids: number[] = [];
  for (const [i, item] of listed.entries()) {
    const name = buyers[i] ?? 'Demo Buyer';
    const order = await checkoutStorefront(em, {
      storeId,
      channel: channels[i] ?? 'direct',
      customer: { name, email: `${name.split(' ')[0]?.toLowerCase()}@example.com`, phone: '0400 000 000' },
      shipping: {
        address: `${10 + i} Harbour Street`,
        address2: '',
        city: 'Fremantle',
        state: 'WA',
        zip: '6160',
        country: 'AU',
      },
      items: [{ product_id: item.product_id, variant_id: item.variant_id, quantity: 1 + (i % 2) }],
    });
    ids.push(order.id);
  }
  const first = ids[0];
  if (first !== undefined) {
    for (const status of ['processing', 'fulfilled'] as const) await advanceOrder(em, first, status);
    await advanceOrder(em, first, 'shipped', { tracking: 'AP123456789AU' });
  }
}

export interface DemoCredentials {
  store_id: number;
  read_write_key: string;
  read_key: string;
}

/** Whether the database has never been seeded (no store exists yet). */
export async function isEmpty(em: EntityManager): Promise<boolean> {
  const [row] = await rows<{ n: number }>(em, sql`SELECT count(*)::integer AS n FROM stores`);
  return (row?.n ?? 0) === 0;
}

/**
 * A demo catalogue and a demo store: departments for `scope=store`, a workshop of its own goods (so
 * `ownership` applies), a few dozen listings, and a read_write and a read key (test mode).
 */
export async function seedDemo(
  em: EntityManager,
  products: number,
  onProgress?: (done: number, total: number) => void,
): Promise<DemoCredentials> {
  await seedProducts(em, products, onProgress);
  const store = await createStore(em, {
    name: 'Harbour & Home',
    slug: 'harbour-and-home',
    ownerEmail: 'owner@harbour.example',
  });
  await em.transactional(async (tx) => {
    await rows(
      tx,
      sql`INSERT INTO store_departments (store_id, category_id)
        SELECT ${store.id}, id FROM categories WHERE slug IN ('decor', 'textiles', 'lamps', 'living-room')`,
    );
    const [supplier] = await rows<{ id: number }>(
      tx,
      sql`INSERT INTO suppliers (name, owner_store_id) VALUES ('Harbour & Home Workshop', ${store.id}) RETURNING id`,
    );
    const own = await rows<{ id: number }>(
      tx,
      sql`INSERT INTO products (supplier_id, name, description, sku, wholesale_price_cents, retail_price_cents,
          image_url, weight_oz, category_raw)
        SELECT ${supplier?.id}, 'Workshop ' || w || ' Serving Board',
          'Turned in our Fremantle workshop from offcuts of spotted gum. Each board is oiled by hand.',
          'HH-OWN-' || lpad(w::text, 3, '0'), 2500 + w * 100, 6900 + w * 200,
          'https://images.stockless.example/own/' || w || '.jpg', 24 + w, 'Kitchen'
        FROM generate_series(1, 12) w RETURNING id`,
    );
    await rows(
      tx,
      sql`INSERT INTO product_variants (product_id, sku, title, wholesale_price_cents, retail_price_cents, stock_quantity)
        SELECT p.id, p.sku, 'Default', p.wholesale_price_cents, p.retail_price_cents, 5 + p.id % 10
        FROM products p WHERE p.id = ANY(${own.map((r) => r.id)}::integer[])`,
    );
    await rows(
      tx,
      sql`INSERT INTO listings (store_id, product_id, custom_retail_price_cents)
        SELECT ${store.id}, p.id, CASE WHEN p.id % 3 = 0 THEN p.retail_price_cents + 1000 END
        FROM products p
        WHERE p.active AND (p.owner_store_id = ${store.id} OR p.id IN (SELECT id FROM products ORDER BY id LIMIT 40))`,
    );
  });
  await runReadinessPass(em);
  await demoOrders(em, store.id);
  const rw = await createApiKey(em, {
    storeId: store.id,
    scope: 'read_write',
    mode: 'test',
    name: 'Demo read_write',
  });
  const ro = await createApiKey(em, { storeId: store.id, scope: 'read', mode: 'test', name: 'Demo read' });
  return { store_id: store.id, read_write_key: rw.key, read_key: ro.key };
}
