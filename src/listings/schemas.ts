import { z } from 'zod';
import { catalogueFilters, paginationSchema } from '../catalogue/schemas.ts';
import { boolParam, described, idParam, intParam, PG_INT_MAX, textParam } from '../trpc/params.ts';

export const listListingsInput = z.object({
  page: intParam(1, Number.MAX_SAFE_INTEGER, { default: 1 }).default(1),
  limit: intParam(1, 500, { default: 20 }).default(20),
  search: textParam(100, described("Searches the store's listings by product name and SKU.")).optional(),
  // Unrecognised values are ignored, as the spec says, rather than refused.
  missing: z
    .string()
    .max(40)
    .optional()
    .transform((v) => (v === 'weight' || v === 'dimensions' || v === 'either' ? v : undefined))
    .meta({
      description:
        'Only listings missing shipping data: `weight`, `dimensions` or `either`. Other values are ignored.',
    }),
  include: z
    .string()
    .max(40)
    .optional()
    .transform((v) => v?.split(',').includes('variants') ?? false)
    .meta({
      description: '`variants` adds `options` (option group titles) and `variants` (identity and stock).',
    }),
  own_goods: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .meta({ description: "`true`: only own goods (products of the store's own suppliers)." }),
});
export type ListListingsInput = z.output<typeof listListingsInput>;

const variantStock = z.object({
  id: z.int(),
  sku: z.string(),
  title: z.string(),
  option_values: z.record(z.string(), z.string()),
  available_for_sale: z.boolean(),
  quantity_available: z.int(),
});

const listingBase = z.object({
  id: z.int().meta({ description: 'The listing id.' }),
  product_id: z.int().meta({ description: 'The catalogue product id (used in every /my-products path).' }),
  name: z.string(),
  sku: z.string(),
  image_url: z.string().nullable(),
  wholesale_price_cents: z.int(),
  retail_price_cents: z.int().meta({ description: 'Suggested retail price.' }),
  custom_retail_price_cents: z.int().nullable(),
  effective_retail_price_cents: z
    .int()
    .meta({ description: 'What buyers pay: the custom price, else the suggested.' }),
  purchase_mode: z.enum(['buy_now', 'enquiry']),
  vendor_fulfilled: z.boolean(),
  own_goods: z.boolean(),
  in_stock: z.boolean(),
  stock_quantity: z.int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const listingListItem = listingBase.extend({
  options: z
    .array(z.string())
    .optional()
    .meta({ description: 'With include=variants: option group titles.' }),
  variants: z.array(variantStock).optional().meta({ description: 'With include=variants.' }),
});
export type ListingListItem = z.output<typeof listingListItem>;

export const listListingsOutput = z.object({
  products: z.array(listingListItem),
  pagination: paginationSchema,
});

export const listingDetail = listingBase.extend({
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  variants: z.array(variantStock.extend({ price_cents: z.int() })),
});
export const listingDetailOutput = z.object({ product: listingDetail });

export const productPathInput = z.object({ productId: idParam });

const vendorProduct = z.object({
  id: z.int(),
  product_id: z.int(),
  custom_retail_price_cents: z.int().nullable(),
  purchase_mode: z.enum(['buy_now', 'enquiry']),
  vendor_fulfilled: z.boolean(),
});
export type VendorProduct = z.output<typeof vendorProduct>;
export const vendorProductOutput = z.object({ message: z.string(), vendor_product: vendorProduct });

const priceCents = intParam(0, PG_INT_MAX, described('Retail price in cents.'));

export const addListingInput = z.object({
  product_id: idParam,
  custom_retail_price_cents: priceCents.optional(),
});

export const pricingInput = z.object({
  productId: idParam,
  custom_retail_price_cents: priceCents
    .nullable()
    .meta({ description: 'Cents; `null` restores the suggested price.' }),
});

export const purchaseModeInput = z.object({
  productId: idParam,
  purchase_mode: z.enum(['buy_now', 'enquiry']),
});

export const vendorFulfilledInput = z.object({
  productId: idParam,
  vendor_fulfilled: boolParam,
});

export const messageOutput = z.object({ message: z.string() });

export const bulkInput = z
  .object({
    mode: z.enum(['ids', 'filter']),
    product_ids: z
      .array(idParam)
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'With mode `ids`: 1 to 500 catalogue product ids.' }),
    // Strict: a misspelt filter must be a 400, never silently dropped into `{}` (which matches everything).
    filters: z
      .strictObject(catalogueFilters)
      .optional()
      .meta({ description: 'With mode `filter`: the catalogue filter parameters; `{}` matches everything.' }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.mode === 'ids' && v.product_ids === undefined) {
      ctx.addIssue({ code: 'custom', path: ['product_ids'], message: 'required with mode ids' });
    }
    if (v.mode === 'filter' && v.filters === undefined) {
      ctx.addIssue({ code: 'custom', path: ['filters'], message: 'required with mode filter' });
    }
  });
export type BulkInput = z.output<typeof bulkInput>;

const skipped = z.array(
  z.object({
    product_id: z.int(),
    reason: z.enum(['not_found', 'already_listed', 'not_in_store', 'duplicate']),
  }),
);
export type Skip = z.output<typeof skipped>[number];
export const bulkAddOutput = z.object({ added: z.int(), restored: z.int(), skipped });
export const bulkRemoveOutput = z.object({ removed: z.int(), skipped });
