import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import type { Channel } from './channels.ts';
import { catalogueFrom, visibility } from './filters.ts';
import { type ProductRow, productColumns, toCatalogueProduct } from './list.ts';

interface DetailRow extends ProductRow {
  width_cm: number | null;
  depth_cm: number | null;
  height_cm: number | null;
  images: { url: string; alt: string; position: number }[];
  options: { name: string; values: string[] }[];
  variants: {
    id: number;
    sku: string;
    title: string;
    option_values: Record<string, string>;
    wholesale_price_cents: number;
    retail_price_cents: number;
    stock_quantity: number;
  }[];
  drawings: { url: string; title: string }[];
  hidden_channels: Channel[];
}

/** One catalogue product with its images, options, variants and drawings, in a single round trip. */
export async function getCatalogueProduct(em: EntityManager, ctx: StoreCatalogueContext, id: number) {
  const [row] = await rows<DetailRow>(
    em,
    sql`SELECT ${productColumns(ctx)},
        p.hidden_channels, p.width_cm::float8 AS width_cm, p.depth_cm::float8 AS depth_cm, p.height_cm::float8 AS height_cm,
        COALESCE((SELECT json_agg(json_build_object('url', i.url, 'alt', i.alt, 'position', i.position)
          ORDER BY i.position, i.id) FROM product_images i WHERE i.product_id = p.id), '[]') AS images,
        COALESCE((SELECT json_agg(json_build_object('name', o.name, 'values', o."values")
          ORDER BY o.position, o.id) FROM product_options o WHERE o.product_id = p.id), '[]') AS options,
        COALESCE((SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'title', v.title,
            'option_values', v.option_values, 'wholesale_price_cents', v.wholesale_price_cents,
            'retail_price_cents', v.retail_price_cents, 'stock_quantity', v.stock_quantity)
          ORDER BY v.position, v.id) FROM product_variants v WHERE v.product_id = p.id AND v.retired_at IS NULL), '[]') AS variants,
        COALESCE((SELECT json_agg(json_build_object('url', d.url, 'title', d.title)
          ORDER BY d.position, d.id) FROM product_drawings d WHERE d.product_id = p.id), '[]') AS drawings
      FROM ${catalogueFrom(ctx)}
      LEFT JOIN categories c ON c.id = p.category_id
      LEFT JOIN brands b ON b.id = p.brand_id
      WHERE p.id = ${id} AND ${visibility(ctx)}`,
  );
  if (!row) throw notFound(`No catalogue product with id ${id}`, 'PRODUCT_NOT_FOUND');
  const hasDimensions = row.width_cm !== null || row.depth_cm !== null || row.height_cm !== null;
  return {
    product: {
      ...toCatalogueProduct(row),
      images: row.images,
      options: row.options,
      variants: row.variants.map((v) => ({ ...v, in_stock: v.stock_quantity > 0 })),
      assembled_dimensions: hasDimensions
        ? { width_cm: row.width_cm, depth_cm: row.depth_cm, height_cm: row.height_cm }
        : null,
      drawings: row.drawings,
      hidden_channels: row.hidden_channels,
    },
  };
}
