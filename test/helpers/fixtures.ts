import type { EntityManager } from '@mikro-orm/postgresql';
import { channelBit } from '../../src/catalogue/channels.ts';
import { rows, sql } from '../../src/db/sql.ts';

let seq = 0;
const next = () => ++seq;

export interface ProductSpec {
  name?: string;
  description?: string;
  sku?: string;
  supplierId: number;
  brandId?: number | null;
  categoryId?: number | null;
  categoryRaw?: string | null;
  wholesale?: number;
  retail?: number;
  pricingType?: 'wholesale' | 'commission';
  commissionBps?: number;
  purchaseMode?: 'buy_now' | 'enquiry';
  active?: boolean;
  imageUrl?: string | null;
  weightOz?: number | null;
  dimensions?: [number, number, number] | null;
  readyToList?: boolean;
  readinessScore?: number;
  recommendedScore?: number;
  createdAt?: string;
  /** Stock per variant; one entry = one default variant. */
  stock?: number[];
  images?: number;
  drawings?: number;
  completeness?: Record<string, number>;
}

/** Builds exact catalogue data for a test, straight in SQL so tests depend on no seed. */
export function fixtures(em: EntityManager) {
  const one = async <T>(statement: Parameters<typeof rows<T>>[1]) => {
    const [row] = await rows<T>(em, statement);
    if (!row) throw new Error('fixture insert returned nothing');
    return row;
  };
  return {
    async storeType(slug = `type-${next()}`, name = slug) {
      return (
        await one<{ id: number }>(
          sql`INSERT INTO store_types (slug, name) VALUES (${slug}, ${name}) RETURNING id`,
        )
      ).id;
    },
    async category(o: { slug?: string; name?: string; parentId?: number; storeTypeId?: number } = {}) {
      const slug = o.slug ?? `cat-${next()}`;
      return (
        await one<{ id: number }>(
          sql`INSERT INTO categories (slug, name, parent_id, store_type_id)
            VALUES (${slug}, ${o.name ?? slug}, ${o.parentId ?? null}, ${o.storeTypeId ?? null}) RETURNING id`,
        )
      ).id;
    },
    async brand(name = `Brand ${next()}`) {
      const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      return (
        await one<{ id: number }>(sql`INSERT INTO brands (name, slug) VALUES (${name}, ${slug}) RETURNING id`)
      ).id;
    },
    async supplier(o: { name?: string; ownerStoreId?: number } = {}) {
      return (
        await one<{ id: number }>(
          sql`INSERT INTO suppliers (name, owner_store_id) VALUES (${o.name ?? `Supplier ${next()}`}, ${o.ownerStoreId ?? null})
            RETURNING id`,
        )
      ).id;
    },
    async product(p: ProductSpec) {
      const n = next();
      const sku = p.sku ?? `FX-${n}`;
      const wholesale = p.wholesale ?? 1000;
      const retail = p.retail ?? 2000;
      const dims = p.dimensions === undefined ? [10, 20, 30] : p.dimensions;
      const { id } = await one<{ id: number }>(
        sql`INSERT INTO products (supplier_id, brand_id, category_id, category_raw, name, description, sku,
            wholesale_price_cents, retail_price_cents, pricing_type, commission_rate_bps, purchase_mode, active,
            image_url, weight_oz, width_cm, depth_cm, height_cm, ready_to_list, readiness_score, recommended_score,
            created_at, updated_at)
          VALUES (${p.supplierId}, ${p.brandId ?? null}, ${p.categoryId ?? null}, ${p.categoryRaw ?? null},
            ${p.name ?? `Product ${n}`}, ${p.description ?? ''}, ${sku}, ${wholesale}, ${retail},
            ${p.pricingType ?? 'wholesale'}, ${p.commissionBps ?? 0}, ${p.purchaseMode ?? 'buy_now'}, ${p.active ?? true},
            ${p.imageUrl === undefined ? `https://img.example/${n}.jpg` : p.imageUrl}, ${p.weightOz === undefined ? 10 : p.weightOz},
            ${dims?.[0] ?? null}, ${dims?.[1] ?? null}, ${dims?.[2] ?? null}, ${p.readyToList ?? false},
            ${p.readinessScore ?? 0}, ${p.recommendedScore ?? 0},
            ${p.createdAt ?? '2026-01-01T00:00:00Z'}::timestamptz, ${p.createdAt ?? '2026-01-01T00:00:00Z'}::timestamptz)
          RETURNING id`,
      );
      const stock = p.stock ?? [5];
      for (const [i, qty] of stock.entries()) {
        const title = stock.length === 1 ? 'Default' : `Option ${i + 1}`;
        const values = stock.length === 1 ? {} : { Size: title };
        await rows(
          em,
          sql`INSERT INTO product_variants (product_id, sku, title, option_values, wholesale_price_cents,
              retail_price_cents, stock_quantity, position)
            VALUES (${id}, ${stock.length === 1 ? sku : `${sku}-${i + 1}`}, ${title}, ${JSON.stringify(values)}::jsonb,
              ${wholesale}, ${retail}, ${qty}, ${i})`,
        );
      }
      if (stock.length > 1) {
        const values = stock.map((_, i) => `Option ${i + 1}`);
        await rows(
          em,
          sql`INSERT INTO product_options (product_id, name, "values") VALUES (${id}, 'Size', ${values}::text[])`,
        );
      }
      for (let i = 1; i <= (p.images ?? 0); i++) {
        await rows(
          em,
          sql`INSERT INTO product_images (product_id, url, alt, position) VALUES (${id}, ${`https://img.example/${id}/${i}.jpg`}, 'alt', ${i})`,
        );
      }
      for (let i = 1; i <= (p.drawings ?? 0); i++) {
        await rows(
          em,
          sql`INSERT INTO product_drawings (product_id, url, title, position) VALUES (${id}, ${`https://img.example/d/${id}/${i}.pdf`}, 'Drawing', ${i})`,
        );
      }
      let mask = 0;
      for (const [channel, score] of Object.entries(p.completeness ?? {})) {
        await rows(
          em,
          sql`INSERT INTO product_completeness (product_id, channel, score) VALUES (${id}, ${channel}, ${score})`,
        );
        if (score === 100) mask |= channelBit(channel) ?? 0;
      }
      // As the readiness pass would: the 100% channels are also bits on the product.
      await rows(em, sql`UPDATE products SET complete_channels = ${mask} WHERE id = ${id}`);
      // Fixtures set exact timestamps; the stock trigger's bump would make them depend on the clock.
      await rows(em, sql`UPDATE products SET updated_at = created_at WHERE id = ${id}`);
      return id;
    },
    async listing(
      storeId: number,
      productId: number,
      o: { customRetail?: number | null; deleted?: boolean } = {},
    ) {
      await rows(
        em,
        sql`INSERT INTO listings (store_id, product_id, custom_retail_price_cents, deleted_at)
          VALUES (${storeId}, ${productId}, ${o.customRetail ?? null}, ${o.deleted ? sql`now()` : null})`,
      );
    },
    async department(storeId: number, categoryId: number) {
      await rows(
        em,
        sql`INSERT INTO store_departments (store_id, category_id) VALUES (${storeId}, ${categoryId})`,
      );
    },
    async maker(storeId: number, supplierId: number) {
      await rows(
        em,
        sql`INSERT INTO store_makers (store_id, supplier_id) VALUES (${storeId}, ${supplierId})`,
      );
    },
    async setStoreScope(storeId: number, scope: 'all' | 'store') {
      await rows(em, sql`UPDATE stores SET catalogue_scope = ${scope} WHERE id = ${storeId}`);
    },
  };
}
