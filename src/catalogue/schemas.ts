import { z } from 'zod';
import {
  boolParam,
  described,
  idParam,
  intParam,
  NUL_MESSAGE,
  noNul,
  PG_INT_MAX,
  textParam,
} from '../trpc/params.ts';
import { CHANNELS } from './channels.ts';

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

/**
 * `boolParam` with a description: its documentation override replaces the whole JSON schema, so the
 * description goes into an override of the same kind (documentation only; validation is boolParam's).
 */
export function describedBool(description: string) {
  return boolParam.meta({
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, { type: 'boolean', description });
    },
  });
}

export const catalogueFilters = {
  search: textParam(
    100,
    described(
      'Full-text search on name, SKU and description; when it finds nothing, a substring of the name or SKU (3 characters or more).',
    ),
  ).optional(),
  in_stock: describedBool('Only products in stock (`true`) or out of stock (`false`).').optional(),
  pricing_type: z
    .enum(['wholesale', 'commission'])
    .meta(
      described(
        '`wholesale`: the store buys at the wholesale price and keeps the margin; `commission`: the store earns a commission per sale.',
      ),
    )
    .optional(),
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
  exclude_in_store: describedBool('`true` hides products already in the store.').optional(),
  purchase_mode: z
    .enum(['buy_now', 'enquiry'])
    .meta(described('`buy_now`: card checkout; `enquiry`: quote-only products.'))
    .optional(),
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
  ready_to_list: describedBool('Only products the nightly readiness pass marked ready.').optional(),
  complete_for: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,31}$/)
    .meta({
      ...described(
        'Channel (storefront, google, meta, freight): only products scored 100% complete for it; a channel not yet scored matches nothing.',
      ),
      example: 'google',
    })
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
  page: intParam(1, Number.MAX_SAFE_INTEGER, { default: 1, description: 'Page number, 1-based.' }).default(1),
  limit: intParam(1, 500, { default: 20, description: 'Products per page (at most 500).' }).default(20),
  sort_by: z
    .enum(SORT_KEYS)
    .meta(described('Sort key; omitted: relevance when searching, else the platform default.'))
    .optional(),
  order: z.enum(['asc', 'desc']).meta(described('Sort direction.')).optional(),
});
export type ListInput = z.output<typeof listInput>;

export const paginationSchema = z.object({
  page: z.int().meta({ description: 'This page, 1-based.', example: 1 }),
  limit: z.int().meta({ description: 'Items per page.', example: 20 }),
  total_count: z.int().meta({ description: 'Items matching, over every page.', example: 134 }),
  total_pages: z.int().meta({ example: 7 }),
});

export const ownershipSchema = z
  .object({
    applied: z.enum(['own', 'btab', 'all']).meta({ description: 'The ownership filter in force.' }),
    choices: z.array(z.enum(['own', 'btab', 'all'])).meta({ example: ['own', 'btab', 'all'] }),
  })
  .meta({ description: 'Only for a store whose account has own suppliers.' });

