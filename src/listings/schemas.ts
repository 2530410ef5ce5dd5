import { z } from 'zod';
import { CHANNELS } from '../catalogue/channels.ts';
import { catalogueFilters, channelSet, paginationSchema } from '../catalogue/schemas.ts';
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

/** A catalogue product id; the example is one `npm start`'s demo store does not list yet. */
const productId = (description: string) => intParam(1, PG_INT_MAX, { description, example: 1042 });
/** A listing's product id; the example is one the demo store lists, so the samples run as printed. */
const listedProductId = (description: string) => intParam(1, PG_INT_MAX, { description, example: 40 });

export const listListingsInput = z.object({
  page: intParam(1, Number.MAX_SAFE_INTEGER, { default: 1, description: 'Page number, 1-based.' }).default(1),
  limit: intParam(1, 500, { default: 20, description: 'Listings per page (at most 500).' }).default(20),
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
  id: z.int().meta({ description: 'The variant id.', example: 5531 }),
  sku: z.string().meta({ example: 'OAK-TBL-180-NAT' }),
  title: z.string().meta({ example: 'Natural oil' }),
  option_values: z.record(z.string(), z.string()).meta({ example: { Finish: 'Natural oil' } }),
  available_for_sale: z.boolean().meta({ description: 'Buyers can order it now.', example: true }),
  quantity_available: z.int().meta({ description: 'Units the store can sell.', example: 9 }),
});

const listingBase = z.object({
  id: z.int().meta({ description: 'The listing id.', example: 311 }),
  product_id: z
    .int()
    .meta({ description: 'The catalogue product id (used in every /my-products path).', example: 1042 }),
  name: z
    .string()
    .meta({ description: "The catalogue's name of the product.", example: 'Oak dining table 180 cm' }),
  custom_title: z.string().nullable().meta({
    description:
      "The store's own title for the listing (what its storefront shows), or null: the catalogue's `name`.",
    example: null,
  }),
  sku: z.string().meta({ example: 'OAK-TBL-180' }),
  image_url: z.string().nullable().meta({
    description: 'The main image, or null while the supplier has given none.',
    example: 'https://cdn.stockless.example/p/1042/main.jpg',
  }),
  wholesale_price_cents: z.int().meta({ example: 42000 }),
  retail_price_cents: z.int().meta({ description: 'Suggested retail price.', example: 69900 }),
  custom_retail_price_cents: z.int().nullable().meta({ example: 64900 }),
  effective_retail_price_cents: z
    .int()
    .meta({ description: 'What buyers pay: the custom price, else the suggested.', example: 64900 }),
  purchase_mode: z
    .enum(['buy_now', 'enquiry'])
    .meta({ description: '`buy_now`: card checkout; `enquiry`: quote only.' }),
  vendor_fulfilled: z
    .boolean()
    .meta({ description: 'The vendor ships this listing themselves.', example: false }),
  own_goods: z.boolean().meta({ description: "A product of the store's own supplier.", example: false }),
  in_stock: z.boolean().meta({ example: true }),
  stock_quantity: z.int().meta({ description: 'Units the store can sell (0 once withdrawn).', example: 14 }),
  hidden_channels: z.array(z.enum(CHANNELS)).meta({
    description:
      'Sales channels the listing is kept off, by the supplier or by the store (`storefront`, `google`, `meta`, `freight`).',
    example: [],
  }),
  withdrawn_at: z.iso
    .datetime()
    .nullable()
    .meta({
      description:
        'When the product was withdrawn from the catalogue, else null. A withdrawn listing stays readable but sells nothing; ' +
        'it sells again if the product is reinstated.',
      example: null,
    }),
  created_at: z.iso.datetime().meta({ example: '2026-10-20T01:15:00.000Z' }),
  updated_at: z.iso.datetime().meta({ example: '2026-11-02T09:30:00.000Z' }),
});

export const listingListItem = listingBase.extend({
  options: z
    .array(z.string())
    .optional()
    .meta({ description: 'With include=variants: option group titles.', example: ['Finish'] }),
  variants: z.array(variantStock).optional().meta({ description: 'With include=variants.' }),
});
export type ListingListItem = z.output<typeof listingListItem>;

export const listListingsOutput = z.object({
  products: z.array(listingListItem),
  pagination: paginationSchema,
});

export const listingDetail = listingBase.extend({
  options: z.array(
    z.object({
      name: z.string().meta({ example: 'Finish' }),
      values: z.array(z.string()).meta({ example: ['Natural oil', 'Black stain'] }),
    }),
  ),
  variants: z.array(
    variantStock.extend({
      price_cents: z.int().meta({ description: 'What buyers pay for this variant.', example: 64900 }),
    }),
  ),
});
export type ListingDetail = z.output<typeof listingDetail>;
export const listingDetailOutput = z.object({ product: listingDetail });

export const productPathInput = z.object({
  productId: listedProductId('The catalogue product id of the listing.'),
});
export type ProductPathInput = z.output<typeof productPathInput>;

