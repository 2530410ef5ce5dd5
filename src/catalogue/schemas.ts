import { z } from 'zod';

/** Query booleans accept exactly `true` / `false`; a `false` never reads as true. */
export const queryBoolean = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .meta({ description: 'Exactly `true` or `false`.' });

/** Ids are PostgreSQL `integer`s: anything larger can never exist, and must be a 400, not a 500. */
export const dbId = z.int().min(1).max(2_147_483_647);

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
  search: z.string().max(100).optional().meta({ description: 'Full-text search; falls back to substring.' }),
  in_stock: queryBoolean.optional(),
  pricing_type: z.enum(['wholesale', 'commission']).optional(),
  supplier_id: dbId.optional(),
  brand: z.string().max(120).optional().meta({ description: 'Brand name or slug.' }),
  category: z.string().max(120).optional().meta({ description: 'Category slug or raw category value.' }),
  store_type: z
    .string()
    .max(80)
    .optional()
    .meta({ description: 'Taxonomy vertical slug, or `_other` for products outside every vertical.' }),
  exclude_in_store: queryBoolean.optional(),
  purchase_mode: z.enum(['buy_now', 'enquiry']).optional(),
  price_min_cents: z
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .meta({ description: 'Retail lower bound, inclusive.' }),
  price_max_cents: z
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .meta({ description: 'Retail upper bound, exclusive.' }),
  ready_to_list: queryBoolean.optional(),
  complete_for: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,31}$/)
    .optional()
    .meta({ description: 'Channel (storefront, google, meta, freight); only products scored 100% for it.' }),
  scope: z.enum(['store', 'all']).optional(),
  ownership: z.enum(['own', 'btab', 'all']).optional(),
};

export const facetsInput = z.object(catalogueFilters);
export type CatalogueFilters = z.output<typeof facetsInput>;

export const listInput = z.object({
  ...catalogueFilters,
  page: z.int().min(1).default(1),
  limit: z.int().min(1).max(500).default(20),
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

export const productIdInput = z.object({ id: dbId });
export const productDetailOutput = z.object({ product: productDetailSchema });
