import { z } from 'zod';
import { customerInput, orderDetail, shippingInput } from '../orders/schemas.ts';
import { described, idParam, intParam, NUL_MESSAGE, noNul, PG_INT_MAX } from '../trpc/params.ts';

export const externalOrderInput = z.strictObject({
  marketplace: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,49}$/, 'lowercase letters, digits, `_`, `-` or `.`, at most 50')
    .meta(described('Which marketplace the order came from, e.g. `etsy`.')),
  external_order_id: z.string().trim().min(1).max(100).refine(noNul, NUL_MESSAGE),
  placed_at: z.iso.datetime({ offset: true }),
  // Stores sell in AUD; an order in any other currency cannot be recorded as paid.
  currency: z.enum(['AUD']),
  customer: customerInput,
  shipping: shippingInput,
  items: z
    .array(
      z.strictObject({
        sku: z.string().trim().min(1).max(64).refine(noNul, NUL_MESSAGE),
        quantity: intParam(1, 10_000),
        price_cents: intParam(0, PG_INT_MAX, described('Unit price paid on the marketplace.')),
      }),
    )
    .min(1)
    .max(100),
  total_cents: intParam(0, PG_INT_MAX, described('Must equal the sum of quantity × price_cents.')),
});
export type ExternalOrderInput = z.output<typeof externalOrderInput>;

const holdLine = z.object({
  sku: z.string(),
  reason: z.enum(['unmapped_sku', 'service_supplied', 'insufficient_stock']),
});
export type HoldLine = z.output<typeof holdLine>;

export const externalOrderOutput = z.object({
  result: z.enum(['created', 'existing', 'held']),
  order: orderDetail.nullable(),
  hold: z
    .object({
      reason: z.enum(['unmapped_sku', 'service_supplied', 'insufficient_stock']),
      lines: z.array(holdLine),
    })
    .nullable(),
});

export const cancelInput = z.strictObject({
  id: idParam,
  note: z.string().max(500).refine(noNul, NUL_MESSAGE).optional(),
});
export const cancelOutput = z.object({ order: orderDetail });
