import { z } from 'zod';
import { boolParam, described, idParam, intParam, PG_INT_MAX, textParam } from '../trpc/params.ts';

export const SORT_KEYS = [
  'name',
  'created_at',
  'updated_at',
  'stock_quantity',
  'retail_price_cents',
  'wholesale_price_cents',
  'sku',
  'margin',
  'readiness',
  'recommended',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export const catalogueFilters = {
  search: textParam(
    100,
    described('Full-text search on name, SKU and description; falls back to substring.'),
  ).optional(),
  in_stock: boolParam
    .meta(described('Only products in stock (`true`) or out of stock (`false`).'))
    .optional(),
  pricing_type: z.enum(['wholesale', 'commission']).optional(),
  supplier_id: intParam(1, PG_INT_MAX, described('Only products of this supplier.')).optional(),
  brand: textParam(120, described('Brand name (case-insensitive) or slug.')).optional(),
  category: textParam(
    120,
    described('Category slug or name (with its child categories), or a raw category value.'),
  ).optional(),
  store_type: textParam(
    80,
    described('Taxonomy vertical slug, or `_other` for products outside every vertical.'),
  ).optional(),
  exclude_in_store: boolParam.meta(described('`true` hides products already in the store.')).optional(),
  purchase_mode: z.enum(['buy_now', 'enquiry']).optional(),
  price_min_cents: intParam(
    0,
    PG_INT_MAX,
    described('Retail price lower bound in cents, inclusive.'),
  ).optional(),
  price_max_cents: intParam(
    0,
    PG_INT_MAX,
    described('Retail price upper bound in cents, exclusive.'),
  ).optional(),
  ready_to_list: boolParam
    .meta(described('Only products the nightly readiness pass marked ready.'))
    .optional(),
  complete_for: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,31}$/)
    .meta(
      described('Channel (storefront, google, meta, freight): only products scored 100% complete for it.'),
    )
    .optional(),
  scope: z
    .enum(['store', 'all'])
    .meta(
      described(
        "`store`: the store's departments, makers, own goods and uncategorised products; default: the store's setting.",
      ),
    )
    .optional(),
  ownership: z
    .enum(['own', 'btab', 'all'])
    .meta(
      described(
        "Own suppliers' products, the service's catalogue (`btab`), or all; only for stores with own suppliers.",
      ),
    )
    .optional(),
};

export const facetsInput = z.object(catalogueFilters);
export type CatalogueFilters = z.output<typeof facetsInput>;

export const listInput = z.object({
  ...catalogueFilters,
  page: intParam(1, Number.MAX_SAFE_INTEGER, { default: 1 }).default(1),
  limit: intParam(1, 500, { default: 20 }).default(20),
  sort_by: z.enum(SORT_KEYS).optional(),
  order: z.enum(['asc', 'desc']).optional(),
});
export type ListInput = z.output<typeof listInput>;

export const paginationSchema = z.object({
  page: z.int(),
  limit: z.int(),
  total_count: z.int(),
  total_pages: z.int(),
});

export const ownershipSchema = z.object({
  applied: z.enum(['own', 'btab', 'all']),
  choices: z.array(z.enum(['own', 'btab', 'all'])),
});

export const catalogueProductSchema = z.object({
  id: z.int(),
  name: z.string(),
  description: z.string(),
  sku: z.string(),
  wholesale_price_cents: z.int(),
  retail_price_cents: z.int(),
  custom_retail_price_cents: z.int().nullable(),
  image_url: z.string().nullable(),
  in_stock: z.boolean(),
  stock_quantity: z.int(),
  metadata: z.object({ category: z.string().nullable(), weight_oz: z.number().nullable() }),
  earn_per_sale_cents: z.int(),
  minimum_price_cents: z.int(),
  brand: z.string().nullable(),
  supplier_id: z.int(),
  pricing_type: z.enum(['wholesale', 'commission']),
  purchase_mode: z.enum(['buy_now', 'enquiry']),
  in_store: z.boolean(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type CatalogueProduct = z.output<typeof catalogueProductSchema>;

export const listOutput = z.object({
  products: z.array(catalogueProductSchema),
  pagination: paginationSchema,
  ownership: ownershipSchema.optional(),
});

const facetValues = z.array(z.object({ value: z.string(), count: z.int() }));
export const FACET_NAMES = [
  'brand',
  'category',
  'store_type',
  'supplier_id',
  'pricing_type',
  'purchase_mode',
  'in_stock',
  'ready_to_list',
  'complete_for',
  'price_band',
] as const;
export type FacetName = (typeof FACET_NAMES)[number];

export const facetsOutput = z.object({
  facets: z.object(
    Object.fromEntries(FACET_NAMES.map((n) => [n, facetValues])) as Record<FacetName, typeof facetValues>,
  ),
  total_count: z.int(),
  ownership: ownershipSchema.optional(),
});

export const productDetailSchema = catalogueProductSchema.extend({
  images: z.array(z.object({ url: z.string(), alt: z.string(), position: z.int() })),
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  variants: z.array(
    z.object({
      id: z.int(),
      sku: z.string(),
      title: z.string(),
      option_values: z.record(z.string(), z.string()),
      wholesale_price_cents: z.int(),
      retail_price_cents: z.int(),
      in_stock: z.boolean(),
      stock_quantity: z.int(),
    }),
  ),
  assembled_dimensions: z
    .object({
      width_cm: z.number().nullable(),
      depth_cm: z.number().nullable(),
      height_cm: z.number().nullable(),
    })
    .nullable(),
  drawings: z.array(z.object({ url: z.string(), title: z.string() })),
});

export const productIdInput = z.object({ id: idParam });
export const productDetailOutput = z.object({ product: productDetailSchema });
