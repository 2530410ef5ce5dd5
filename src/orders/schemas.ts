import { z } from 'zod';
import { paginationSchema } from '../catalogue/schemas.ts';
import { described, idParam, intParam, NUL_MESSAGE, noNul, PG_INT_MAX, textParam } from '../trpc/params.ts';

export const ORDER_STATUSES = [
  'pending',
  'processing',
  'fulfilled',
  'shipped',
  'delivered',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const ORDER_CHANNELS = [
  'facebook_instagram',
  'google',
  'vendor_link',
  'email',
  'other_referral',
  'direct',
  'unknown',
] as const;
export const ORDER_TYPES = ['storefront', 'wholesale_api', 'marketplace'] as const;

/**
 * `2026-11-01` (a real calendar day) or an ISO 8601 date-time with an offset, years 0001 to 9999
 * (PostgreSQL has no year 0).
 */
const dateParam = z
  .string()
  .max(40)
  .refine(
    (v) =>
      (z.iso.date().safeParse(v).success ||
        // PostgreSQL accepts offsets up to ±15:59.
        (z.iso.datetime({ offset: true }).safeParse(v).success && !/[+-](1[6-9]|2\d):?\d\d$/.test(v))) &&
      !v.startsWith('0000'),
    'must be an ISO date (YYYY-MM-DD) or date-time with a time zone',
  );

export const listOrdersInput = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  start_date: dateParam
    .optional()
    .meta(described('Lower bound on created_at, inclusive (a bare date starts at 00:00 UTC).')),
  end_date: dateParam
    .optional()
    .meta(described('Upper bound on created_at; a bare date includes that whole day (UTC).')),
  search: textParam(
    100,
    described('Order number, buyer name or buyer email (substring, case-insensitive).'),
  ).optional(),
  attention: z.enum(['1']).optional().meta(described('`1`: only orders needing action.')),
  channel: z.enum(ORDER_CHANNELS).optional(),
  page: intParam(1, Number.MAX_SAFE_INTEGER, { default: 1 }).default(1),
  limit: intParam(1, 500, { default: 20 }).default(20),
  sort_by: z.enum(['created_at', 'updated_at', 'id']).default('created_at'),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type ListOrdersInput = z.output<typeof listOrdersInput>;

const customer = z.object({ email: z.string(), name: z.string(), phone: z.string() });
const shipping = z.object({
  address: z.string(),
  address2: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  country: z.string(),
});

export const orderListItem = z.object({
  id: z.int(),
  order_number: z.string(),
  status: z.enum(ORDER_STATUSES),
  order_type: z.enum(ORDER_TYPES),
  channel: z.enum(ORDER_CHANNELS),
  total_cents: z.int(),
  currency: z.string(),
  customer: customer.optional().meta(described('Left out without the read_customers app scope.')),
  items_count: z.int(),
  needs_attention: z.boolean(),
  tracking_number: z.string().nullable(),
  invoice_number: z.string().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type OrderListItem = z.output<typeof orderListItem>;
export const listOrdersOutput = z.object({ orders: z.array(orderListItem), pagination: paginationSchema });

export const orderDetail = orderListItem.extend({
  source: z.string().nullable(),
  subtotal_cents: z.int(),
  shipping_cents: z.int(),
  gst_cents: z.int().meta(described('GST included in total_cents (one eleventh).')),
  items: z.array(
    z.object({
      product_id: z.int(),
      variant_id: z.int(),
      sku: z.string(),
      name: z.string(),
      quantity: z.int(),
      price_cents: z.int(),
      shipped_quantity: z.int(),
    }),
  ),
  shipping: shipping.optional().meta(described('Left out without the read_customers app scope.')),
  invoice_issued_at: z.iso.datetime().nullable(),
  cancel_reason: z.string().nullable(),
});
export type OrderDetail = z.output<typeof orderDetail>;
export const orderOutput = z.object({ order: orderDetail });
export const orderIdInput = z.object({ id: idParam });

const text = (max: number) => z.string().trim().min(1).max(max).refine(noNul, NUL_MESSAGE);
const optionalText = (max: number) => z.string().trim().max(max).refine(noNul, NUL_MESSAGE).default('');

export const customerInput = z.strictObject({
  email: z.email().max(254),
  name: text(200),
  phone: optionalText(40),
});
export const shippingInput = z.strictObject({
  address: text(200),
  address2: optionalText(200),
  city: text(100),
  state: text(100),
  zip: text(20),
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
    .transform((v) => v.toUpperCase()),
});

export const wholesaleOrderInput = z.strictObject({
  customer: customerInput,
  items: z
    .array(
      z.strictObject({
        product_id: idParam,
        variant_id: idParam
          .optional()
          .meta(described('Required when the product has more than one variant.')),
        quantity: intParam(1, 10_000),
        price_cents: intParam(
          0,
          PG_INT_MAX,
          described('If sent, must equal the current wholesale price.'),
        ).optional(),
      }),
    )
    .min(1)
    .max(100),
  shipping: shippingInput,
  payment: z
    .strictObject({
      method: text(40),
      transaction_id: text(200),
      amount_cents: intParam(0, PG_INT_MAX),
    })
    .optional(),
});
export type WholesaleOrderInput = z.output<typeof wholesaleOrderInput>;

export const createdOrderOutput = z.object({
  order: z.object({
    id: z.int(),
    order_number: z.string(),
    status: z.enum(ORDER_STATUSES),
    order_type: z.enum(ORDER_TYPES),
    total_cents: z.int(),
    created_at: z.iso.datetime(),
  }),
});