const vendorProduct = z.object({
  id: z.int().meta({ description: 'The listing id.', example: 311 }),
  product_id: z.int().meta({ description: 'The catalogue product id.', example: 1042 }),
  custom_retail_price_cents: z.int().nullable().meta({ example: 64900 }),
  purchase_mode: z.enum(['buy_now', 'enquiry']),
  vendor_fulfilled: z.boolean().meta({ example: false }),
});
export type VendorProduct = z.output<typeof vendorProduct>;
export const vendorProductOutput = z.object({
  message: z.string().meta({ example: 'Product added to your store' }),
  vendor_product: vendorProduct,
});

const priceCents = intParam(0, PG_INT_MAX, { description: 'Retail price in cents.', example: 64900 });

export const addListingInput = z.strictObject({
  product_id: productId('The catalogue product to list.'),
  custom_retail_price_cents: priceCents.optional(),
});
export type AddListingInput = z.output<typeof addListingInput>;

export const pricingInput = z.strictObject({
  productId: listedProductId('The catalogue product id of the listing.'),
  custom_retail_price_cents: priceCents
    .nullable()
    .meta({ description: 'Cents; `null` restores the suggested price.', example: 64900 }),
});
export type PricingInput = z.output<typeof pricingInput>;

export const purchaseModeInput = z.strictObject({
  productId: listedProductId('The catalogue product id of the listing.'),
  purchase_mode: z.enum(['buy_now', 'enquiry']).meta({
    description:
      '`buy_now`: card checkout; `enquiry`: quote only (409 for a product the catalogue sells only on quote).',
    example: 'enquiry',
  }),
});
export type PurchaseModeInput = z.output<typeof purchaseModeInput>;

export const vendorFulfilledInput = z.strictObject({
  productId: listedProductId('The catalogue product id of the listing.'),
  vendor_fulfilled: boolParam.meta({
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, {
        type: 'boolean',
        description: '`true`: own goods, the vendor ships this listing themselves.',
        example: true,
      });
    },
  }),
});
export type VendorFulfilledInput = z.output<typeof vendorFulfilledInput>;

export const messageOutput = z.object({
  message: z.string().meta({ example: 'Product removed from your store' }),
});

export const bulkInput = z
  .object({
    mode: z.enum(['ids', 'filter']),
    product_ids: z
      .array(idParam)
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'With mode `ids`: 1 to 500 catalogue product ids.', example: [1042, 1043] }),
    // Strict: a misspelt filter must be a 400, never silently dropped into `{}` (which matches everything).
    filters: z
      .strictObject(catalogueFilters)
      .optional()
      .meta({ description: 'With mode `filter`: the catalogue filter parameters; `{}` matches everything.' }),
  })
  .strict()
  // A transform, not a refinement: trpc-to-openapi rebuilds a refined object without its strictness
  // when it takes the path parameters out for the request body, and the contract must say strict.
  .transform((v, ctx) => {
    if (v.mode === 'ids' && v.product_ids === undefined) {
      ctx.addIssue({ code: 'custom', path: ['product_ids'], message: 'required with mode ids', input: v });
    }
    if (v.mode === 'filter' && v.filters === undefined) {
      ctx.addIssue({ code: 'custom', path: ['filters'], message: 'required with mode filter', input: v });
    }
    return v;
  });
export type BulkInput = z.output<typeof bulkInput>;

const skipped = z
  .array(
    z.object({
      product_id: z.int().meta({ example: 1043 }),
      reason: z.enum(['not_found', 'already_listed', 'not_in_store', 'duplicate']),
    }),
  )
  .meta({ description: 'With mode `ids`: the ids that were not acted on, and why.' });
export type Skip = z.output<typeof skipped>[number];
export const bulkAddOutput = z
  .object({
    added: z.int().meta({ description: 'Newly listed.' }),
    restored: z.int().meta({ description: 'Listed again after an earlier removal.' }),
    skipped,
  })
  .meta({ example: { added: 1, restored: 0, skipped: [{ product_id: 1043, reason: 'already_listed' }] } });
export const bulkRemoveOutput = z
  .object({ removed: z.int().meta({ description: 'Listings removed (soft delete).' }), skipped })
  .meta({ example: { removed: 1, skipped: [{ product_id: 1043, reason: 'not_in_store' }] } });

/** A store's own product (its own supplier), created by the dashboard. */
export const createOwnGoodsInput = z.object({
  storeId: idParam,
  sku: z.string().trim().min(1).max(64),
  name: z.string().trim().min(1).max(200),
  priceCents: z.int().min(0).max(PG_INT_MAX),
  costCents: z.int().min(0).max(PG_INT_MAX).optional(),
  stock: z.int().min(0).max(PG_INT_MAX),
});
export type CreateOwnGoodsInput = z.output<typeof createOwnGoodsInput>;

export const ownGoodsInput = z.object({ storeId: idParam });
export type OwnGoodsInput = z.output<typeof ownGoodsInput>;

export const retitleListingInput = z
  .object({
    storeId: idParam,
    productId: idParam,
    /** null restores the catalogue's name. */
    title: z.string().trim().min(1).max(200).refine(noNul, NUL_MESSAGE).nullable(),
  })
  .strict();
export type RetitleListingInput = z.output<typeof retitleListingInput>;

export const setListingChannelsInput = z
  .object({ storeId: idParam, productId: idParam, hidden_channels: channelSet })
  .strict();
export type SetListingChannelsInput = z.output<typeof setListingChannelsInput>;
