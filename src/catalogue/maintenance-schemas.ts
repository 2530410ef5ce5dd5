import { z } from 'zod';
import { idParam, NUL_MESSAGE, noNul, PG_INT_MAX } from '../trpc/params.ts';
import { CHANNELS } from './channels.ts';

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

export const receiveStockInput = z
  .object({ productId: idParam, variantId: idParam.optional(), quantity: z.int().min(1).max(PG_INT_MAX) })
  .strict();

/** An absolute stock count, as a stocktake sets it. */
export const setStockInput = z.object({
  productId: idParam,
  variantId: idParam.optional(),
  quantity: z.int().min(0).max(PG_INT_MAX),
});
