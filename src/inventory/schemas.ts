import { z } from 'zod';
import { described, idParam, intParam, PG_INT_MAX } from '../trpc/params.ts';

export const listInventoryInput = z.object({
  updated_since: z
    .string()
    .max(300)
    .optional()
    .meta(described('A next_cursor from an earlier page; absent = from the start.')),
  limit: intParam(
    1,
    500,
    described(
      'Items per page: at most the platform page size, 500 unless the platform set it lower; default the page size.',
    ),
  ).optional(),
});
export type ListInventoryInput = z.output<typeof listInventoryInput>;

const variant = z.object({
  id: z.int(),
  sku: z.string(),
  title: z.string(),
  option_values: z.record(z.string(), z.string()),
  quantity_available: z.int(),
  available_for_sale: z.boolean(),
});

export const inventoryOutput = z.object({
  items: z.array(
    z.object({
      product_id: z.int(),
      sku: z.string(),
      name: z.string(),
      listed: z.boolean().meta(described('false once the store removed the listing.')),
      withdrawn_at: z.iso
        .datetime()
        .nullable()
        .meta(
          described(
            'When the product was withdrawn from the catalogue, else null: a withdrawn product has no stock to sell.',
          ),
        ),
      in_stock: z.boolean(),
      stock_quantity: z.int(),
      variants: z.array(variant),
      updated_at: z.iso.datetime(),
    }),
  ),
  next_cursor: z.string().meta(described('Pass back as updated_since; always present.')),
  has_more: z.boolean(),
});

/**
 * The page schema as the contract (OpenAPI document, types of the tRPC client), without tRPC parsing
 * every page again on its way out (500 items and their variants: ~0.8 ms of a ~16 ms page on the
 * bench machine). What holds the shape instead: the resolver's result is type-checked against this
 * schema; `listInventory` takes each field from a typed column (PostgreSQL names the variant fields
 * as the contract does); and test/inventory/inventory.test.ts parses real pages, listed and removed, sellable
 * and not, and the empty page at the head, with `inventoryOutput` and requires each unchanged.
 */
function documentedOnly<T extends z.ZodType>(schema: T): T {
  return Object.create(schema, { parse: { value: <V>(value: V): V => value } });
}

/** What the feed procedure declares as its output: `inventoryOutput`, documented only. */
export const inventoryPageOutput = documentedOnly(inventoryOutput);

export const receiveStockInput = z
  .object({ productId: idParam, variantId: idParam.optional(), quantity: z.int().min(1).max(PG_INT_MAX) })
  .strict();
export type ReceiveStockInput = z.output<typeof receiveStockInput>;

/** An absolute stock count, as a stocktake sets it. */
export const setStockInput = z.object({
  productId: idParam,
  variantId: idParam.optional(),
  quantity: z.int().min(0).max(PG_INT_MAX),
});
export type SetStockInput = z.output<typeof setStockInput>;