export const catalogueProductSchema = z.object({
  id: z.int().meta({ description: 'The catalogue product id.', example: 1042 }),
  name: z.string().meta({ example: 'Oak dining table 180 cm' }),
  description: z.string().meta({ example: 'Solid European oak with a hard-wax oil finish. Seats six.' }),
  sku: z.string().meta({ example: 'OAK-TBL-180' }),
  wholesale_price_cents: z.int().meta({ description: 'What the store pays, in cents.', example: 42000 }),
  retail_price_cents: z.int().meta({ description: 'Suggested retail price, in cents.', example: 69900 }),
  custom_retail_price_cents: z
    .int()
    .nullable()
    .meta({ description: "The store's own retail price, if it set one.", example: 64900 }),
  image_url: z
    .string()
    .nullable()
    .meta({
      description:
        'The main image, or null while the supplier has given none: such a product cannot be ordered ' +
        '(`PRODUCT_NOT_ORDERABLE`) and scores below 100% for every channel.',
      example: 'https://cdn.stockless.example/p/1042/main.jpg',
    }),
  in_stock: z.boolean().meta({ example: true }),
  stock_quantity: z.int().meta({ example: 14 }),
  metadata: z.object({
    category: z
      .string()
      .nullable()
      .meta({
        description:
          'The category: its name, else the raw value the supplier gave; null for a product not yet categorised ' +
          '(`scope=store` includes those).',
        example: 'dining-tables',
      }),
    weight_oz: z
      .number()
      .nullable()
      .meta({
        description:
          'Shipping weight in ounces, or null while the supplier has given none (`missing=weight` on ' +
          '`/my-products` finds those listings).',
        example: 1120,
      }),
  }),
  earn_per_sale_cents: z
    .int()
    .meta({ description: 'What the store earns per sale at its effective price.', example: 22900 }),
  minimum_price_cents: z
    .int()
    .meta({ description: 'The lowest retail price the store may set.', example: 52500 }),
  brand: z.string().nullable().meta({ example: 'Nordhaus' }),
  supplier_id: z.int().meta({ example: 17 }),
  pricing_type: z.enum(['wholesale', 'commission']),
  purchase_mode: z.enum(['buy_now', 'enquiry']),
  in_store: z.boolean().meta({ description: 'Already listed in the store.', example: false }),
  created_at: z.iso.datetime().meta({ example: '2026-09-14T03:12:45.000Z' }),
  updated_at: z.iso.datetime().meta({ example: '2026-11-02T09:30:00.000Z' }),
});
export type CatalogueProduct = z.output<typeof catalogueProductSchema>;

