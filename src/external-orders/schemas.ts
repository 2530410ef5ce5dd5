import { z } from 'zod';
import { customerInput, orderDetail, shippingInput } from '../orders/schemas.ts';
import { described, idParam, intParam, NUL_MESSAGE, noNul, PG_INT_MAX } from '../trpc/params.ts';

export const externalOrderInput = z.strictObject({
  marketplace: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,49}$/, 'lowercase letters, digits, `_`, `-` or `.`, at most 50')
    .meta({ ...described('Which marketplace the order came from, e.g. `etsy`.'), example: 'etsy' }),
  external_order_id: z.string().trim().min(1).max(100).refine(noNul, NUL_MESSAGE).meta({
    description: "The marketplace's order id; with `marketplace` the order's natural key in the store.",
    example: '3141592653',
  }),
  placed_at: z.iso.datetime({ offset: true }).meta({ example: '2026-11-02T08:15:00+11:00' }),
  // Stores sell in AUD; an order in any other currency cannot be recorded as paid.
  currency: z.enum(['AUD']),
  customer: customerInput,
  shipping: shippingInput,
  items: z
    .array(
      z.strictObject({
        sku: z
          .string()
          .trim()
          .min(1)
          .max(64)
          .refine(noNul, NUL_MESSAGE)
          .meta({ description: 'A SKU the store mapped to one of its products.', example: 'HH-VASE-01' }),
        quantity: intParam(1, 10_000, { example: 2 }),
        price_cents: intParam(0, PG_INT_MAX, {
          description: 'Unit price paid on the marketplace.',
          example: 4500,
        }),
      }),
    )
    .min(1)
    .max(100),
  total_cents: intParam(0, PG_INT_MAX, {
    description: 'Must equal the sum of quantity × price_cents.',
    example: 9000,
  }),
});
export type ExternalOrderInput = z.output<typeof externalOrderInput>;

const holdLine = z.object({
  sku: z.string().meta({ example: 'HH-VASE-01' }),
  reason: z.enum(['unmapped_sku', 'service_supplied', 'insufficient_stock']),
});
export type HoldLine = z.output<typeof holdLine>;

export const externalOrderOutput = z.object({
  result: z.enum(['created', 'existing', 'held']).meta({
    description:
      '`created` (201), `existing` (200: already in, the existing order), `held` (202: not created).',
  }),
  order: orderDetail.nullable().meta({ description: 'The order; `null` when held.' }),
  hold: z
    .object({
      reason: z.enum(['unmapped_sku', 'service_supplied', 'insufficient_stock']),
      lines: z.array(holdLine),
    })
    .nullable()
    .meta({
      description: 'Why the post is held, line by line; `null` unless held. Post it again once fixed.',
      example: null,
    }),
});

export const cancelInput = z.strictObject({
  id: intParam(1, PG_INT_MAX, {
    description: 'The order id (of an order posted through POST /api/v1/orders/external).',
    example: 9003,
  }),
  note: z
    .string()
    .max(500)
    .refine(noNul, NUL_MESSAGE)
    .meta({ description: 'Recorded with the cancellation.', example: 'Buyer cancelled on the marketplace' })
    .optional(),
});
export type CancelInput = z.output<typeof cancelInput>;
export const cancelOutput = z.object({ order: orderDetail });

export const mapSkuInput = z.object({
  storeId: idParam,
  sku: z.string().trim().min(1).max(64),
  productId: idParam,
  variantId: idParam.optional(),
});
export type MapSkuInput = z.output<typeof mapSkuInput>;

export const storeRef = z.object({ storeId: idParam });
export type StoreRef = z.output<typeof storeRef>;
