import type { EntityManager } from '@mikro-orm/postgresql';
import { runReadinessPass } from '../catalogue/run-readiness-pass.ts';
import { db } from '../db/kysely.ts';
import { first, run } from '../db/sql.ts';
import { advanceOrder } from '../orders/advance-order.ts';
import { checkoutStorefront } from '../orders/checkout-storefront.ts';
import { createApiKey } from '../store/create-api-key.ts';
import { createStore } from '../store/create-store.ts';
import { seedProducts } from './seed-catalogue.ts';

/** A few storefront orders from different channels, one shipped (so it has a tax invoice). */
async function demoOrders(em: EntityManager, storeId: number) {
  const listed = await run(
    db(em)
      .selectFrom('listings as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .innerJoin('product_variants as v', 'v.product_id', 'p.id')
      .distinctOn('l.product_id')
      .select(['l.product_id', 'v.id as variant_id'])
      .where('l.store_id', '=', storeId)
      .where('l.deleted_at', 'is', null)
      .where((eb) => eb.ref('p.active'))
      .where('p.purchase_mode', '=', 'buy_now')
      .where('v.stock_quantity', '>=', 2)
      .orderBy('l.product_id')
      .orderBy('v.id')
      .limit(5),
  );
  const channels = ['google', 'facebook_instagram', 'direct', 'email', 'vendor_link'] as const;
  const buyers = ['Mia Thompson', 'Noah Williams', 'Olivia Brown', 'Jack Wilson', 'Ava Taylor'];
  const ids: number[] = [];
  for (const [i, item] of listed.entries()) {
    const name = buyers[i] ?? 'Demo Buyer';
    const order = await checkoutStorefront(
      { em },
      {
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
      },
    );
    ids.push(order.id);
  }
  const first = ids[0];
  if (first !== undefined) {
    for (const status of ['processing', 'fulfilled'] as const)
      await advanceOrder({ em }, { orderId: first, status });
    await advanceOrder({ em }, { orderId: first, status: 'shipped', tracking: 'AP123456789AU' });
  }
}

/** The store's departments, and a workshop of its own: twelve products with a variant each. */
async function workshop(tx: EntityManager, storeId: number) {
  await run(
    db(tx)
      .insertInto('store_departments')
      .columns(['store_id', 'category_id'])
      .expression((eb) =>
        eb
          .selectFrom('categories')
          .select([eb.val(storeId).as('store_id'), 'id'])
          .where('slug', 'in', ['decor', 'textiles', 'lamps', 'living-room']),
      ),
  );
  const supplier = await first(
    db(tx)
      .insertInto('suppliers')
      .values({ name: 'Harbour & Home Workshop', owner_store_id: storeId })
      .returning('id'),
  );
  if (!supplier) throw new Error('the workshop supplier was not inserted');
  const own = await run(
    db(tx)
      .insertInto('products')
      .values(Array.from({ length: 12 }, (_, i) => workshopProduct(supplier.id, i + 1)))
      .returning(['id', 'sku', 'wholesale_price_cents', 'retail_price_cents']),
  );
  await run(
    db(tx)
      .insertInto('product_variants')
      .values(
        own.map((p) => ({
          product_id: p.id,
          sku: p.sku,
          title: 'Default',
          wholesale_price_cents: p.wholesale_price_cents,
          retail_price_cents: p.retail_price_cents,
          stock_quantity: 5 + (p.id % 10),
        })),
      ),
  );
}

/** The store lists its own products and the first 40 of the catalogue, every third at its own price. */
async function demoListings(tx: EntityManager, storeId: number) {
  await run(
    db(tx)
      .insertInto('listings')
      .columns(['store_id', 'product_id', 'custom_retail_price_cents'])
      .expression((eb) =>
        eb
          .selectFrom('products as p')
          .select((eb) => [
            eb.val(storeId).as('store_id'),
            'p.id',
            eb
              .case()
              .when(eb(eb('p.id', '%', eb.lit(3)), '=', eb.lit(0)))
              .then(eb('p.retail_price_cents', '+', eb.lit(1000)))
              .end()
              .as('custom_retail_price_cents'),
          ])
          .where((eb) =>
            eb.and([
              eb.ref('p.active'),
              eb.or([
                eb('p.owner_store_id', '=', storeId),
                eb('p.id', 'in', eb.selectFrom('products').select('id').orderBy('id').limit(eb.lit(40))),
              ]),
            ]),
          ),
      ),
  );
}

/** Workshop product `w` (1–12). */
function workshopProduct(supplierId: number, w: number) {
  return {
    supplier_id: supplierId,
    name: `Workshop ${w} Serving Board`,
    description: 'Turned in our Fremantle workshop from offcuts of spotted gum. Each board is oiled by hand.',
    sku: `HH-OWN-${String(w).padStart(3, '0')}`,
    wholesale_price_cents: 2500 + w * 100,
    retail_price_cents: 6900 + w * 200,
    image_url: `https://images.stockless.example/own/${w}.jpg`,
    weight_oz: String(24 + w),
    category_raw: 'Kitchen',
  };
}

export interface DemoCredentials {
  store_id: number;
  /** Live keys: the demo store's own orders and events. */
  read_write_key: string;
  read_key: string;
  /** A test key: its orders, subscriptions and events are the store's test data (absent before test mode). */
  test_key?: string;
}

/** Whether the database has never been seeded (no store exists yet). */
export async function isEmpty(em: EntityManager): Promise<boolean> {
  const row = await first(
    db(em)
      .selectFrom('stores')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')),
  );
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
  const store = await createStore(
    { em },
    {
      name: 'Harbour & Home',
      slug: 'harbour-and-home',
      ownerEmail: 'owner@harbour.example',
    },
  );
  await em.transactional(async (tx) => {
    await workshop(tx, store.id);
    await demoListings(tx, store.id);
  });
  await runReadinessPass({ em });
  await demoOrders(em, store.id);
  const rw = await createApiKey(
    { em },
    { storeId: store.id, scope: 'read_write', mode: 'live', name: 'Demo read_write' },
  );
  const ro = await createApiKey(
    { em },
    { storeId: store.id, scope: 'read', mode: 'live', name: 'Demo read' },
  );
  const test = await createApiKey(
    { em },
    { storeId: store.id, scope: 'read_write', mode: 'test', name: 'Demo test mode' },
  );
  return { store_id: store.id, read_write_key: rw.key, read_key: ro.key, test_key: test.key };
}