export const listOutput = z.object({
  products: z.array(catalogueProductSchema),
  pagination: paginationSchema.extend({
    total_count_is_lower_bound: z.boolean().meta({
      description:
        'Only a search can set it: more than 1,000 products match, `total_count` and `total_pages` say 1,000 and its pages, and pages past them still list the further matches.',
      example: false,
    }),
  }),
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

export const facetsOutput = z
  .object({
    facets: z.object(
      Object.fromEntries(FACET_NAMES.map((n) => [n, facetValues])) as Record<FacetName, typeof facetValues>,
    ),
    total_count: z.int().meta({ description: 'Products matching every active filter.' }),
    total_count_is_lower_bound: z.boolean().meta({
      description:
        'Only a search can set it: more than 1,000 products match the filters that are not facets, and the counts are taken over the best 1,000 by recommended score (the ones the list ranks first), so each is a lower bound.',
      example: false,
    }),
    ownership: ownershipSchema.optional(),
  })
  .meta({
    example: {
      facets: {
        brand: [
          { value: 'nordhaus', count: 12 },
          { value: 'tasman-living', count: 7 },
        ],
        category: [{ value: 'dining-tables', count: 19 }],
        store_type: [{ value: 'furniture', count: 19 }],
        supplier_id: [{ value: '17', count: 19 }],
        pricing_type: [{ value: 'wholesale', count: 19 }],
        purchase_mode: [
          { value: 'buy_now', count: 17 },
          { value: 'enquiry', count: 2 },
        ],
        in_stock: [
          { value: 'true', count: 15 },
          { value: 'false', count: 4 },
        ],
        ready_to_list: [{ value: 'true', count: 11 }],
        complete_for: [{ value: 'google', count: 9 }],
        price_band: [
          { value: '50000-100000', count: 13 },
          { value: '100000-', count: 6 },
        ],
      },
      total_count: 19,
      total_count_is_lower_bound: false,
    },
  });

export const productDetailSchema = catalogueProductSchema.extend({
  images: z.array(
    z.object({
      url: z.string().meta({ example: 'https://cdn.stockless.example/p/1042/main.jpg' }),
      alt: z.string().meta({ example: 'Oak dining table, side view' }),
      position: z.int().meta({ example: 1 }),
    }),
  ),
  options: z.array(
    z.object({
      name: z.string().meta({ example: 'Finish' }),
      values: z.array(z.string()).meta({ example: ['Natural oil', 'Black stain'] }),
    }),
  ),
  variants: z.array(
    z.object({
      id: z.int().meta({ description: 'The variant id.', example: 5531 }),
      sku: z.string().meta({ example: 'OAK-TBL-180-NAT' }),
      title: z.string().meta({ example: 'Natural oil' }),
      option_values: z.record(z.string(), z.string()).meta({ example: { Finish: 'Natural oil' } }),
      wholesale_price_cents: z.int().meta({ example: 42000 }),
      retail_price_cents: z.int().meta({ example: 69900 }),
      in_stock: z.boolean().meta({ example: true }),
      stock_quantity: z.int().meta({ example: 9 }),
    }),
  ),
  assembled_dimensions: z
    .object({
      width_cm: z.number().nullable().meta({ example: 180 }),
      depth_cm: z.number().nullable().meta({ example: 90 }),
      height_cm: z.number().nullable().meta({ example: 75 }),
    })
    .nullable(),
  drawings: z.array(
    z.object({
      url: z.string().meta({ example: 'https://cdn.stockless.example/p/1042/drawing.pdf' }),
      title: z.string().meta({ example: 'Dimensions' }),
    }),
  ),
  hidden_channels: z.array(z.enum(CHANNELS)).meta({
    description:
      'Sales channels the supplier keeps this product off (`storefront`, `google`, `meta`, `freight`); ' +
      'empty when it may be sold everywhere.',
    example: ['google'],
  }),
});

export type ProductDetail = z.output<typeof productDetailSchema>;

export const productIdInput = z.object({
  id: intParam(1, PG_INT_MAX, { description: 'The catalogue product id.', example: 1042 }),
});
export type ProductIdInput = z.output<typeof productIdInput>;
export const productDetailOutput = z.object({ product: productDetailSchema });

/** Free text the catalogue stores: trimmed, never empty, never NUL (PostgreSQL text cannot hold it). */
const text = (max: number) => z.string().trim().min(1).max(max).refine(noNul, NUL_MESSAGE);
const cents = z.int().min(0).max(PG_INT_MAX);
const url = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine(noNul, NUL_MESSAGE);
const measure = (max: number) => z.number().min(0).max(max);
/** Channel sets are stored sorted and without repeats, so equal sets compare equal. */
export const channelSet = z
  .array(z.enum(CHANNELS))
  .max(CHANNELS.length)
  .transform((list) => [...new Set(list)].sort());

export const updateProductInput = z
  .object({
    productId: idParam,
    name: text(200).optional(),
    description: z.string().max(20_000).refine(noNul, NUL_MESSAGE).optional(),
    image_url: url.nullable().optional(),
    /** Replaces the gallery, in this order. */
    images: z
      .array(z.object({ url, alt: z.string().max(300).refine(noNul, NUL_MESSAGE).default('') }))
      .max(50)
      .optional(),
    /** A category slug, or null for not yet categorised. */
    category: z.string().max(120).refine(noNul, NUL_MESSAGE).nullable().optional(),
    weight_oz: measure(99_999_999).nullable().optional(),
    dimensions: z
      .object({
        width_cm: measure(999_999_999),
        depth_cm: measure(999_999_999),
        height_cm: measure(999_999_999),
      })
      .nullable()
      .optional(),
    wholesale_price_cents: cents.optional(),
    retail_price_cents: cents.optional(),
    /** The channels the supplier keeps this product off. */
    hidden_channels: channelSet.optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).some((k) => k !== 'productId'), {
    message: 'Name at least one field to change',
  });
export type UpdateProductInput = z.output<typeof updateProductInput>;

export const productRef = z.object({ productId: idParam }).strict();
export type ProductRef = z.output<typeof productRef>;

const optionValues = z
  .record(text(60), text(120))
  .refine((v) => Object.keys(v).length <= 5, 'at most 5 options');

export const addVariantInput = z
  .object({
    productId: idParam,
    sku: text(64),
    title: text(200),
    option_values: optionValues,
    wholesale_price_cents: cents.optional(),
    retail_price_cents: cents.optional(),
    stock: cents.default(0),
  })
  .strict();
export type AddVariantInput = z.output<typeof addVariantInput>;

export const updateVariantInput = z
  .object({
    productId: idParam,
    variantId: idParam,
    sku: text(64).optional(),
    title: text(200).optional(),
    option_values: optionValues.optional(),
    wholesale_price_cents: cents.optional(),
    retail_price_cents: cents.optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).some((k) => k !== 'productId' && k !== 'variantId'), {
    message: 'Name at least one field to change',
  });
export type UpdateVariantInput = z.output<typeof updateVariantInput>;

export const variantRef = z.object({ productId: idParam, variantId: idParam }).strict();
export type VariantRef = z.output<typeof variantRef>;
